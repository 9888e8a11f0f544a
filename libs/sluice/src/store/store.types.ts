import type { CalendarPeriod } from '../clock/calendar.js';
import type { Policy } from '../policy/policy.types.js';

/**
 * `grant` adds credits to a quota's current period (`amount`; 0 only reads it), `settle` charges
 * `amount` units after the response (negative: gives them back), past the limit if need be;
 * `release` ends a concurrency policy's lease. `sync` charges an instance's locally admitted units (each spec's cost) as far as the state has
 * room, never as a violation, and answers with the state after it: how eventual consistency
 * (store/eventual.store.ts) hands its hits to Redis and learns the global count back.
 */
export type Operation =
  | 'consume'
  | 'peek'
  | 'refund'
  | 'reset'
  | 'block'
  | 'unblock'
  | 'forget'
  | 'sync'
  | 'grant'
  | 'settle'
  | 'release';

/** A penalty rule in milliseconds, as a validated policy states it. */
export type PenaltyRule = NonNullable<Policy['penalty']>;

/**
 * What a store needs of one policy for one call: the policy with its override's limit, the
 * request's cost, and 'off' already settled by the engine.
 */
export interface PolicySpec extends Pick<
  Policy,
  | 'name'
  | 'algorithm'
  | 'limit'
  | 'periodMs'
  | 'burst'
  | 'segments'
  | 'maxDelayMs'
  | 'cost'
  | 'penalty'
> {
  /** 'candidate': a proposed revision decided beside its policy, never refusing the request. */
  mode: 'enforce' | 'shadow' | 'candidate';
  /**
   * Set for a policy of `consistency: 'eventual'`: how often, ms, an instance sends the hits it
   * admitted on its own. Absent: every call is decided in Redis.
   */
  syncMs?: number;
  /** The tier whose rate the spec carries, when one applied; the store does not read it. */
  tier?: string;
  /**
   * A calendar policy's boundaries around the caller's clock, epoch ms (clock/calendar.ts):
   * the store's clock decides which of the two periods a request falls in.
   */
  calendar?: CalendarPeriod;
}

/** One operation on one identifier's key, for one or more policies (docs/architecture.md). */
export interface StoreCall {
  /** What to do. */
  op: Operation;
  /** `<prefix>:{<keyKind>:<identifier>}`: every key of the call shares its hash tag. */
  key: string;
  /** The policies, in the order their outcomes come back. */
  specs: PolicySpec[];
  /** block: how long, ms. */
  durationMs?: number;
  /**
   * consume and release: the request's lease, which a concurrency policy holds a slot under until
   * it is released (docs/algorithms.md, "Concurrency"). Letters, digits, `.` and `-`.
   */
  lease?: string;
  /** grant: credits to add (negative: to take away), 0 reads the quota; settle: units to charge. */
  amount?: number;
  /**
   * grant: a mark (letters and digits, at most 64) the grant is made under at most once; a call
   * with a mark already used changes nothing. With `undo`, takes back the grant made under the
   * mark, or keeps it from being made if it arrives later (docs/algorithms.md, "Credits").
   */
  once?: string;
  /** grant with `once`: take the marked grant of `amount` back instead. */
  undo?: boolean;
}

/** A store's reasons: the decision's, less those settled outside the store. */
export type OutcomeReason = 'ok' | 'limit' | 'blocked' | 'shadow';

/**
 * One policy's answer. Durations in µs; blockedUntil is a time, µs (0: not blocked). For
 * unblock, blockedUntil is when the lifted block would have ended (0: there was none).
 */
export interface PolicyOutcome {
  /** Whether this policy admits the request. */
  allowed: boolean;
  /** Why. */
  reason: OutcomeReason;
  /** Units left. */
  remaining: number;
  /** µs until the count is whole again. */
  reset: number;
  /** µs until a refused request may succeed; 0 when admitted. */
  retry: number;
  /** µs the request is held (leaky-bucket), else 0. */
  delay: number;
  /** When the identifier's block ends, µs since the epoch; 0: not blocked. */
  blockedUntil: number;
  /** How many blocks the identifier has earned under this policy's penalty. */
  offence: number;
  /** This call started the block. */
  blockStarted: boolean;
  /**
   * A quota's (fixed-window's) credits for the period decided in, already in `remaining`; 0 or
   * absent elsewhere (a store written before credits leaves it out).
   */
  granted?: number;
  /** grant and settle: the units counted in the current period, and the credits granted for it. */
  quota?: { used: number; granted: number };
}

/** A store's answer to one call. */
export interface StoreResult {
  /** Every enforced policy admitted the request, so every one of them was charged. */
  admitted: boolean;
  /** One per spec, in the call's order. */
  outcomes: PolicyOutcome[];
}

/** Where decisions are made: Redis, an eventual view over it, or memory. */
export interface SluiceStore {
  /** Decides one call atomically. */
  run(call: StoreCall): Promise<StoreResult>;
  /**
   * Optional: decides the call as `run` does, but answers at once, without a promise, when it
   * needs no I/O (eventual mode's local decisions); otherwise it returns `run`'s promise. The
   * engine calls it instead of `run` where a store has it, so such a request waits on nothing.
   */
  start?(call: StoreCall): StoreResult | Promise<StoreResult>;
  /**
   * Optional: `run`, telling `watcher` how the call ended just before its promise settles. A
   * circuit breaker in front of such a store learns each call's end without a promise of its own
   * per call.
   */
  runWatched?(call: StoreCall, watcher: CallWatcher): Promise<StoreResult>;
}

/** Told how a store call ended: succeeded, or failed (its promise rejects). */
export interface CallWatcher {
  /** The call's promise is about to resolve with its result. */
  succeeded(): void;
  /** The call's promise is about to reject: the store failed it. */
  failed(): void;
}
