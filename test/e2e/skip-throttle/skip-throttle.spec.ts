import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS, closeAppsAfterEach, fetchTimes, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { skipThrottleApp } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

interface Seen {
  status: number;
  rateLimit: string | null;
  retryAfter: string | null;
}

/** GETs `url` `times` times in a row: what each response said about rate limits. */
async function getTimes(url: string, times: number): Promise<Seen[]> {
  return (await fetchTimes(url, times)).map((response) => ({
    status: response.status,
    rateLimit: response.headers.get('ratelimit'),
    retryAfter: response.headers.get('retry-after'),
  }));
}

const passedUnlimited: Seen = { status: 200, rateLimit: null, retryAfter: null };

describe.each(ADAPTERS)('@SkipThrottle on %s', (adapter) => {
  async function start(): Promise<string> {
    const app = await startApp(
      adapter,
      skipThrottleApp({ redis: connectRedis(), prefix: uniquePrefix('skip') }),
    );
    return app.url;
  }

  it('limits the methods of a throttled class that are not skipped', async () => {
    const url = await start();
    const seen = await getTimes(`${url}/throttled/limited`, 2);
    expect(seen.map((s) => s.status)).toEqual([200, 429]);
    expect(seen[0]?.rateLimit).toMatch(/^"one-a-minute";r=0;t=\d+$/);
  });

  it('lets a skipped method of a throttled class through, without rate headers', async () => {
    const url = await start();
    expect(await getTimes(`${url}/throttled/health`, 5)).toEqual(Array(5).fill(passedUnlimited));
    // Skipped requests were not counted against the class's policy either.
    expect((await getTimes(`${url}/throttled/limited`, 1))[0]?.status).toBe(200);
  });

  it('lets every method of a skipped class through, even one naming a policy', async () => {
    const url = await start();
    expect(await getTimes(`${url}/open/skipped`, 5)).toEqual(Array(5).fill(passedUnlimited));
  });

  it('limits a method that re-enables throttling with @SkipThrottle(false)', async () => {
    const url = await start();
    const seen = await getTimes(`${url}/open/re-enabled`, 2);
    expect(seen.map((s) => s.status)).toEqual([200, 429]);
    expect(seen[1]?.rateLimit).toMatch(/^"one-a-minute";r=0;t=\d+$/);
    expect(seen[1]?.retryAfter).toMatch(/^\d+$/);
  });
});
