import type { RateParams, Verdict } from './algorithm.types.js';

/**
 * State: the requests in flight, as leases (a sorted set in Redis): each member, "<lease>" then
 * "<lease>#2"… for a request of several units, with when it expires by itself, µs. A lease is
 * released when its request ends; one whose instance died lapses at its expiry.
 */
export type ConcurrencyState = ReadonlyArray<{ member: string; expires: number }>;

/**
 * A refusal's retry: slots free when requests end, which no clock predicts, so at most this long
 * (µs), sooner when a lease lapses sooner (docs/algorithms.md, "Concurrency").
 */
export const CONCURRENCY_RETRY = 1_000_000;

function leaseMembers(lease: string, cost: number): string[] {
  const members = [lease];
  for (let i = 2; i <= cost; i++) members.push(`${lease}#${i}`);
  return members;
}

export function decide(
  state: ConcurrencyState | undefined,
  now: number,
  p: RateParams,
  cost: number,
  lease = '',
): Verdict<ConcurrencyState> {
  // Ordered by expiry, then member, as Redis orders a sorted set.
  const live = (state ?? []).filter((each) => each.expires > now);
  const used = live.length;
  const newest = used > 0 ? (live[used - 1] as { expires: number }).expires : undefined;
  if (used + cost <= p.limit) {
    if (cost === 0) {
      const reset = newest === undefined ? 0 : newest - now;
      return { allowed: true, remaining: p.limit - used, reset, retry: 0, delay: 0, ttl: reset };
    }
    const expires = now + p.period;
    const added = leaseMembers(lease, cost).map((member) => ({ member, expires }));
    const reset = Math.max(newest ?? now, expires) - now;
    return {
      allowed: true,
      remaining: p.limit - used - cost,
      reset,
      retry: 0,
      delay: 0,
      state: ordered([...live, ...added]),
      ttl: reset,
    };
  }
  const lapses = (live[used + cost - p.limit - 1] as { expires: number }).expires;
  const reset = (newest as number) - now;
  return {
    allowed: false,
    remaining: Math.max(0, p.limit - used),
    reset,
    retry: Math.min(CONCURRENCY_RETRY, lapses - now),
    delay: 0,
    ttl: reset,
  };
}

/** A lease is given back by `release`, not by a refund (see concurrency.lua). */
export function refund(): undefined {
  return undefined;
}

/**
 * Ends the lease's units. The set lives as long as its newest lease (`ttl`, µs), and goes with
 * its last live one (ttl 0).
 */
export function release(
  state: ConcurrencyState | undefined,
  now: number,
  lease: string,
  cost: number,
): { state: ConcurrencyState; ttl: number } | undefined {
  if (state === undefined) return undefined;
  const ended = new Set(leaseMembers(lease, cost));
  const kept = state.filter((each) => !ended.has(each.member));
  const newest = kept[kept.length - 1]?.expires ?? now;
  return { state: kept, ttl: Math.max(0, newest - now) };
}

/** As a sorted set keeps them: one entry per member (the last added wins), by expiry, then member. */
function ordered(leases: Array<{ member: string; expires: number }>): ConcurrencyState {
  const byMember = new Map(leases.map((lease) => [lease.member, lease]));
  return [...byMember.values()].sort((a, b) =>
    a.expires !== b.expires ? a.expires - b.expires : a.member < b.member ? -1 : 1,
  );
}
