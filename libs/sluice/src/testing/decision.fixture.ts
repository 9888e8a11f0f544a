import type { Decision, PolicyDecision } from '../engine/decision.js';

/** One policy's part of a decision, as the engine would give it: admitted or over its limit. */
export function partDecision(
  policy: string,
  allowed: boolean,
  extra: Partial<PolicyDecision> = {},
): PolicyDecision {
  return {
    allowed,
    policy,
    algorithm: 'fixed-window',
    limit: 10,
    remaining: allowed ? 5 : 0,
    resetMs: 1000,
    retryAfterMs: allowed ? 0 : 1000,
    delayMs: 0,
    reason: allowed ? 'ok' : 'limit',
    ...extra,
  };
}

/** A decision of these parts: refused when one refuses, and then that one's figures. */
export function decisionOf(...parts: PolicyDecision[]): Decision {
  const allowed = parts.every((each) => each.allowed);
  return { ...(parts.find((each) => !each.allowed) ?? parts[0]!), allowed, policies: parts };
}
