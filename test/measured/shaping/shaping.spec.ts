import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { HandlerEntries, LIMIT, PERIOD_MS, shapingApp, SLOW_QUEUE } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

const INTERVAL_MS = PERIOD_MS / LIMIT;

/** `count` GETs sent at once: each response's status and Retry-After. */
async function burst(url: string, count: number): Promise<Array<[number, string | null]>> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const response = await fetch(url);
      await response.arrayBuffer();
      return [response.status, response.headers.get('retry-after')] as [number, string | null];
    }),
  );
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

describe.each(ADAPTERS)('leaky-bucket shaping on %s', (adapter) => {
  async function start(): Promise<{ url: string; entries: number[] }> {
    const options = { redis: connectRedis(), prefix: uniquePrefix('shaping') };
    const app = await startApp(adapter, shapingApp(options));
    return { url: `${app.url}/upload`, entries: app.app.get(HandlerEntries).times };
  }

  it(`lets ${LIMIT} simultaneous requests reach the handler ${INTERVAL_MS} ms apart`, async () => {
    const { url, entries } = await start();
    const answers = await burst(url, LIMIT);
    expect(answers.map(([status]) => status)).toEqual(Array(LIMIT).fill(200));
    const times = entries.toSorted((a, b) => a - b);
    const gaps = times.slice(1).map((time, i) => time - (times[i] as number));
    expect(median(gaps)).toBeGreaterThanOrEqual(INTERVAL_MS - 35);
    expect(median(gaps)).toBeLessThanOrEqual(INTERVAL_MS + 35);
    const span = (times.at(-1) as number) - (times[0] as number);
    // Timers and a busy machine add jitter to each entry, not to the schedule they keep.
    expect(span).toBeGreaterThanOrEqual((LIMIT - 1) * INTERVAL_MS - 150);
    expect(span).toBeLessThanOrEqual((LIMIT - 1) * INTERVAL_MS + 150);
  });

  it('refuses with 429 the requests that would wait longer than maxDelayMs', async () => {
    const { url, entries } = await start();
    const archive = url.replace(/upload$/, 'archive');
    const { limit, periodMs, maxDelayMs } = SLOW_QUEUE;
    const burstSize = 7;
    const answers = await burst(archive, burstSize);
    // Waits of 0, 500 and 1000 ms fit within maxDelayMs; the rest would wait longer.
    const fits = (maxDelayMs * limit) / periodMs + 1;
    const refused = answers.filter(([status]) => status === 429);
    expect(answers.length - refused.length).toBe(fits);
    expect(refused).toEqual(Array(burstSize - fits).fill([429, '1']));
    expect(entries).toHaveLength(fits);
  });
});
