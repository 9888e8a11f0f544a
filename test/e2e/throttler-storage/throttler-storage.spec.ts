// SluiceThrottlerStorage: @nestjs/throttler's guard deciding in Sluice's engine on a real Redis.
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, SluiceEngine } from '@sluice/nest/internals';
import { RedisStore } from '@sluice/nest/engine';
import { SluiceThrottlerStorage } from '@sluice/nest/src/throttler/sluice-throttler.storage.js';
import { header, startApp, type RunningApp } from '../../support/nest-app.js';
import { closeAll, connectRedis, filePrefixes } from '../../support/redis.clients.js';
import { throttlerApp } from './throttler-app.js';

/** The start of a minute, so every window in these tests starts with the test. */
const MINUTE_START = 1_700_000_040_000_000;
const SECOND = 1_000_000;

const prefixes = filePrefixes('throttler');
const apps: RunningApp[] = [];
let redis: Redis;
let clock: ManualClock;

beforeEach(() => {
  redis = connectRedis();
  clock = new ManualClock(MINUTE_START);
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await prefixes.removeAll(redis);
  await closeAll();
});

/** An engine with its own Redis connection, deciding at the test's clock. */
function engineOn(prefix: string): SluiceEngine {
  return new SluiceEngine({ store: new RedisStore(connectRedis(), { clock: clock.now }), prefix });
}

async function start(engine: SluiceEngine, wiring?: 'instance' | 'provider'): Promise<string> {
  const app = await startApp('express', throttlerApp(engine, wiring));
  apps.push(app);
  return app.url;
}

/** GETs one after the other; each body is read so its connection is free again. */
async function get(urls: string[]): Promise<Response[]> {
  const responses: Response[] = [];
  for (const url of urls) {
    const response = await fetch(url);
    await response.text();
    responses.push(response);
  }
  return responses;
}

describe('SluiceThrottlerStorage behind ThrottlerGuard', () => {
  it('admits 3 requests a minute; the 4th gets 429 with Retry-After', async () => {
    const url = await start(engineOn(prefixes.next()));
    const responses = await get(Array<string>(4).fill(`${url}/hello`));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(responses.map(header('x-ratelimit-remaining'))).toEqual(['2', '1', '0', null]);
    expect(responses[0]?.headers.get('x-ratelimit-reset')).toBe('60');
    // blockDuration defaults to ttl; the guard sends the record's seconds as they are.
    expect(responses[3]?.headers.get('retry-after')).toBe('60');
  });

  it('shares one count between two app instances on one Redis', async () => {
    const prefix = prefixes.next();
    const first = await start(engineOn(prefix), 'instance');
    const second = await start(engineOn(prefix), 'provider');
    const urls = [first, first, second, second].map((url) => `${url}/hello`);
    expect((await get(urls)).map((r) => r.status)).toEqual([200, 200, 200, 429]);
  });

  it('leaves routes under @SkipThrottle() alone', async () => {
    const url = await start(engineOn(prefixes.next()));
    const skipped = await get(Array<string>(5).fill(`${url}/health`));
    expect(skipped.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(skipped[0]?.headers.get('x-ratelimit-remaining')).toBeNull();
    const [counted] = await get([`${url}/hello`]);
    expect(counted?.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('keeps a caller out for a blockDuration longer than ttl', async () => {
    const url = await start(engineOn(prefixes.next()));
    const strict = `${url}/strict`; // limit 1, ttl 1 s, blockDuration 10 s
    const [admitted, refused] = await get([strict, strict]);
    expect([admitted?.status, refused?.status]).toEqual([200, 429]);
    expect(refused?.headers.get('retry-after')).toBe('10');
    clock.advance(5 * SECOND); // five windows later
    const [stillOut] = await get([strict]);
    expect(stillOut?.status).toBe(429);
    expect(stillOut?.headers.get('retry-after')).toBe('5');
    clock.advance(5 * SECOND);
    expect((await get([strict]))[0]?.status).toBe(200);
  });
});

describe('SluiceThrottlerStorage.increment', () => {
  const storage = () => new SluiceThrottlerStorage(engineOn(prefixes.next()));

  it('blocks for a blockDuration shorter than ttl, then counts afresh, as the throttler does', async () => {
    const store = storage();
    const hit = () => store.increment('caller', 60_000, 2, 5_000, 'short');
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect(await hit()).toMatchObject({ totalHits: 2, isBlocked: false });
    expect(await hit()).toMatchObject({ totalHits: 3, isBlocked: true, timeToBlockExpire: 5 });
    clock.advance(4 * SECOND);
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });
    clock.advance(SECOND);
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('with blockDuration 0 refuses over the limit until the window ends, without a block', async () => {
    const store = storage();
    const hit = () => store.increment('caller', 10_000, 1, 0, 'no-block');
    await hit();
    clock.advance(4 * SECOND);
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 6 });
    clock.advance(6 * SECOND);
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('counts each throttler name apart, whatever characters it holds', async () => {
    const store = storage();
    const blocked = async (name: string) =>
      (await store.increment('caller', 60_000, 1, 60_000, name)).isBlocked;
    expect(await blocked('api v2/{orders}')).toBe(false);
    expect(await blocked('api v2/{orders}')).toBe(true);
    expect(await blocked('api v2/{orders} ')).toBe(false);
  });

  it.each([
    ['ttl 0', [0, 1, 1], /^ttl: must be an integer from 1 to 31536000000, got 0$/],
    ['ttl NaN', [Number.NaN, 1, 1], /^ttl: .* got NaN$/],
    ['limit 2.5', [1_000, 2.5, 1], /^limit: must be an integer from 1 to 100000, got 2.5$/],
    ['limit over 100000', [60_000, 100_001, 1], /^limit: .* from 1 to 100000, got 100001$/],
    ['limit over ttl × 1000', [1, 1_001, 1], /^limit: .* from 1 to 1000, got 1001$/],
    ['blockDuration -1', [1_000, 1, -1], /^blockDuration: .* from 0 to 31536000000, got -1$/],
  ] as const)('refuses %s with a RangeError naming the argument', async (_, args, message) => {
    const [ttl, limit, blockDuration] = args;
    const refusal = storage().increment('caller', ttl, limit, blockDuration, 't');
    await expect(refusal).rejects.toThrow(RangeError);
    await expect(refusal).rejects.toThrow(message);
  });
});
