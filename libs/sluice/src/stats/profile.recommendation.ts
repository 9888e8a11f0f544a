import type { AlgorithmName } from '../algorithms/algorithm.types.js';
import type { ProfileIdentifier, ProfileSummary } from './profile.summary.js';

/** What a limit would have refused over a profile's windows. */
export interface ProfileRefusals {
  /** Identifier-windows that made more requests than the limit. */
  identifierWindows: number;
  /** Their share of every identifier-window, 0 to 1. */
  identifierWindowShare: number;
  /** Requests beyond the limit in those windows. */
  requests: number;
  /** Their share of every request, 0 to 1. */
  requestShare: number;
}

/** A limit proposed from a profile: never applied by itself (docs/operations.md). */
export interface ProfileRecommendation {
  /** The percentile of identifier-windows it starts from, as a fraction (0.99). */
  percentile: number;
  /** The room added above it, as a fraction (0.2: 20 % more). */
  headroom: number;
  /** Requests one identifier made in one window at that percentile. */
  base: number;
  /** The limit proposed: base × (1 + headroom), rounded up. */
  limit: number;
  /** What it would have refused over the profile's windows. */
  refused: ProfileRefusals;
  /** What the limit in force would have refused, the same way. */
  refusedNow: ProfileRefusals;
  /** The busiest identifiers it would have refused, with the most each made in one window. */
  identifiers: ProfileIdentifier[];
  /**
   * True for fixed-window, whose windows are the profile's: a limit refuses exactly the requests
   * beyond it in each (up to the buckets' width above 31). The other algorithms refuse at least
   * as much: a sliding window or a bucket's burst also refuses within a window.
   */
  exact: boolean;
}

/**
 * A limit for `percentile` with `headroom`, read from the profile's histogram, and what it and
 * `currentLimit` would have refused. Within a bucket, counts are taken as evenly spread.
 */
export function recommendLimit(
  summary: ProfileSummary,
  algorithm: AlgorithmName,
  currentLimit: number,
  percentile: number,
  headroom: number,
): ProfileRecommendation {
  const base = percentileOf(summary, percentile);
  const limit = Math.max(1, Math.ceil(base * (1 + headroom) - 1e-9));
  return {
    percentile,
    headroom,
    base,
    limit,
    refused: refusalsOf(summary, limit),
    refusedNow: refusalsOf(summary, currentLimit),
    identifiers: summary.busiest.filter((each) => each.most > limit),
    exact: algorithm === 'fixed-window',
  };
}

/** Nearest rank over the histogram: the largest count of the bucket the rank falls in. */
function percentileOf(summary: ProfileSummary, fraction: number): number {
  const total = summary.identifierWindows;
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(fraction * total));
  let running = 0;
  for (const bucket of summary.histogram) {
    running += bucket.identifierWindows;
    if (running >= rank) return Math.min(bucket.to, summary.max);
  }
  return summary.max;
}

function refusalsOf(summary: ProfileSummary, limit: number): ProfileRefusals {
  let identifierWindows = 0;
  let requests = 0;
  for (const { from, to: top, identifierWindows: weight } of summary.histogram) {
    // No count passes the largest seen: the last bucket ends there.
    const to = Math.min(top, Math.max(from, summary.max));
    const width = to - from + 1;
    if (to <= limit) continue;
    // Counts limit+1 … to of the bucket's width, each refusing count − limit.
    const low = Math.max(from, limit + 1);
    const over = to - low + 1;
    identifierWindows += (weight * over) / width;
    requests += (weight * over * (low + to - 2 * limit)) / 2 / width;
  }
  const total = summary.identifierWindows;
  return {
    identifierWindows: Math.round(identifierWindows),
    identifierWindowShare: total === 0 ? 0 : identifierWindows / total,
    requests: Math.round(requests),
    requestShare: summary.requests === 0 ? 0 : requests / summary.requests,
  };
}
