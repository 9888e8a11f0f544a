import { afterAll, describe, expect, it } from 'vitest';
import type { HeaderStyle } from '@sluice/nest';
import {
  ADAPTERS,
  closeAppsAfterEach,
  fetchTimes,
  header,
  RATE_HEADERS,
  rateHeadersOf,
  uniquePrefix,
} from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { headersApp } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

describe.each(ADAPTERS)('rate-limit headers on %s', (adapter) => {
  async function start(headers?: HeaderStyle, redis = true): Promise<string> {
    const app = await startApp(
      adapter,
      headersApp({
        ...(redis ? { redis: connectRedis() } : {}),
        prefix: uniquePrefix('headers'),
        ...(headers === undefined ? {} : { headers }),
      }),
    );
    return app.url;
  }

  it('sends the draft RateLimit-Policy and RateLimit headers by default', async () => {
    const url = await start();
    const responses = await fetchTimes(`${url}/reply`, 3);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(responses.map(header('ratelimit-policy'))).toEqual(Array(3).fill('"reply";q=3;w=60'));
    expect(responses.map(header('ratelimit'))).toEqual([
      '"reply";r=2;t=60',
      '"reply";r=1;t=60',
      '"reply";r=0;t=60',
    ]);
    expect(responses.map(header('x-ratelimit-limit'))).toEqual([null, null, null]);
  });

  it('reports in t the seconds until the quota is whole again', async () => {
    const url = await start();
    const responses = await fetchTimes(`${url}/bucket`, 3);
    expect(responses.map(header('ratelimit'))).toEqual([
      '"bucket";r=3;t=15',
      '"bucket";r=2;t=30',
      '"bucket";r=1;t=45',
    ]);
  });

  it('refuses with a 429 JSON body and a Retry-After matching retryAfterMs', async () => {
    const url = await start();
    await fetchTimes(`${url}/reply`, 3);
    const refused = await fetch(`${url}/reply`);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: expect.any(String) as string,
      policy: 'reply',
      retryAfterMs: expect.any(Number) as number,
    });
    const retryAfterMs = body.retryAfterMs as number;
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(refused.headers.get('retry-after')).toBe(String(Math.ceil(retryAfterMs / 1000)));
    expect(refused.headers.get('ratelimit')).toBe(
      `"reply";r=0;t=${Math.ceil(retryAfterMs / 1000)}`,
    );
  });

  it("sends only X-RateLimit-Limit/Remaining/Reset with headers: 'legacy'", async () => {
    const url = await start('legacy');
    const responses = await fetchTimes(`${url}/reply`, 2);
    expect(responses.map(header('x-ratelimit-limit'))).toEqual(['3', '3']);
    expect(responses.map(header('x-ratelimit-remaining'))).toEqual(['2', '1']);
    expect(responses.map(header('x-ratelimit-reset'))).toEqual(['60', '60']);
    expect(responses.map(header('ratelimit-policy'))).toEqual([null, null]);
    expect(responses.map(header('ratelimit'))).toEqual([null, null]);
  });

  it("sends the draft and the legacy headers with headers: 'both'", async () => {
    const url = await start('both');
    const [response] = (await fetchTimes(`${url}/bucket`, 1)) as [Response];
    expect(rateHeadersOf(response)).toEqual(RATE_HEADERS);
    expect(response.headers.get('ratelimit')).toBe('"bucket";r=3;t=15');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('3');
    expect(response.headers.get('x-ratelimit-reset')).toBe('15');
  });

  it('sends no rate-limit headers with headers: false, yet a refusal still says when to retry', async () => {
    const url = await start(false);
    const responses = await fetchTimes(`${url}/reply`, 4);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(responses.map(rateHeadersOf)).toEqual([[], [], [], []]);
    expect(responses.map(header('retry-after'))).toEqual([null, null, null, '60']);
  });

  it('sends the same headers from the in-memory store', async () => {
    const url = await start(undefined, false);
    const responses = await fetchTimes(`${url}/reply`, 4);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(responses.map(header('ratelimit'))).toEqual([
      '"reply";r=2;t=60',
      '"reply";r=1;t=60',
      '"reply";r=0;t=60',
      '"reply";r=0;t=60',
    ]);
    expect(responses[3]?.headers.get('retry-after')).toBe('60');
  });
});
