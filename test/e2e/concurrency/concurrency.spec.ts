import { afterAll, describe, expect, inject, it } from 'vitest';
import { ManualClock, SluiceEngine } from '@sluice/nest/internals';
import { RedisStore } from '@sluice/nest/engine';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { concurrencyApp } from './app.module.js';

afterAll(closeAll);

const STORES = [
  { name: 'Redis', connect: () => connectRedis(inject('redisUrl')) },
  { name: 'a Redis Cluster', connect: () => connectCluster() },
];

/** How soon an aborted request's slot must be free again, ms (issue: within 1 s). */
const RELEASE_BUDGET_MS = 1_000;

describe.each(ADAPTERS)('concurrency limits on %s', (adapter) => {
  const startApp = closeAppsAfterEach();

  it.each(STORES)(
    'hold a slot while a request runs and free it when it ends, on $name',
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency') }),
      );
      const key = `key-${Math.random()}`;
      const ask = (ms: number, signal?: AbortSignal) =>
        fetch(`${url}/export?ms=${ms}`, { headers: { 'x-api-key': key }, signal });
      const slow = [ask(1_500), ask(1_500)];
      // Both are admitted and running once a third is refused.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const third = await ask(0);
      expect(third.status).toBe(429);
      // Slots free when requests end, which no clock predicts: a second at most.
      expect(Number(third.headers.get('retry-after'))).toBe(1);
      // Another key has slots of its own.
      const other = await fetch(`${url}/export?ms=0`, { headers: { 'x-api-key': `${key}-b` } });
      expect(other.status).toBe(200);
      const finished = await Promise.all(slow);
      expect(finished.map((response) => response.status)).toEqual([200, 200]);
      await Promise.all(finished.map((response) => response.text()));
      // Both slots are free again: two at once pass.
      const again = await Promise.all([ask(0), ask(0)]);
      expect(again.map((response) => response.status)).toEqual([200, 200]);
    },
  );

  it.each(STORES)('gives back every slot a request of cost 2 took, on $name', async (store) => {
    const { url } = await startApp(
      adapter,
      concurrencyApp({
        redis: store.connect(),
        prefix: uniquePrefix('concurrency-cost'),
        // Both of the key's slots per request.
        costOf: () => 2,
      }),
    );
    const key = `key-${Math.random()}`;
    const ask = () => fetch(`${url}/export?ms=0`, { headers: { 'x-api-key': key } });
    const first = await ask();
    expect(first.status).toBe(200);
    await first.text();
    // Released after the answer: both slots are free within the budget, not one of them.
    const finishedAt = Date.now();
    let status = 0;
    while (Date.now() - finishedAt < RELEASE_BUDGET_MS + 500) {
      const next = await ask();
      await next.text();
      status = next.status;
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toBe(200);
    expect(Date.now() - finishedAt).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
  });

  it.each(STORES)(
    `frees an aborted request's slot within ${RELEASE_BUDGET_MS} ms, on $name`,
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency-abort') }),
      );
      const key = `key-${Math.random()}`;
      const ask = (ms: number, signal?: AbortSignal) =>
        fetch(`${url}/export?ms=${ms}`, { headers: { 'x-api-key': key }, signal });
      const clients = [new AbortController(), new AbortController()];
      const hung = clients.map((client) => ask(3_000, client.signal).catch(() => 'aborted'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await ask(0)).status).toBe(429);
      const abortedAt = Date.now();
      for (const client of clients) client.abort();
      expect(await Promise.all(hung)).toEqual(['aborted', 'aborted']);
      // Both slots come back although the handlers still run for seconds.
      let status = 0;
      while (Date.now() - abortedAt < RELEASE_BUDGET_MS + 500) {
        const responses = await Promise.all([ask(0), ask(0)]);
        status = responses.every((response) => response.status === 200) ? 200 : 429;
        if (status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(status).toBe(200);
      expect(Date.now() - abortedAt).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );
});

describe('a crashed instance', () => {
  it.each(STORES)(
    'leaves leases that lapse at their expiry, for the other instances, on $name',
    async (store) => {
      const clock = new ManualClock(1_800_000_000_000_000);
      const prefix = uniquePrefix('concurrency-crash');
      const policies = [{ name: 'jobs', algorithm: 'concurrency', limit: 2, periodMs: 30_000 }];
      const instance = () =>
        new SluiceEngine({
          store: new RedisStore(store.connect(), { clock: clock.now }),
          prefix,
          policies,
          clock: clock.now,
        });
      const dead = instance();
      const alive = instance();
      // The first instance takes both slots, then dies without releasing them.
      expect((await dead.consume('jobs', 'acct')).allowed).toBe(true);
      expect((await dead.consume('jobs', 'acct')).allowed).toBe(true);
      const refused = await alive.consume('jobs', 'acct');
      expect(refused).toMatchObject({ allowed: false, remaining: 0 });
      clock.advance(29_999_000);
      expect((await alive.consume('jobs', 'acct')).allowed).toBe(false);
      clock.advance(1_000);
      // Lapsed: the other instance has both slots again.
      const first = await alive.consume('jobs', 'acct');
      const second = await alive.consume('jobs', 'acct');
      expect([first.allowed, second.allowed]).toEqual([true, true]);
      // Released by hand, a slot is free at once.
      await alive.release('jobs', 'acct', second.lease as string);
      expect((await alive.consume('jobs', 'acct')).allowed).toBe(true);
    },
  );
});
