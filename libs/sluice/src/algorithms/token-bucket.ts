import type { RateParams, Verdict } from './algorithm.types.js';
import { idiv } from './integer-math.js';

/**
 * State: whole tokens and the time they were counted at. One token arrives every interval; the
 * stamp advances only by whole intervals, so partial progress towards the next token is kept.
 */
export interface TokenBucketState {
  tokens: number;
  stamp: number;
}

function refill(state: TokenBucketState | undefined, now: number, p: RateParams): TokenBucketState {
  if (state === undefined) return { tokens: p.burst, stamp: now };
  const added = idiv(Math.max(0, now - state.stamp), p.interval);
  const tokens = Math.min(p.burst, state.tokens + added);
  return { tokens, stamp: tokens === p.burst ? now : state.stamp + added * p.interval };
}

/** Until the bucket is full again, µs. */
function untilFull(bucket: TokenBucketState, now: number, p: RateParams): number {
  return bucket.tokens >= p.burst
    ? 0
    : (p.burst - bucket.tokens) * p.interval - (now - bucket.stamp);
}

export function decide(
  state: TokenBucketState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): Verdict<TokenBucketState> {
  const bucket = refill(state, now, p);
  if (bucket.tokens >= cost) {
    const next = { tokens: bucket.tokens - cost, stamp: bucket.stamp };
    const reset = untilFull(next, now, p);
    return {
      allowed: true,
      remaining: next.tokens,
      reset,
      retry: 0,
      delay: 0,
      state: next,
      ttl: reset,
    };
  }
  const reset = untilFull(bucket, now, p);
  return {
    allowed: false,
    remaining: bucket.tokens,
    reset,
    retry: (cost - bucket.tokens) * p.interval - (now - bucket.stamp),
    delay: 0,
    ttl: reset,
  };
}

export function refund(
  state: TokenBucketState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): { state: TokenBucketState; ttl: number } | undefined {
  if (state === undefined) return undefined;
  const bucket = refill(state, now, p);
  const tokens = Math.min(p.burst, bucket.tokens + cost);
  const next = { tokens, stamp: tokens === p.burst ? now : bucket.stamp };
  return { state: next, ttl: untilFull(next, now, p) };
}
