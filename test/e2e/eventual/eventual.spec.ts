import { afterAll, describe, expect, it } from 'vitest';
import { SluiceService } from '@sluice/nest/internals';
import { SluiceConnection } from '@sluice/nest/src/connection/sluice.connection.js';
import {
  ADAPTERS,
  closeAppsAfterEach,
  fetchTimes,
  header,
  uniquePrefix,
} from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { LIMIT, eventualApp } from './app.module.js';

/** Where fetch connects from: the requests are counted under this address. */
const CLIENT_IP = '127.0.0.1';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

describe.each(ADAPTERS)('consistency eventual on %s', (adapter) => {
  /** Two instances of one app on one Redis: what each decided, and how. */
  async function twoInstances() {
    const prefix = uniquePrefix('eventual');
    const start = () => startApp(adapter, eventualApp({ redis: connectRedis(), prefix }));
    const apps = [await start(), await start()];
    return apps.map(({ app, url }) => {
      const eventual = app.get(SluiceConnection).eventual!;
      return { url, eventual, sluice: app.get(SluiceService) };
    });
  }

  it('decides locally after two Redis calls, and the instances share the limit once they sync', async () => {
    const [first, second] = await twoInstances();
    const statuses = (await fetchTimes(`${first!.url}/feed`, LIMIT + 2)).map((r) => r.status);
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(200), 429, 429]);
    // The first request is only seen; the second, back within the interval, teaches the view.
    expect(first!.eventual.counts).toMatchObject({ exact: 2, local: LIMIT });

    await first!.eventual.flush();
    // The other instance's first two requests ask Redis, which holds all five.
    const refused = await fetchTimes(`${second!.url}/feed`, 3);
    expect(refused.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(refused.map(header('retry-after')).every((value) => Number(value) > 0)).toBe(true);
    expect(second!.eventual.counts).toMatchObject({ exact: 2, local: 1 });
    expect(await second!.sluice.peek('feed', CLIENT_IP, { keyKind: 'ip' })).toMatchObject({
      allowed: false,
      remaining: 0,
    });
  });

  it('starts a penalty in Redis, and the block reaches the other instance with its sync', async () => {
    const [first, second] = await twoInstances();
    const warm = await fetchTimes(`${second!.url}/login`, 2);
    expect(warm.map((r) => r.status)).toEqual([200, 200]);
    const statuses = (await fetchTimes(`${first!.url}/login`, LIMIT)).map((r) => r.status);
    expect(statuses).toEqual([...Array<number>(LIMIT - 2).fill(200), 429, 429]);
    // Two requests teach the view, the refusal went to Redis (a violation is Redis's to count);
    // the next was the block cache's.
    expect(first!.eventual.counts.exact).toBe(3);

    // The other instance's view predates the block: it admits, and syncs that unit...
    expect((await fetchTimes(`${second!.url}/login`, 1))[0]!.status).toBe(200);
    await second!.eventual.flush();
    // ...whose answer carries the block, so it refuses without asking Redis.
    const blocked = await fetchTimes(`${second!.url}/login`, 1);
    expect(blocked[0]!.status).toBe(429);
    expect(second!.eventual.counts).toMatchObject({ exact: 2, local: 2 });
  });
});
