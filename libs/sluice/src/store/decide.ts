import * as penalty from '../penalty/penalty.js';
import type { PolicyOutcome, PolicySpec } from './store.types.js';
import type { Entry } from './state.js';

// The twin of decide.lua: what a candidate would have done, and each policy's outcome.

/** The live policy a candidate spec (`<name>~c`) would replace; undefined for a live spec. */
export function candidateOf(spec: PolicySpec): string | undefined {
  return spec.mode === 'candidate' ? spec.name.slice(0, -CANDIDATE_SUFFIX.length) : undefined;
}

/** A candidate's state keys are its policy's name with this suffix, which no name can end in. */
export const CANDIDATE_SUFFIX = '~c';

export const refuses = (entry: Entry) => entry.reason === 'limit' || entry.reason === 'blocked';

/** Had the candidate been live: it admits, and no live policy but the one it replaces refuses. */
export function candidatePasses(entries: Entry[], candidate: Entry): boolean {
  if (candidate.reason !== 'ok') return false;
  const replaces = candidateOf(candidate.spec);
  return entries.every(
    (entry) => !refuses(entry) || entry.spec.mode === 'candidate' || entry.spec.name === replaces,
  );
}

/** An outcome that admits and says nothing else: what release answers, and grant fills in. */
export function quiet(): PolicyOutcome {
  return {
    allowed: true,
    reason: 'ok',
    remaining: 0,
    reset: 0,
    retry: 0,
    delay: 0,
    blockedUntil: 0,
    offence: 0,
    blockStarted: false,
    granted: 0,
  };
}

/** One policy's outcome. charged: whether the live policies were; a candidate says for itself. */
export function outcome(entry: Entry, now: number, charged: boolean): PolicyOutcome {
  const result: PolicyOutcome = {
    allowed: entry.reason === 'ok' || entry.reason === 'shadow',
    reason: entry.reason,
    remaining: 0,
    reset: 0,
    retry: 0,
    delay: 0,
    blockedUntil: 0,
    offence: entry.penalty.offence,
    blockStarted: entry.started,
    granted: entry.verdict?.granted ?? 0,
  };
  const verdict = entry.verdict;
  if (penalty.isBlocked(entry.penalty, now)) {
    result.blockedUntil = entry.penalty.blockedUntil;
    result.reset = result.retry = entry.penalty.blockedUntil - now;
    if (verdict !== undefined && !verdict.allowed) {
      result.retry = Math.max(result.retry, verdict.retry);
      result.reset = Math.max(result.reset, verdict.reset);
    }
  } else if (verdict !== undefined) {
    if (verdict.allowed && !charged) {
      const unchanged = entry.twin.decide(entry.state, now, entry.rate, 0);
      result.remaining = unchanged.remaining;
      result.reset = unchanged.reset;
      result.delay = verdict.delay;
    } else {
      result.remaining = verdict.remaining;
      result.reset = verdict.reset;
      result.delay = verdict.delay;
      result.retry = Math.max(result.retry, verdict.retry);
    }
  }
  return result;
}
