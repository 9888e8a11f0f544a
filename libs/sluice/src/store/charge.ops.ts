import type { Verdict } from '../algorithms/algorithm.types.js';
import * as penalty from '../penalty/penalty.js';
import { candidatePasses, outcome, refuses } from './decide.js';
import type { CallState } from './state.js';
import type { StoreResult } from './store.types.js';

// The twin of charge.ops.lua: consume charges the policies when every live one admits the
// request, peek only answers, sync charges what an instance admitted on its own.

/** consume and peek. */
export function consumeOp(state: CallState): StoreResult {
  const { access, call, now, entries, stateKey, writePenalty } = state;
  let admitted = true;
  for (const entry of entries) {
    // Decided even while blocked: a refusal must also wait for the rate state to admit it.
    entry.state = access.get(stateKey(entry.spec));
    entry.verdict = entry.twin.decide(
      entry.state,
      now,
      entry.rate,
      entry.spec.cost,
      call.lease ?? '',
    );
    if (penalty.isBlocked(entry.penalty, now)) entry.reason = 'blocked';
    else entry.reason = entry.verdict.allowed ? 'ok' : 'limit';
    // Shadow mode refuses nothing but a block set by hand: an operator's block is meant.
    const manual = entry.reason === 'blocked' && penalty.isManual(entry.penalty);
    if (entry.reason !== 'ok' && entry.spec.mode === 'shadow' && !manual) entry.reason = 'shadow';
    // A candidate never refuses the request.
    if (entry.spec.mode !== 'candidate' && refuses(entry)) admitted = false;
  }
  if (call.op === 'consume') {
    for (const entry of entries) {
      if (entry.spec.mode === 'candidate') {
        // What the candidate would have done, on its own keys; its penalty is never applied.
        entry.charged = candidatePasses(entries, entry);
        if (entry.charged) {
          const verdict = entry.verdict as Verdict<unknown>;
          access.set(stateKey(entry.spec), verdict.state, verdict.ttl);
        } else if (entry.reason === 'limit' && entry.rule !== undefined) {
          const violation = penalty.violate(entry.penalty, now, entry.rate.period, entry.rule);
          entry.penalty = violation.state;
          entry.started = violation.started;
          writePenalty(entry, entry.penalty);
        }
      } else if (admitted && entry.reason === 'ok') {
        const verdict = entry.verdict as Verdict<unknown>;
        access.set(stateKey(entry.spec), verdict.state, verdict.ttl);
      } else if (!admitted && entry.reason === 'limit' && entry.rule !== undefined) {
        const violation = penalty.violate(entry.penalty, now, entry.rate.period, entry.rule);
        entry.penalty = violation.state;
        entry.started = violation.started;
        writePenalty(entry, entry.penalty);
      }
    }
  }
  const charged = call.op === 'consume' && admitted;
  return {
    admitted,
    outcomes: entries.map((entry) => outcome(entry, now, entry.charged ?? charged)),
  };
}

/**
 * Each spec's cost is what an instance admitted on its own: charged as far as the state has room
 * (what did not fit was admitted over the limit, and is not held against the identifier), then
 * the state as it now is.
 */
export function syncOp(state: CallState): StoreResult {
  const { access, now, entries, stateKey } = state;
  return {
    admitted: true,
    outcomes: entries.map((entry) => {
      const key = stateKey(entry.spec);
      entry.state = access.get(key);
      const room = entry.twin.decide(entry.state, now, entry.rate, 0).remaining;
      const units = Math.min(entry.spec.cost, room);
      if (units > 0) {
        const charged = entry.twin.decide(entry.state, now, entry.rate, units);
        if (charged.allowed) {
          access.set(key, charged.state, charged.ttl);
          entry.state = access.get(key);
        }
      }
      entry.verdict = entry.twin.decide(entry.state, now, entry.rate, 0);
      entry.reason = penalty.isBlocked(entry.penalty, now) ? 'blocked' : 'ok';
      return outcome(entry, now, true);
    }),
  };
}
