import type { INestApplication } from '@nestjs/common';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { SluiceService } from '@sluice/nest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { usageApp } from './app.module.js';

afterAll(closeAll);

const STORES = [
  { name: 'Redis', connect: () => connectRedis(inject('redisUrl')) },
  { name: 'a Redis Cluster', connect: () => connectCluster() },
];

/** The quota's units used, once the settlements after the responses have landed. */
async function usedOnceSettled(app: INestApplication, key: string, expected: number) {
  const sluice = app.get(SluiceService);
  let used = -1;
  for (let tries = 0; tries < 50 && used !== expected; tries++) {
    used = (await sluice.quota('tokens-monthly', key, { keyKind: 'header:x-api-key' })).used;
    if (used !== expected) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return used;
}

describe.each(ADAPTERS)('charges settled after the response on %s', (adapter) => {
  const startApp = closeAppsAfterEach();

  it.each(STORES)(
    'charge what the answer used, capped, refunding failures, on $name',
    async (store) => {
      const { app, url } = await startApp(
        adapter,
        usageApp({ redis: store.connect(), prefix: uniquePrefix('usage') }),
      );
      const key = `key-${Math.random()}`;
      const post = (path: string, body: object) =>
        fetch(`${url}/${path}`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      // 10 reserved at admission, 250 charged once the header is known.
      expect((await post('complete', { tokens: 250 })).status).toBe(200);
      expect(await usedOnceSettled(app, key, 250)).toBe(250);
      // A failed answer gives its reservation back.
      expect((await post('complete', { fail: true })).status).toBe(400);
      expect(await usedOnceSettled(app, key, 250)).toBe(250);
      // Reported by the handler: no header needed.
      expect((await post('reported', { tokens: 40 })).status).toBe(200);
      expect(await usedOnceSettled(app, key, 290)).toBe(290);
      // Read by the module's usageOf from the response.
      expect((await post('metered', { tokens: 60 })).status).toBe(200);
      expect(await usedOnceSettled(app, key, 350)).toBe(350);
      // An answer past maxCost is charged maxCost: 600, not 5 000.
      expect((await post('complete', { tokens: 5_000 })).status).toBe(200);
      expect(await usedOnceSettled(app, key, 950)).toBe(950);
      // 50 left: admitted (10 reserved), then 300 more goes past the limit by at most one answer.
      expect((await post('complete', { tokens: 300 })).status).toBe(200);
      expect(await usedOnceSettled(app, key, 1_250)).toBe(1_250);
      const refused = await post('complete', { tokens: 1 });
      expect(refused.status).toBe(429);
      expect(await usedOnceSettled(app, key, 1_250)).toBe(1_250);
    },
  );
});
