import type { Cluster, Redis } from 'ioredis';
import {
  busiestFirst,
  IDENTIFIER_STATS_TTL_MS,
  MAX_IDENTIFIERS_PER_POLICY,
  memberOf,
  parseMember,
  type IdentifierCount,
  type IdentifierReadOptions,
  type IdentifierStatsStore,
} from './identifier-stats.store.js';

/** Members read beyond a top that ends in a tie: ties past them are ordered by Redis, not by time. */
const TIES_READ = 1_000;

interface StatsKeys {
  passed: string;
  rejected: string;
  seen: string;
}

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

  /**
   * Reads only what the answer needs: for the busiest `limit`, the top of `rejected` (and of
   * `passed` when fewer were refused) with up to TIES_READ members tied with the last; for `q`, the
   * names of `seen` alone, filtered here. Then one ZMSCORE per set for those.
   */
  async read(policy: string, options: IdentifierReadOptions = {}): Promise<IdentifierCount[]> {
    const { limit, q } = options;
    const keys = this.keys(policy);
    const members =
      q !== undefined
        ? await this.matching(keys.seen, q)
        : limit === undefined
          ? await this.reader().zrange(keys.seen, 0, -1)
          : await this.busiest(keys, limit);
    const counts = await this.countsOf(policy, keys, members);
    const found = q === undefined ? counts : counts.filter((count) => count.identifier.includes(q));
    return found.sort(busiestFirst).slice(0, limit);
  }

  /** Every member that can be among the `limit` busiest, give or take ties beyond TIES_READ. */
  private async busiest(keys: StatsKeys, limit: number): Promise<string[]> {
    const rejected = await this.topWithTies(keys.rejected, limit);
    if (rejected.length >= limit) return rejected;
    const passed = await this.topWithTies(keys.passed, limit);
    return [...new Set([...rejected, ...passed])];
  }

  /** The `count` highest members of a set, and up to TIES_READ more tied with the last of them. */
  private async topWithTies(key: string, count: number): Promise<string[]> {
    const flat = await this.reader().zrevrange(key, 0, count - 1, 'WITHSCORES');
    const top = flat.filter((_, at) => at % 2 === 0);
    if (top.length < count) return top;
    const lowest = flat[flat.length - 1]!;
    const tied = await this.reader().zrangebyscore(key, lowest, lowest, 'LIMIT', 0, TIES_READ);
    return [...new Set([...top, ...tied])];
  }

  /**
   * The members of `seen` whose identifier holds `q`: the names alone, filtered here. (ZSCAN
   * MATCH measured costlier in Redis than one ZRANGE of the names; docs/operations.md.)
   */
  private async matching(key: string, q: string): Promise<string[]> {
    const members = await this.reader().zrange(key, 0, -1);
    return members.filter((member) => parseMember(member)?.identifier.includes(q) === true);
  }

  private async countsOf(
    policy: string,
    keys: StatsKeys,
    members: readonly string[],
  ): Promise<IdentifierCount[]> {
    if (members.length === 0) return [];
    const replies = await this.reader()
      .pipeline()
      .zmscore(keys.seen, ...members)
      .zmscore(keys.passed, ...members)
      .zmscore(keys.rejected, ...members)
      .exec();
    const failed = replies?.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0] as Error;
    const [seen, passed, rejected] = (replies ?? []).map(
      ([, scores]) => scores as (string | null)[],
    );
    const counts: IdentifierCount[] = [];
    members.forEach((member, at) => {
      const lastSeen = seen?.[at];
      const parsed = parseMember(member);
      // A member trimmed from `seen` has been forgotten, whatever the other sets still hold.
      if (lastSeen === null || lastSeen === undefined || parsed === null) return;
      counts.push({
        policy,
        ...parsed,
        passed: Number(passed?.[at] ?? 0),
        rejected: Number(rejected?.[at] ?? 0),
        lastSeen: Number(lastSeen),
      });
    });
    return counts;
  }

  private keys(policy: string): StatsKeys {
    const base = `${this.prefix}:{ids:${policy}}`;
    return { passed: `${base}:passed`, rejected: `${base}:rejected`, seen: `${base}:seen` };
  }
}
