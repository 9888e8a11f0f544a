import type { AlgorithmName } from './algorithm.types.js';

/**
 * What an algorithm takes beyond a limit and a period, and what it can do: the one place that
 * says so, read by the policy schema, the engine, the simulator and the admin instead of
 * comparing algorithm names (docs/algorithms.md, "Traits").
 */
export interface AlgorithmTraits {
  /** Counts requests in a window: a limit per period, no burst. */
  readonly window: boolean;
  /** Has a bucket's capacity (`burst`) apart from its limit. */
  readonly burst: boolean;
  /** Takes `segments` (the sliding window's sub-windows). */
  readonly segments: boolean;
  /** Shapes: may delay a request up to `maxDelayMs` instead of refusing it. */
  readonly shapes: boolean;
  /** Takes a `calendar` period, `usage` settled after the response and granted credits. */
  readonly quota: boolean;
  /** Holds a slot while its request runs, under a lease the request gives back. */
  readonly holdsSlots: boolean;
  /** May decide in `consistency: 'eventual'` mode. */
  readonly eventual: boolean;
  /** May count only failures (`count: 'failures'`). */
  readonly countsFailures: boolean;
  /** The most `limit` may be (the log keeps one entry per unit); absent: no bound of its own. */
  readonly maxLimit?: number;
}

/** The most entries a sliding log keeps: the bound of its `limit` in every unit. */
export const MAX_SLIDING_LOG_LIMIT = 100_000;

const RATE = { segments: false, shapes: false, quota: false, holdsSlots: false } as const;
const FREE = { eventual: true, countsFailures: true } as const;

/** Each algorithm's traits. */
export const ALGORITHM_TRAITS: Readonly<Record<AlgorithmName, AlgorithmTraits>> = {
  'fixed-window': { ...RATE, ...FREE, window: true, burst: false, quota: true },
  'sliding-log': { ...RATE, ...FREE, window: true, burst: false, maxLimit: MAX_SLIDING_LOG_LIMIT },
  'sliding-window': { ...RATE, ...FREE, window: true, burst: false, segments: true },
  'token-bucket': { ...RATE, ...FREE, window: false, burst: true },
  'leaky-bucket': {
    ...RATE,
    window: false,
    burst: true,
    shapes: true,
    eventual: false,
    countsFailures: true,
  },
  gcra: { ...RATE, ...FREE, window: false, burst: true },
  concurrency: {
    ...RATE,
    window: false,
    burst: false,
    holdsSlots: true,
    eventual: false,
    countsFailures: false,
  },
};

/** What a name no release of this library knows can do: nothing beyond a limit and a period. */
const UNKNOWN: AlgorithmTraits = {
  window: false,
  burst: false,
  segments: false,
  shapes: false,
  quota: false,
  holdsSlots: false,
  eventual: false,
  countsFailures: false,
};

/**
 * The traits of `algorithm`. A name this release does not know (a panel reading a newer server,
 * say) has none, rather than failing the caller.
 */
export function traitsOf(algorithm: AlgorithmName): AlgorithmTraits {
  return Object.hasOwn(ALGORITHM_TRAITS, algorithm) ? ALGORITHM_TRAITS[algorithm] : UNKNOWN;
}
