import { Inject, Injectable } from '@nestjs/common';
import {
  candidateStatsName,
  DECISION_STATS,
  RESOLUTION_MS,
  epochMs,
  sampledStatsName,
  tierStatsName,
  PolicyRegistry,
  SLUICE_CLOCK,
  type Clock,
  type DecisionStatsStore,
  type StatsResolution,
} from '@sluice/nest/internals';
import type { StatsPoint, StatsSeries } from '../common/admin-api.types.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';
import type { StatsQuery } from './stats-query.schema.js';

const DEFAULT_SECONDS = 60;
const CATCH_UP_SECONDS = 60;

/**
 * How long after a second has ended it is read: instances send their counts 50 ms past each
 * second, so by then every live instance's share has arrived.
 */
export const SETTLE_MS = 500;

/** The per-second (or per-minute) decision counts every instance sends, summed per policy. */
@Injectable()
export class StatsService {
  constructor(
    @Inject(DECISION_STATS) private readonly stats: DecisionStatsStore,
    @Inject(PolicyRegistry) private readonly policies: PolicyRegistry,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  series(query: StatsQuery, now = epochMs(this.clock)): Promise<StatsSeries> {
    const { seconds, minutes, hours, policy } = query;
    const resolution: StatsResolution =
      hours !== undefined ? 'hour' : minutes !== undefined ? 'minute' : 'second';
    const count = hours ?? minutes ?? seconds ?? DEFAULT_SECONDS;
    const names =
      policy === undefined ? this.policiesInForce() : this.withCandidate([this.known(policy)]);
    // The current second is still being counted, so a series ends with the last settled one.
    const lastAt = resolution === 'second' ? now - SETTLE_MS - RESOLUTION_MS.second : now;
    return this.read(names, resolution, lastAt, count).then((points) => ({ resolution, points }));
  }

  /**
   * For the live stream: the seconds settled since the one starting at `afterAt` (epoch ms),
   * oldest first, at most a minute of them; only the latest settled one when `afterAt` is null.
   */
  settledSince(afterAt: number | null, now = epochMs(this.clock)): Promise<StatsPoint[]> {
    const lastAt = now - SETTLE_MS - RESOLUTION_MS.second;
    const last = Math.floor(lastAt / RESOLUTION_MS.second) * RESOLUTION_MS.second;
    const count =
      afterAt === null ? 1 : Math.min(CATCH_UP_SECONDS, (last - afterAt) / RESOLUTION_MS.second);
    if (count <= 0) return Promise.resolve([]);
    return this.read(this.policiesInForce(), 'second', lastAt, count);
  }

  private async read(
    names: string[],
    resolution: StatsResolution,
    lastAt: number,
    count: number,
  ): Promise<StatsPoint[]> {
    let perPolicy;
    try {
      perPolicy = await Promise.all(
        names.map((name) => this.stats.read(name, resolution, lastAt, count)),
      );
    } catch (error) {
      throw new RedisUnavailableException('the decision counts cannot be read', error);
    }
    const step = RESOLUTION_MS[resolution];
    const last = Math.floor(lastAt / step) * step;
    return Array.from({ length: count }, (_, index) => {
      const at = last - (count - 1 - index) * step;
      const policies: StatsPoint['policies'] = {};
      for (const series of perPolicy) {
        const entry = series[index];
        if (entry !== undefined && Object.values(entry.counts).some((value) => value > 0)) {
          policies[entry.policy] = entry.counts;
        }
      }
      return { at: new Date(at).toISOString(), policies };
    });
  }

  /**
   * Each policy in force and, when it has a candidate, the candidate's counts (`<name>~c`) and
   * the live policy's on the same sampled requests (`<name>~s`) beside it; when it has tiers,
   * each tier's (`<name>~t:<tier>`).
   */
  private policiesInForce(): string[] {
    return this.withCandidate(this.policies.all().map((policy) => policy.name));
  }

  private withCandidate(names: string[]): string[] {
    return names.flatMap((name) => {
      const policy = this.policies.get(name);
      const tiers = Object.keys(policy?.tiers ?? {}).map((tier) => tierStatsName(name, tier));
      return policy?.candidate
        ? [name, sampledStatsName(name), candidateStatsName(name), ...tiers]
        : [name, ...tiers];
    });
  }

  private known(name: string): string {
    if (this.policies.get(name) !== undefined) return name;
    throw new InvalidRequestException([
      { field: 'policy', message: `no policy named "${name}" is in force` },
    ]);
  }
}
