import type { DecisionCounts, InstanceList, StatsPoint } from '@sluice/admin/api';
import { RESOLUTION_SECONDS, type Resolution } from './time-range';

/** How many of the newest seconds the live rate is averaged over: "now", without one second's noise. */
export const LIVE_RATE_SECONDS = 10;

export interface HeadlineFigures {
  /** Policy decisions per second: a request two policies decide counts twice. */
  perSecond: number;
  /** Refused by a limit or a block, of all decisions; null when there were none. */
  refusedShare: number | null;
  /** Admitted after a shaping delay, of all decisions; null when there were none. */
  delayedShare: number | null;
}

const total = (counts: DecisionCounts): number =>
  counts.allowed +
  counts.rejected +
  counts.blocked +
  counts.delayed +
  counts.shadowRejected +
  counts.storeError;

/**
 * The headline over the points shown (`policy`: that policy's only): live, the newest
 * LIVE_RATE_SECONDS of them; otherwise all of them.
 */
export function headlineFigures(
  points: readonly StatsPoint[],
  resolution: Resolution,
  live: boolean,
  policy?: string,
): HeadlineFigures {
  const read = live ? points.slice(-LIVE_RATE_SECONDS) : points;
  let decisions = 0;
  let refused = 0;
  let delayed = 0;
  for (const point of read) {
    // Over every policy, each policy's own series: a candidate's, a sample's or a tier's counts
    // decisions already counted under the policy.
    const parts =
      policy === undefined
        ? Object.entries(point.policies)
            .filter(([name]) => !name.includes('~'))
            .map(([, counts]) => counts)
        : [point.policies[policy]];
    for (const counts of parts) {
      if (counts === undefined) continue;
      decisions += total(counts);
      refused += counts.rejected + counts.blocked;
      delayed += counts.delayed;
    }
  }
  const seconds = read.length * RESOLUTION_SECONDS[resolution];
  return {
    perSecond: seconds === 0 ? 0 : decisions / seconds,
    refusedShare: decisions === 0 ? null : refused / decisions,
    delayedShare: decisions === 0 ? null : delayed / decisions,
  };
}

/** Fresh instances enforcing the version Redis holds: what "on the current version" means. */
export function instancesOnVersion(list: InstanceList): number {
  return list.instances.filter((instance) => instance.upToDate && !instance.stale).length;
}

/** "2 of 3 instances on version 7". */
export function versionSummary(list: InstanceList): string {
  const version = list.version === null ? 'no published version' : `version ${list.version}`;
  return `${instancesOnVersion(list)} of ${list.instances.length} instances on ${version}`;
}
