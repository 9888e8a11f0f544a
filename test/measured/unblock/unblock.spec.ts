// A block lifted through one instance is forgotten by every instance that had it cached, within a
// second (docs/guide.md, the block cache), on a single Redis and on a Redis Cluster.
import { SluiceService } from '@sluice/nest';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAppsAfterEach, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { unblockApp } from './app.module.js';

afterAll(closeAll);

const WITHIN_MS = 1_000;
const GIVE_UP_MS = 5_000;

const topologies: Array<[string, () => Redis | Cluster]> = [
  ['a single Redis', () => connectRedis()],
  ['a Redis Cluster', () => connectCluster()],
];

const loginAs = (app: RunningApp, user: string) =>
  fetch(`${app.url}/login`, { headers: { 'x-user': user } });

async function messageOf(response: Response): Promise<string> {
  return response.status === 429
    ? String(((await response.json()) as { message: string }).message)
    : '';
}

describe.each(topologies)('lifting a block on %s', (_, connect) => {
  const start = closeAppsAfterEach();

  it(`lets the identifier in on the two other instances, which had it cached, within ${WITHIN_MS} ms`, async () => {
    const prefix = uniquePrefix('unblock');
    const [a, b, c] = [
      await start('express', unblockApp({ redis: connect(), prefix })),
      await start('fastify', unblockApp({ redis: connect(), prefix })),
      await start('express', unblockApp({ redis: connect(), prefix })),
    ];
    // The fourth request is refused and sets off the block, which B caches.
    const statuses: number[] = [];
    for (let n = 0; n < 4; n++) statuses.push((await loginAs(b, 'harry')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // C meets the block in Redis, and caches it too.
    const onC = await loginAs(c, 'harry');
    expect([onC.status, await messageOf(onC)]).toEqual([429, expect.stringMatching(/^Blocked/)]);
    // His counters are reset, so that once the block is lifted nothing else refuses him; the
    // block itself, in Redis and in B's and C's caches, still does.
    await a.app.get(SluiceService).reset('login', 'harry');
    for (const cached of [b, c]) {
      const answer = await loginAs(cached, 'harry');
      expect([answer.status, await messageOf(answer)]).toEqual([
        429,
        expect.stringMatching(/^Blocked/),
      ]);
    }

    expect(await a.app.get(SluiceService).unblock('login', 'harry')).toBe(true);
    const liftedAt = performance.now();
    const admittedAfter = async (app: RunningApp): Promise<number> => {
      while (performance.now() - liftedAt < GIVE_UP_MS) {
        if ((await loginAs(app, 'harry')).status === 200) return performance.now() - liftedAt;
      }
      throw new Error(`${app.url} still refused harry ${GIVE_UP_MS} ms after the lifting`);
    };
    const waited = await Promise.all([admittedAfter(b), admittedAfter(c)]);
    expect(Math.max(...waited), 'ms until both admitted harry').toBeLessThanOrEqual(WITHIN_MS);
  });
});
