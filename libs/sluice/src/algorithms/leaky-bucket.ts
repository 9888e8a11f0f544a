import type { RateParams, Verdict } from './algorithm.types.js';
import { idiv } from './integer-math.js';

/** State: the time the queue has drained (drainAt), µs. Requests leave one interval apart. */
export type LeakyBucketState = number;

/** How many more unit requests fit before the wait would exceed maxDelay. */
function room(queued: number, p: RateParams): number {
  return queued > p.maxDelay ? 0 : idiv(p.maxDelay - queued, p.interval) + 1;
}

export function decide(
  drainAt: LeakyBucketState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): Verdict<LeakyBucketState> {
  const start = Math.max(drainAt ?? now, now);
  const wait = start - now;
  if (wait <= p.maxDelay) {
    const nextDrainAt = start + cost * p.interval;
    return {
      allowed: true,
      remaining: room(nextDrainAt - now, p),
      reset: nextDrainAt - now,
      retry: 0,
      delay: wait,
      state: nextDrainAt,
      ttl: nextDrainAt - now,
    };
  }
  return {
    allowed: false,
    remaining: 0,
    reset: wait,
    retry: wait - p.maxDelay,
    delay: 0,
    ttl: wait,
  };
}

export function refund(
  drainAt: LeakyBucketState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): { state: LeakyBucketState; ttl: number } | undefined {
  if (drainAt === undefined) return undefined;
  const nextDrainAt = Math.max(now, drainAt - cost * p.interval);
  return { state: nextDrainAt, ttl: nextDrainAt - now };
}
