import type { Cluster, Redis } from 'ioredis';
import {
  COUNT_NAMES,
  noCounts,
  RESOLUTION_MS,
  STATS_RESOLUTIONS,
  STATS_RETENTION_MS,
  type DecisionStatsStore,
  type PolicyCounts,
  type StatsResolution,
} from './decision-stats.store.js';

/**
 * A hash per policy and second, `<prefix>:{stats:<policy>}:s:<epoch ms>`, per minute
 * (`…:m:<epoch ms>`) and per hour (`…:h:<epoch ms>`), fields named as the counts; a policy's keys share a hash tag, so a Cluster
 * keeps them on one master and one pipeline per policy serves both writing and reading.
 */
export class RedisDecisionStats implements DecisionStatsStore {
  constructor(
    private readonly client: Redis | Cluster,
    private readonly prefix: string,
    /** Where reads go: a connection with a longer timeout (SluiceConnection.readRedis). */
    private readonly reader: () => Redis | Cluster = () => client,
  ) {}

  async add(counts: readonly PolicyCounts[]): Promise<void> {
    const byPolicy = new Map<string, PolicyCounts[]>();
    for (const entry of counts) {
      const list = byPolicy.get(entry.policy) ?? [];
      list.push(entry);
      byPolicy.set(entry.policy, list);
    }
    await Promise.all([...byPolicy].map(([policy, list]) => this.addTo(policy, list)));
  }

  private async addTo(policy: string, list: readonly PolicyCounts[]): Promise<void> {
    const pipeline = this.client.pipeline();
    for (const entry of list) {
      for (const resolution of STATS_RESOLUTIONS) {
        const key = this.key(policy, resolution, entry.at);
        for (const name of COUNT_NAMES) {
          if (entry.counts[name] > 0) pipeline.hincrby(key, name, entry.counts[name]);
        }
        pipeline.pexpire(key, STATS_RETENTION_MS[resolution]);
      }
    }
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0] as Error;
  }

  async read(
    policy: string,
    resolution: StatsResolution,
    lastAt: number,
    points: number,
  ): Promise<PolicyCounts[]> {
    const step = RESOLUTION_MS[resolution];
    const last = Math.floor(lastAt / step) * step;
    const starts = Array.from({ length: points }, (_, index) => last - (points - 1 - index) * step);
    const pipeline = this.reader().pipeline();
    for (const at of starts) pipeline.hgetall(this.key(policy, resolution, at));
    const replies = (await pipeline.exec()) ?? [];
    return starts.map((at, index) => {
      const [error, hash] = replies[index] ?? [null, {}];
      if (error !== null) throw error;
      const counts = noCounts();
      for (const name of COUNT_NAMES) {
        counts[name] = Number((hash as Record<string, string>)[name] ?? 0);
      }
      return { policy, at, counts };
    });
  }

  private key(policy: string, resolution: StatsResolution, at: number): string {
    const step = RESOLUTION_MS[resolution];
    const start = Math.floor(at / step) * step;
    return `${this.prefix}:{stats:${policy}}:${resolution[0]}:${start}`;
  }
}
