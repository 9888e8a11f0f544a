import { seededRandom } from './seeded-random.fixture.js';

/**
 * A known traffic for the traffic profile's tests (docs/algorithms.md, "Traffic profiles"): 1 000
 * identifiers, each making a number of requests per window drawn from a stated distribution, so
 * the true percentiles are known exactly.
 *
 * - 900 ordinary identifiers: 1 to 20 requests a window, uniform;
 * - 90 busy ones: 20 to 120, uniform;
 * - 10 abusive ones: 600 to 1 000, uniform.
 *
 * Every identifier comes in every window. Draws come from a seeded generator, so a run repeats.
 */
export interface KnownTraffic {
  /** identifiers[i] is the i-th identifier's name. */
  identifiers: string[];
  /** counts[w][i]: requests of identifier i in window w. */
  counts: number[][];
}

export const ORDINARY = 900;
export const BUSY = 90;
export const ABUSIVE = 10;

export function knownTraffic(windows: number, seed = 1): KnownTraffic {
  const random = seededRandom(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const identifiers = Array.from({ length: ORDINARY + BUSY + ABUSIVE }, (_, at) =>
    at < ORDINARY
      ? `10.1.${at >> 8}.${at & 255}`
      : at < ORDINARY + BUSY
        ? `busy-${at}`
        : `abuser-${at}`,
  );
  const counts = Array.from({ length: windows }, () =>
    identifiers.map((_, at) =>
      at < ORDINARY ? between(1, 20) : at < ORDINARY + BUSY ? between(20, 120) : between(600, 1000),
    ),
  );
  return { identifiers, counts };
}

/** The exact percentile (nearest rank) of every identifier-window count. */
export function truePercentile(traffic: KnownTraffic, fraction: number): number {
  const all = traffic.counts.flat().sort((a, b) => a - b);
  return all[Math.max(0, Math.ceil(fraction * all.length) - 1)] as number;
}
