import { ALGORITHM_CODES, type RateParams, type Verdict } from '../algorithms/algorithm.types.js';
import * as concurrency from '../algorithms/concurrency.js';
import * as fixedWindow from '../algorithms/fixed-window.js';
import * as gcra from '../algorithms/gcra.js';
import * as leakyBucket from '../algorithms/leaky-bucket.js';
import { rateParams } from '../algorithms/rate-params.js';
import * as slidingLog from '../algorithms/sliding-log.js';
import * as slidingWindow from '../algorithms/sliding-window.js';
import * as tokenBucket from '../algorithms/token-bucket.js';
import * as penalty from '../penalty/penalty.js';
import type { PenaltyParams, PenaltyState } from '../penalty/penalty.js';
import type {
  OutcomeReason,
  PolicyOutcome,
  PolicySpec,
  StoreCall,
  StoreResult,
} from './store.types.js';

/** The TypeScript twin of operations.lua, over any keyed state with TTLs. */
export interface StateAccess {
  get<T>(key: string): T | undefined;
  /** ttl in µs; ttl ≤ 0 deletes. */
  set(key: string, value: unknown, ttl: number): void;
  delete(key: string): void;
}

interface AlgorithmTwin {
  decide(
    state: unknown,
    now: number,
    p: RateParams,
    cost: number,
    lease?: string,
  ): Verdict<unknown>;
  refund(
    state: unknown,
    now: number,
    p: RateParams,
    cost: number,
  ): { state: unknown; ttl: number } | undefined;
  /** A quota's (fixed-window's) credits: docs/algorithms.md, "Credits". */
  grant?: (
    state: unknown,
    now: number,
    p: RateParams,
    amount: number,
  ) => { state: unknown; ttl: number };
  settle?: (
    state: unknown,
    now: number,
    p: RateParams,
    amount: number,
  ) => { state: unknown; ttl: number };
  usage?: (state: unknown, now: number, p: RateParams) => { used: number; granted: number };
  /** concurrency: ends a lease's slots. */
  release?: (
    state: unknown,
    now: number,
    lease: string,
    cost: number,
  ) => { state: unknown; ttl: number } | undefined;
}

const TWINS: Record<PolicySpec['algorithm'], AlgorithmTwin> = {
  'fixed-window': fixedWindow as AlgorithmTwin,
  'sliding-log': slidingLog,
  'sliding-window': slidingWindow,
  'token-bucket': tokenBucket,
  'leaky-bucket': leakyBucket,
  gcra,
  concurrency: concurrency as AlgorithmTwin,
};

interface Entry {
  spec: PolicySpec;
  twin: AlgorithmTwin;
  rate: RateParams;
  rule: PenaltyParams | undefined;
  penalty: PenaltyState;
  state?: unknown;
  verdict?: Verdict<unknown>;
  reason: OutcomeReason;
  started: boolean;
  /** A candidate's: whether its request would have passed, so it was charged. */
  charged?: boolean;
}

/** The live policy a candidate spec (`<name>~c`) would replace; undefined for a live spec. */
export function candidateOf(spec: PolicySpec): string | undefined {
  return spec.mode === 'candidate' ? spec.name.slice(0, -CANDIDATE_SUFFIX.length) : undefined;
}

/** A candidate's state keys are its policy's name with this suffix, which no name can end in. */
export const CANDIDATE_SUFFIX = '~c';

const refuses = (entry: Entry) => entry.reason === 'limit' || entry.reason === 'blocked';

/** Had the candidate been live: it admits, and no live policy but the one it replaces refuses. */
function candidatePasses(entries: Entry[], candidate: Entry): boolean {
  if (candidate.reason !== 'ok') return false;
  const replaces = candidateOf(candidate.spec);
  return entries.every(
    (entry) => !refuses(entry) || entry.spec.mode === 'candidate' || entry.spec.name === replaces,
  );
}

function penaltyParams(spec: PolicySpec): PenaltyParams | undefined {
  const rule = spec.penalty;
  if (rule === null) return undefined;
  return {
    afterViolations: rule.afterViolations,
    block: rule.blockMs * 1000,
    escalation: rule.escalation,
    maxBlock: rule.maxBlockMs * 1000,
    forgetAfter: rule.forgetAfterMs * 1000,
  };
}

export function runOperation(access: StateAccess, call: StoreCall, now: number): StoreResult {
  const stateKey = (spec: PolicySpec) =>
    `${call.key}:${spec.name}:${ALGORITHM_CODES[spec.algorithm]}`;
  const penaltyKey = (spec: PolicySpec) => `${call.key}:${spec.name}:p`;
  const readPenalty = (spec: PolicySpec) =>
    access.get<PenaltyState>(penaltyKey(spec)) ?? penalty.NO_PENALTY;
  const writePenalty = (entry: Pick<Entry, 'spec' | 'rate' | 'rule'>, state: PenaltyState) =>
    access.set(
      penaltyKey(entry.spec),
      state,
      penalty.penaltyTtl(state, now, entry.rate.period, entry.rule?.forgetAfter ?? 0),
    );

  const entries: Entry[] = call.specs.map((spec) => ({
    spec,
    twin: TWINS[spec.algorithm],
    rate: rateParams(spec),
    rule: penaltyParams(spec),
    penalty: readPenalty(spec),
    reason: 'ok',
    started: false,
  }));

  if (call.op === 'sync') {
    // Each spec's cost is what an instance admitted on its own: charged as far as the state has
    // room (what did not fit was admitted over the limit, and is not held against the
    // identifier), then the state as it now is.
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

  if (call.op === 'consume' || call.op === 'peek') {
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

  if (call.op === 'grant' || call.op === 'settle') {
    return adjustQuota(access, call, entries, stateKey, now);
  }
  if (call.op === 'release') {
    for (const entry of entries) {
      const { release } = entry.twin;
      if (release === undefined) continue;
      const key = stateKey(entry.spec);
      const released = release(access.get(key), now, call.lease ?? '', entry.spec.cost);
      if (released !== undefined) access.set(key, released.state, released.ttl);
    }
    return { admitted: true, outcomes: entries.map(() => quiet()) };
  }

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
    outcomes: entries.map((entry) => ({
      allowed: true,
      reason: 'ok',
      remaining: 0,
      reset: 0,
      retry: 0,
      delay: 0,
      blockedUntil:
        call.op === 'unblock' || call.op === 'forget'
          ? (lifted.get(entry) ?? 0)
          : entry.penalty.blockedUntil > now
            ? entry.penalty.blockedUntil
            : 0,
      offence: entry.penalty.offence,
      blockStarted: false,
    })),
  };
}

/** An outcome that admits and says nothing else: what release answers, and grant fills in. */
function quiet(): PolicyOutcome {
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
  };
}

/**
 * grant: credits for the period `now` falls in (docs/algorithms.md, "Credits"); an amount of 0
 * reads. settle: units charged (or given back) after the response, past the limit if need be.
 */
function adjustQuota(
  access: StateAccess,
  call: StoreCall,
  entries: Entry[],
  stateKey: (spec: PolicySpec) => string,
  now: number,
): StoreResult {
  const amount = call.amount ?? 0;
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
    return result;
  });
  return { admitted: true, outcomes };
}

function outcome(entry: Entry, now: number, charged: boolean): PolicyOutcome {
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
