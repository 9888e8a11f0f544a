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
import type { OutcomeReason, PolicySpec, StoreCall } from './store.types.js';

// The twin of spec.lua and state.lua: each policy of a call with its algorithm's twin, its rate,
// its penalty rule, and where its state and penalty live under the identifier's key.

/** Keyed state with TTLs, as the twins read and write it (a MemoryStore's map, a simulation's). */
export interface StateAccess {
  get<T>(key: string): T | undefined;
  /** ttl in µs; ttl ≤ 0 deletes. */
  set(key: string, value: unknown, ttl: number): void;
  delete(key: string): void;
}

export interface AlgorithmTwin {
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

/** One policy of a call: its spec and twin, its penalty as read, and what was decided. */
export interface Entry {
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

/** A call's policies and the keys they live under, as each operation works on them. */
export interface CallState {
  readonly access: StateAccess;
  readonly call: StoreCall;
  readonly now: number;
  readonly entries: Entry[];
  readonly stateKey: (spec: PolicySpec) => string;
  readonly penaltyKey: (spec: PolicySpec) => string;
  readonly writePenalty: (
    entry: Pick<Entry, 'spec' | 'rate' | 'rule'>,
    state: PenaltyState,
  ) => void;
}

/** The call's policies read: each one's twin, rate, penalty rule and penalty. */
export function callState(access: StateAccess, call: StoreCall, now: number): CallState {
  const stateKey = (spec: PolicySpec) =>
    `${call.key}:${spec.name}:${ALGORITHM_CODES[spec.algorithm]}`;
  const penaltyKey = (spec: PolicySpec) => `${call.key}:${spec.name}:p`;
  const entries: Entry[] = call.specs.map((spec) => ({
    spec,
    twin: TWINS[spec.algorithm],
    rate: rateParams(spec),
    rule: penaltyParams(spec),
    penalty: access.get<PenaltyState>(penaltyKey(spec)) ?? penalty.NO_PENALTY,
    reason: 'ok',
    started: false,
  }));
  return {
    access,
    call,
    now,
    entries,
    stateKey,
    penaltyKey,
    writePenalty: (entry, state) =>
      access.set(
        penaltyKey(entry.spec),
        state,
        penalty.penaltyTtl(state, now, entry.rate.period, entry.rule?.forgetAfter ?? 0),
      ),
  };
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
