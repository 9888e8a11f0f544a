import type { DecisionOutcome } from './decision-outcome.js';

/** The counts kept per policy and second (docs/architecture.md, live counters); a block met in the cache counts as blocked. */
export interface DecisionCounts {
  /** Admitted without delay. */
  allowed: number;
  /** Refused over the limit. */
  rejected: number;
  /** Refused by a block, in Redis or in the instance's cache. */
  blocked: number;
  /** Admitted after a wait (leaky-bucket). */
  delayed: number;
  /** A shadow policy would have refused. */
  shadowRejected: number;
  /** Decided without Redis, which failed. */
  storeError: number;
}

export const COUNT_OF_OUTCOME: Record<DecisionOutcome, keyof DecisionCounts> = {
  allowed: 'allowed',
  delayed: 'delayed',
  rejected: 'rejected',
  blocked: 'blocked',
  cache_block: 'blocked',
  shadow_rejected: 'shadowRejected',
  store_error: 'storeError',
};

export const COUNT_NAMES = [
  'allowed',
  'rejected',
  'blocked',
  'delayed',
  'shadowRejected',
  'storeError',
] as const satisfies readonly (keyof DecisionCounts)[];

export function noCounts(): DecisionCounts {
  return { allowed: 0, rejected: 0, blocked: 0, delayed: 0, shadowRejected: 0, storeError: 0 };
}

/** One policy's decisions in one second (or minute), starting at `at` (epoch ms). */
export interface PolicyCounts {
  /** The policy. */
  policy: string;
  /** The start of the second or minute, epoch ms. */
  at: number;
  /** Its decisions then. */
  counts: DecisionCounts;
}

/** How much time a point of decision stats covers. */
export type StatsResolution = 'second' | 'minute' | 'hour';

/** Every resolution an instance adds its counts at, finest first. */
export const STATS_RESOLUTIONS: readonly StatsResolution[] = ['second', 'minute', 'hour'];

/**
 * How long each resolution is kept: per-second data 15 minutes, minute roll-ups 6 hours (the
 * API reads at most 3 of them), hour
 * roll-ups 7 days. A window is read at the coarsest of them that still charts it, so what one
 * request reads stays bounded however long the window (docs/operations.md, live counters).
 */
export const STATS_RETENTION_MS: Record<StatsResolution, number> = {
  second: 15 * 60_000,
  minute: 6 * 3_600_000,
  hour: 7 * 86_400_000,
};

/** Each resolution's length, ms. */
export const RESOLUTION_MS: Record<StatsResolution, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
};

/**
 * Where instances add their per-second decision counts (Redis hashes, or this process without
 * Redis) and the admin reads them back, summed over every instance.
 */
export interface DecisionStatsStore {
  /** Adds each entry to its second and to that second's minute. */
  add(counts: readonly PolicyCounts[]): Promise<void>;
  /** The policy's counts for the `points` seconds or minutes up to and including `lastAt`. */
  read(
    policy: string,
    resolution: StatsResolution,
    lastAt: number,
    points: number,
  ): Promise<PolicyCounts[]>;
}
