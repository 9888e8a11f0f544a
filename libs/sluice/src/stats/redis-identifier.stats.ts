import type { Cluster, Redis } from 'ioredis';
import {
  busiestFirst,
  IDENTIFIER_STATS_TTL_MS,
  MAX_IDENTIFIERS_PER_POLICY,
  memberOf,
  parseMember,
  type IdentifierCount,
  type IdentifierStatsStore,
} from './identifier-stats.store.js';

/**
 * Three sorted sets per policy, `<prefix>:{ids:<policy>}:passed|rejected|seen`, sharing a hash
 * tag so a Cluster keeps a policy's sets on one master: counts as scores, and the last request's
 * time in `seen`, which decides who is kept when a policy has seen too many identifiers.
 */
export class RedisIdentifierStats implements IdentifierStatsStore {
  constructor(
    private readonly client: Redis | Cluster,
    private readonly prefix: string,
    /** Where reads go: a connection with a longer timeout (SluiceConnection.readRedis). */
    private readonly reader: () => Redis | Cluster = () => client,
  ) {}

  /** One pipeline per policy: a policy's sets share a slot, different policies may not. */
  async add(counts: readonly IdentifierCount[]): Promise<void> {
    const byPolicy = new Map<string, IdentifierCount[]>();
    for (const count of counts) {
      const list = byPolicy.get(count.policy) ?? [];
      list.push(count);
      byPolicy.set(count.policy, list);
    }
    await Promise.all([...byPolicy].map(([policy, list]) => this.addTo(policy, list)));
  }

  private async addTo(policy: string, list: readonly IdentifierCount[]): Promise<void> {
    const keys = this.keys(policy);
    const pipeline = this.client.pipeline();
    for (const count of list) {
      const member = memberOf(count);
      if (count.passed > 0) pipeline.zincrby(keys.passed, count.passed, member);
      if (count.rejected > 0) pipeline.zincrby(keys.rejected, count.rejected, member);
      pipeline.zadd(keys.seen, 'GT', count.lastSeen, member);
    }
    // Beyond the cap, the identifiers seen longest ago are forgotten from all three sets.
    for (const key of [keys.seen, keys.passed, keys.rejected]) {
      pipeline.zremrangebyrank(key, 0, -(MAX_IDENTIFIERS_PER_POLICY + 1));
      pipeline.pexpire(key, IDENTIFIER_STATS_TTL_MS);
    }
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0] as Error;
  }

  async read(policy: string): Promise<IdentifierCount[]> {
    const keys = this.keys(policy);
    const [seen, passed, rejected] = await Promise.all(
      [keys.seen, keys.passed, keys.rejected].map((key) =>
        this.reader().zrange(key, 0, -1, 'WITHSCORES'),
      ),
    );
    const scores = (flat: string[] = []) => {
      const map = new Map<string, number>();
      for (let at = 0; at + 1 < flat.length; at += 2) map.set(flat[at]!, Number(flat[at + 1]));
      return map;
    };
    const passes = scores(passed);
    const rejections = scores(rejected);
    const counts: IdentifierCount[] = [];
    for (const [member, lastSeen] of scores(seen)) {
      const parsed = parseMember(member);
      if (parsed === null) continue;
      counts.push({
        policy,
        ...parsed,
        passed: passes.get(member) ?? 0,
        rejected: rejections.get(member) ?? 0,
        lastSeen,
      });
    }
    return counts.sort(busiestFirst);
  }

  private keys(policy: string) {
    const base = `${this.prefix}:{ids:${policy}}`;
    return { passed: `${base}:passed`, rejected: `${base}:rejected`, seen: `${base}:seen` };
  }
}
