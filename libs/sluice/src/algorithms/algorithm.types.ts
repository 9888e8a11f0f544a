import { ALGORITHM_TRAITS } from './algorithm.traits.js';

/**
 * The algorithms, each a Lua function beside its TypeScript twin (docs/algorithms.md): six that
 * count a rate, and `concurrency`, which counts requests in flight.
 */
export const ALGORITHMS = [
  'fixed-window',
  'sliding-log',
  'sliding-window',
  'token-bucket',
  'leaky-bucket',
  'gcra',
  'concurrency',
] as const;

/** One of {@link ALGORITHMS}. */
export type AlgorithmName = (typeof ALGORITHMS)[number];

/** The algorithms that count requests in a window (a limit per period, no burst). */
export function isWindowAlgorithm(algorithm: AlgorithmName): boolean {
  return ALGORITHM_TRAITS[algorithm].window;
}

/**
 * The algorithms with a bucket's capacity (`burst`) apart from their limit: the others admit at
 * most `limit` units at once.
 */
export function hasBurst(algorithm: AlgorithmName): boolean {
  return ALGORITHM_TRAITS[algorithm].burst;
}

/**
 * Each algorithm's short name on the wire and in its state key, `…:<policy>:<code>`: a policy
 * whose algorithm changes starts from a fresh state instead of misreading the old one.
 */
export const ALGORITHM_CODES: Record<AlgorithmName, string> = {
  'fixed-window': 'fw',
  'sliding-log': 'sl',
  'sliding-window': 'sw',
  'token-bucket': 'tb',
  'leaky-bucket': 'lb',
  gcra: 'gc',
  concurrency: 'cc',
};

/** A policy's rate in integer microseconds, as both twins compute it from the same spec. */
/** A policy's rate as written (ms, optional burst and segments): what rateParams reads. */
export interface RateSpec {
  limit: number;
  periodMs: number;
  burst?: number | null;
  segments?: number | null;
  maxDelayMs: number | null;
  /** A calendar fixed-window's boundaries, epoch ms (clock/calendar.ts); absent: periodMs. */
  calendar?: { start: number; end: number; next: number } | undefined;
}

export interface RateParams {
  limit: number;
  /** Window length or refill period, µs. */
  period: number;
  /** Capacity of token-bucket, leaky-bucket and gcra. */
  burst: number;
  /** µs per unit: ceil(period / limit), so no more than limit leave per period. */
  interval: number;
  segments: number;
  /** µs per sliding-window segment: period / segments. */
  segment: number;
  /** leaky-bucket: the longest a request may be held before it leaves, µs; default (burst - 1) × interval. */
  maxDelay: number;
  /**
   * A calendar fixed-window's boundaries, µs: the period the caller's clock is in, its end
   * (`finish`: `end` is a word of Lua's), and the next period's end. The store's own clock picks [start, end) or [end, next).
   */
  calendar?: { start: number; finish: number; next: number };
}

/** What one algorithm says of one request. All durations in µs. */
export interface Verdict<State> {
  allowed: boolean;
  remaining: number;
  /** Until the state is fresh again (window end, bucket full, queue drained). */
  reset: number;
  /** Until a request of this cost could be admitted; 0 when allowed. */
  retry: number;
  /** leaky-bucket: how long to hold an admitted request. */
  delay: number;
  /** The state to store when the request is charged. */
  state?: State;
  /** The stored state's time to live: when it will equal a fresh key's. */
  ttl: number;
  /** fixed-window: the credits granted for the window decided in, already in `remaining`. */
  granted?: number;
}
