import * as penalty from '../penalty/penalty.js';
import { quiet } from './decide.js';
import type { CallState, Entry } from './state.js';
import type { StoreResult } from './store.types.js';

// The twin of key.ops.lua: refund, reset, block, unblock and forget, each answering the block in
// force after it (unblock and forget: the one they lifted).

export function keyOp(state: CallState): StoreResult {
  const { access, call, now, entries, stateKey, penaltyKey, writePenalty } = state;
  const lifted = new Map<Entry, number>();
  for (const entry of entries) {
    const key = stateKey(entry.spec);
    if (call.op === 'refund') {
      const refunded = entry.twin.refund(access.get(key), now, entry.rate, entry.spec.cost);
      if (refunded !== undefined) access.set(key, refunded.state, refunded.ttl);
    } else if (call.op === 'reset') {
      access.delete(key);
    } else if (call.op === 'block') {
      entry.penalty = penalty.block(entry.penalty, now, (call.durationMs ?? 0) * 1000);
      writePenalty(entry, entry.penalty);
    } else if (call.op === 'forget') {
      if (entry.penalty.blockedUntil > now) lifted.set(entry, entry.penalty.blockedUntil);
      access.delete(penaltyKey(entry.spec));
      entry.penalty = penalty.NO_PENALTY;
    } else {
      if (entry.penalty.blockedUntil > now) lifted.set(entry, entry.penalty.blockedUntil);
      if (entry.penalty.blockedUntil > now || entry.penalty.violations > 0) {
        entry.penalty = penalty.unblock(entry.penalty, now);
        writePenalty(entry, entry.penalty);
      }
    }
  }
  return {
    admitted: true,
    outcomes: entries.map((entry) => {
      const result = quiet();
      result.offence = entry.penalty.offence;
      if (call.op === 'unblock' || call.op === 'forget')
        result.blockedUntil = lifted.get(entry) ?? 0;
      else if (entry.penalty.blockedUntil > now) result.blockedUntil = entry.penalty.blockedUntil;
      return result;
    }),
  };
}
