import type { RateParams, Verdict } from './algorithm.types.js';

/**
 * State: the times of admitted units, ascending (a sorted set in Redis). Entries at or before
 * now - period are out of the window; they are trimmed when the log is next written.
 */
export type SlidingLogState = number[];

function firstAfter(log: SlidingLogState, since: number): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((log[mid] as number) > since) high = mid;
    else low = mid + 1;
  }
  return low;
}

export function decide(
  log: SlidingLogState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): Verdict<SlidingLogState> {
  const entries = log ?? [];
  const since = now - p.period;
  const first = firstAfter(entries, since);
  const used = entries.length - first;
  const newest = used > 0 ? (entries[entries.length - 1] as number) : undefined;
  if (used + cost <= p.limit) {
    if (cost === 0) {
      const reset = newest === undefined ? 0 : newest + p.period - now;
      return { allowed: true, remaining: p.limit - used, reset, retry: 0, delay: 0, ttl: reset };
    }
    const kept = entries.slice(first);
    const at = firstAfter(kept, now);
    kept.splice(at, 0, ...new Array<number>(cost).fill(now));
    const reset = Math.max(newest ?? now, now) + p.period - now;
    return {
      allowed: true,
      remaining: p.limit - used - cost,
      reset,
      retry: 0,
      delay: 0,
      state: kept,
      ttl: reset,
    };
  }
  const mustLeave = entries[first + used + cost - p.limit - 1] as number;
  const reset = (newest as number) + p.period - now;
  return {
    allowed: false,
    remaining: Math.max(0, p.limit - used),
    reset,
    retry: mustLeave + p.period - now,
    delay: 0,
    ttl: reset,
  };
}

/** Gives back the newest cost entries. */
export function refund(
  log: SlidingLogState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): { state: SlidingLogState; ttl: number } | undefined {
  if (log === undefined) return undefined;
  const kept = log.slice(0, Math.max(0, log.length - cost));
  const newest = kept[kept.length - 1];
  return { state: kept, ttl: newest === undefined ? 0 : newest + p.period - now };
}
