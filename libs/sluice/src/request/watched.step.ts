import { onEnded } from '../http/response.access.js';
import type { Policy } from '../policy/policy.types.js';
import { traitsOf } from '../algorithms/algorithm.traits.js';
import { awaitOutcome } from './handler.outcome.js';
import type { RequestMatch } from './request.plan.js';
import { RequestHoldings, type HoldingsContext } from './request.holdings.js';
import type { Ending } from './usage.settlement.js';

/**
 * Step 2, before anything is awaited: the request's holdings, and — when its policies may hold
 * something until it ends — its ending watched, so a client gone during admission, a pipelined
 * request behind a dropped connection or a handler that throws still gives back what it took.
 */
export function watched(match: RequestMatch, context: HoldingsContext): RequestHoldings {
  const holdings = new RequestHoldings(match, context);
  if (mayHold(match.policies)) watchEnding(match, (ending) => holdings.end(ending));
  return holdings;
}

/**
 * Calls back once with how the request ended: an HTTP response when its handler is done with it
 * (sent, ended after its client left, or cut short; `onEnded`), a resolver or a WebSocket handler
 * when HandlerOutcomeInterceptor reports its outcome. False when nothing can be watched: what the
 * request holds then lapses by itself (a lease after the policy's period).
 */
export function watchEnding(match: RequestMatch, listener: (ending: Ending) => void): boolean {
  const { kind, invocation } = match;
  if (kind === 'graphql' || kind === 'ws') {
    if (invocation === undefined) return false;
    const listen = (failed: boolean) => listener(failed ? 'failed' : 'answered');
    awaitOutcome(invocation, listen, longestLease(match.policies));
    return true;
  }
  return onEnded(match.res, (statusCode) =>
    listener(statusCode === 0 ? 'left' : statusCode >= 400 ? 'failed' : 'answered'),
  );
}

/**
 * True when a request under `policies` may hold something until it ends: a slot, a reservation
 * to settle, or a charge given back on success. Only such requests watch their ending.
 */
export function mayHold(policies: readonly Policy[]): boolean {
  for (const policy of policies) {
    if (holdsUntilEnd(policy)) return true;
    const candidate = policy.candidate?.policy;
    if (candidate !== undefined && holdsUntilEnd(candidate)) return true;
  }
  return false;
}

/** How long a slot the policies take lasts by itself: the longest of their periods; 0, none. */
function longestLease(policies: readonly Policy[]): number {
  let longest = 0;
  for (const policy of policies) {
    for (const each of [policy, policy.candidate?.policy]) {
      if (each !== undefined && traitsOf(each.algorithm).holdsSlots) {
        longest = Math.max(longest, each.periodMs);
      }
    }
  }
  return longest;
}

function holdsUntilEnd(policy: Policy): boolean {
  return (
    policy.usage !== null || policy.count === 'failures' || traitsOf(policy.algorithm).holdsSlots
  );
}
