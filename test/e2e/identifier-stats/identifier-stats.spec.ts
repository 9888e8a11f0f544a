import { MAX_IDENTIFIERS_PER_POLICY, RedisIdentifierStats } from '@sluice/nest/internals';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
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
});
