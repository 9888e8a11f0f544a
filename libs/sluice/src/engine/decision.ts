import type { AlgorithmName } from '../algorithms/algorithm.types.js';

export type DecisionReason =
  'ok' | 'limit' | 'blocked' | 'cache-block' | 'denylist' | 'shadow' | 'store-error';

export interface AppliedOverride {
  identifier: string;
  limit: number | null;
  unlimited: boolean;
  expiresAt: number | null;
}

/** One policy's part of a decision (DESIGN §3). */
export interface PolicyDecision {
  allowed: boolean;
  policy: string;
  algorithm: AlgorithmName;
  limit: number;
  remaining: number;
  resetMs: number;
  retryAfterMs: number;
  delayMs: number;
  reason: DecisionReason;
  blocked?: { untilMs: number; offence: number };
  override?: AppliedOverride;
}

/**
 * The decision on one request: the deciding policy's figures (the rejecting one with the longest
 * wait, else the one with the least left), and every policy's own in `policies`.
 */
export interface Decision extends PolicyDecision {
  policies: PolicyDecision[];
}

export function summarize(policies: PolicyDecision[], admitted: boolean): Decision {
  const first = policies[0];
  if (first === undefined) throw new Error('a decision needs at least one policy');
  let deciding = first;
  for (const candidate of policies) {
    if (admitted) {
      const shadowed = candidate.reason === 'shadow' && deciding.reason !== 'shadow';
      if (
        shadowed ||
        (candidate.reason === deciding.reason && candidate.remaining < deciding.remaining)
      ) {
        deciding = candidate;
      }
    } else if (
      !candidate.allowed &&
      (deciding.allowed || candidate.retryAfterMs > deciding.retryAfterMs)
    ) {
      deciding = candidate;
    }
  }
  let delayMs = 0;
  if (admitted) for (const policy of policies) delayMs = Math.max(delayMs, policy.delayMs);
  return { ...deciding, allowed: admitted, delayMs, policies };
}
