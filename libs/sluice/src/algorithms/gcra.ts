import type { RateParams, Verdict } from './algorithm.types.js';
import { idiv } from './integer-math.js';

/** State: the theoretical arrival time (tat) of the next request, µs. */
export type GcraState = number;

export function decide(
  tat: GcraState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): Verdict<GcraState> {
  const burstWindow = p.burst * p.interval;
  const start = Math.max(tat ?? now, now);
  const nextTat = start + cost * p.interval;
  if (nextTat - now <= burstWindow) {
    return {
      allowed: true,
      remaining: idiv(burstWindow - (nextTat - now), p.interval),
      reset: nextTat - now,
      retry: 0,
      delay: 0,
      state: nextTat,
      ttl: nextTat - now,
    };
  }
  return {
    allowed: false,
    remaining: Math.max(0, idiv(burstWindow - (start - now), p.interval)),
    reset: start - now,
    retry: nextTat - burstWindow - now,
    delay: 0,
    ttl: start - now,
  };
}

export function refund(
  tat: GcraState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): { state: GcraState; ttl: number } | undefined {
  if (tat === undefined) return undefined;
  const nextTat = Math.max(now, tat - cost * p.interval);
  return { state: nextTat, ttl: nextTat - now };
}
