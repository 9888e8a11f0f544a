import { quiet } from './decide.js';
import type { CallState } from './state.js';
import type { StoreResult } from './store.types.js';

// The twin of quota.ops.lua: grant and settle on a quota, release of a lease's slots.

/**
 * grant: credits for the period `now` falls in (docs/algorithms.md, "Credits"); an amount of 0
 * reads. settle: units charged (or given back) after the response, past the limit if need be.
 */
export function quotaOp(state: CallState): StoreResult {
  const { access, call, now, entries, stateKey } = state;
  const amount =
    call.op === 'grant' && call.once !== undefined ? markedAmount(state) : (call.amount ?? 0);
  const outcomes = entries.map((entry) => {
    const { grant, settle, usage } = entry.twin;
    if (grant === undefined || settle === undefined || usage === undefined) {
      throw new Error(`sluice: ${entry.spec.name} is not a quota (fixed-window)`);
    }
    let state: unknown = access.get(stateKey(entry.spec));
    if (amount !== 0) {
      const adjusted = (call.op === 'grant' ? grant : settle)(state, now, entry.rate, amount);
      access.set(stateKey(entry.spec), adjusted.state, adjusted.ttl);
      state = adjusted.state;
    }
    const verdict = entry.twin.decide(state, now, entry.rate, 0);
    const result = quiet();
    result.remaining = verdict.remaining;
    result.reset = verdict.reset;
    result.quota = usage(state, now, entry.rate);
    result.granted = result.quota.granted;
    return result;
  });
  return { admitted: true, outcomes };
}

/** How long a grant's mark is kept: a day, in µs. */
const MARK_TTL_US = 86_400_000_000;

/**
 * A marked grant is made once: the mark is kept, and a call that finds it changes nothing. Its
 * undo takes back the amount when the mark says it was made, and leaves the mark taken either
 * way, so a grant arriving after its undo changes nothing.
 */
function markedAmount({ access, call }: CallState): number {
  const key = `${call.key}:g:${call.once ?? ''}`;
  const seen = access.get<string>(key);
  const amount = call.amount ?? 0;
  if (call.undo === true) {
    access.set(key, '0', MARK_TTL_US);
    return seen === '1' ? -amount : 0;
  }
  if (seen !== undefined) return 0;
  access.set(key, '1', MARK_TTL_US);
  return amount;
}

/** Ends a lease's slots; a policy without leases has nothing to give back. */
export function releaseOp(state: CallState): StoreResult {
  const { access, call, now, entries, stateKey } = state;
  for (const entry of entries) {
    const { release } = entry.twin;
    if (release === undefined) continue;
    const key = stateKey(entry.spec);
    const released = release(access.get(key), now, call.lease ?? '', entry.spec.cost);
    if (released !== undefined) access.set(key, released.state, released.ttl);
  }
  return { admitted: true, outcomes: entries.map(() => quiet()) };
}
