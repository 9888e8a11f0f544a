import { type IdentifierCount } from '@sluice/nest/internals';
import { MAX_IDENTIFIERS_PER_POLICY } from '@sluice/nest/src/stats/identifier-stats.store.js';
import { RedisIdentifierStats } from '@sluice/nest/src/stats/redis-identifier.stats.js';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalIdentifierStats } from '@sluice/nest/src/stats/local-identifier.stats.js';
import { uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';

afterAll(closeAll);

const topologies: Array<[string, () => Redis | Cluster]> = [
  ['a single Redis', () => connectRedis()],
  ['a Redis Cluster', () => connectCluster()],
];

describe.each(topologies)('identifier counts on %s', (_, connect) => {
  it('adds up what several flushes send for several policies, busiest in rejections first', async () => {
    const stats = new RedisIdentifierStats(connect(), uniquePrefix('ids'));
    const at = Date.now();
    const count = (policy: string, identifier: string, passed: number, rejected: number) => ({
      policy,
      keyKind: 'user',
      identifier,
      passed,
      rejected,
      lastSeen: at,
    });
    await stats.add([count('reply', 'harry', 2, 0), count('login', 'ron', 0, 3)]);
    await stats.add([count('reply', 'harry', 1, 4), count('reply', 'hermione', 5, 0)]);

    const replies = await stats.read('reply');
    expect(
      replies.map(({ identifier, passed, rejected }) => [identifier, passed, rejected]),
    ).toEqual([
      ['harry', 3, 4],
      ['hermione', 5, 0],
    ]);
    expect(replies[0]).toMatchObject({ policy: 'reply', keyKind: 'user', lastSeen: at });
    expect((await stats.read('login')).map((each) => each.rejected)).toEqual([3]);
    expect(await stats.read('search')).toEqual([]);
  });

  it(`keeps the ${MAX_IDENTIFIERS_PER_POLICY} identifiers seen last per policy`, async () => {
    const stats = new RedisIdentifierStats(connect(), uniquePrefix('ids-cap'));
    const counts = Array.from({ length: MAX_IDENTIFIERS_PER_POLICY + 5 }, (_, i) => ({
      policy: 'reply',
      keyKind: 'ip',
      identifier: `10.0.${Math.floor(i / 256)}.${i % 256}`,
      passed: 1,
      rejected: 0,
      lastSeen: 1_000_000 + i,
    }));
    await stats.add(counts);
    const kept = await stats.read('reply');
    expect(kept).toHaveLength(MAX_IDENTIFIERS_PER_POLICY);
    expect(kept.some((each) => each.identifier === counts[0]!.identifier)).toBe(false);
    expect(kept.some((each) => each.identifier === counts.at(-1)!.identifier)).toBe(true);
  });

  it('reads the busiest and the matching ones as the in-memory store does, ties included', async () => {
    const stats = new RedisIdentifierStats(connect(), uniquePrefix('ids-top'));
    const local = new LocalIdentifierStats();
    const at = Date.now();
    // 3 000 identifiers: a few refused, many with equal passes, so the top ends in a tie.
    const counts: IdentifierCount[] = Array.from({ length: 3_000 }, (_, i) => ({
      policy: 'reply',
      keyKind: 'user',
      identifier: `user-${i}${i % 7 === 0 ? '-[*?]' : ''}`,
      passed: i < 40 ? 100 + i : i % 3 === 0 ? 7 : 1,
      rejected: i % 500 === 0 ? 1 + (i % 3) : 0,
      lastSeen: at - i,
    }));
    await stats.add(counts);
    await local.add(counts);
    for (const options of [
      { limit: 5 },
      { limit: 50 },
      { limit: 200 },
      { q: '-[*?]', limit: 20 },
    ]) {
      const shown = (list: IdentifierCount[]) => list.map((each) => each.identifier);
      expect(shown(await stats.read('reply', options)), JSON.stringify(options)).toEqual(
        shown(await local.read('reply', options)),
      );
    }
    expect(await stats.read('reply', { q: 'nobody' })).toEqual([]);
    expect(await stats.read('reply', { limit: 10 }).then((list) => list[0]?.rejected)).toBe(3);
  });
});
