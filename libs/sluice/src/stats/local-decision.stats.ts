import { systemClock, type Clock } from '../clock/clock.js';
import {
  COUNT_NAMES,
  noCounts,
  RESOLUTION_MS,
  STATS_RESOLUTIONS,
  STATS_RETENTION_MS,
  type DecisionCounts,
  type DecisionStatsStore,
  type PolicyCounts,
  type StatsResolution,
} from './decision-stats.store.js';

interface Bucket {
  at: number;
  counts: DecisionCounts;
}

/** Without Redis, the counts live in this process, kept as long as Redis would keep them. */
export class LocalDecisionStats implements DecisionStatsStore {
  /** Per resolution, `<policy>\u0000<start>` → counts, in the order they were first counted. */
  private readonly buckets: Record<StatsResolution, Map<string, Bucket>> = {
    second: new Map(),
    minute: new Map(),
    hour: new Map(),
  };

  /** `clock` tells what has expired; the module passes its SLUICE_CLOCK. */
  constructor(private readonly clock: Clock = systemClock) {}

  add(counts: readonly PolicyCounts[]): Promise<void> {
    for (const resolution of STATS_RESOLUTIONS) {
      const buckets = this.buckets[resolution];
      const step = RESOLUTION_MS[resolution];
      for (const entry of counts) {
        const at = Math.floor(entry.at / step) * step;
        const key = `${entry.policy}\u0000${at}`;
        let bucket = buckets.get(key);
        if (bucket === undefined) {
          bucket = { at, counts: noCounts() };
          buckets.set(key, bucket);
        }
        for (const name of COUNT_NAMES) bucket.counts[name] += entry.counts[name];
      }
      // Buckets arrive in time order, so the expired ones are at the front.
      const oldestKept = this.clock() / 1_000 - STATS_RETENTION_MS[resolution];
      for (const [key, bucket] of buckets) {
        if (bucket.at >= oldestKept) break;
        buckets.delete(key);
      }
    }
    return Promise.resolve();
  }

  read(
    policy: string,
    resolution: StatsResolution,
    lastAt: number,
    points: number,
  ): Promise<PolicyCounts[]> {
    const step = RESOLUTION_MS[resolution];
    const last = Math.floor(lastAt / step) * step;
    return Promise.resolve(
      Array.from({ length: points }, (_, index) => {
        const at = last - (points - 1 - index) * step;
        const bucket = this.buckets[resolution].get(`${policy}\u0000${at}`);
        return { policy, at, counts: bucket === undefined ? noCounts() : { ...bucket.counts } };
      }),
    );
  }
}
