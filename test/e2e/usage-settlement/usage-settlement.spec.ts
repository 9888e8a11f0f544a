import { once } from 'node:events';
import { connect } from 'node:net';
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

/**
 * Reads a streamed answer until `lines` chunks have arrived, then leaves, closing its connection;
 * says how many came, or minus the status of an answer that is not 200.
 */
async function readThenLeave(url: string, key: string, lines: number): Promise<number> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(`GET /stream HTTP/1.1\r\nHost: ${hostname}\r\nx-api-key: ${key}\r\n\r\n`);
  let text = '';
  const deadline = Date.now() + 10_000;
  try {
    while (Date.now() < deadline) {
      const [chunk] = (await once(socket, 'data')) as [Buffer];
      text += chunk.toString();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      if (status !== undefined && status !== '200') return -Number(status);
      const received = text.match(/token \n/g)?.length ?? 0;
      if (status === '200' && text.includes('\r\n\r\n') && received >= lines) return received;
    }
    throw new Error(`no ${lines} chunks within 10 s: ${text.slice(0, 200)}`);
  } finally {
    socket.destroy();
  }
}

/** The stream policy's units used, once no settlement has moved it for 300 ms. */
async function settledStreamUsage(app: INestApplication, key: string): Promise<number> {
  const sluice = app.get(SluiceService);
  const read = async () =>
    (await sluice.quota('stream-tokens', key, { keyKind: 'header:x-api-key' })).used;
  let last = await read();
  for (let tries = 0; tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

describe.each(ADAPTERS)('a streamed answer its client leaves, on %s', (adapter) => {
  const startApp = closeAppsAfterEach();

  it.each(STORES)(
    'is charged what it reported up to when its client left, on $name',
    async (store) => {
      const { app, url } = await startApp(
        adapter,
        usageApp({ redis: store.connect(), prefix: uniquePrefix('usage-stream') }),
      );
      const key = `key-${Math.random()}`;
      // 12 of 40 chunks read: at least 1 200 units were reported before the client left.
      const received = await readThenLeave(url, key, 12);
      expect(received).toBeGreaterThanOrEqual(12);
      const used = await settledStreamUsage(app, key);
      expect(used).toBeGreaterThanOrEqual(received * 100);
      // The stream stopped when its client left: far from its 4 000.
      expect(used).toBeLessThan(4_000);
    },
  );

  it.each(STORES)(
    'keeps the debt bound with 20 clients leaving at once: each charged what it took, on $name',
    async (store) => {
      const { app, url } = await startApp(
        adapter,
        usageApp({ redis: store.connect(), prefix: uniquePrefix('usage-stream-many') }),
      );
      const key = `key-${Math.random()}`;
      // 20 reserve 100 each: all fit the limit of 2 000, then each reads 5 to 24 chunks.
      const received = await Promise.all(
        Array.from({ length: 20 }, (_, n) => readThenLeave(url, key, 5 + n)),
      );
      expect(received.every((lines) => lines >= 5)).toBe(true);
      const taken = received.reduce((total, lines) => total + lines * 100, 0);
      const used = await settledStreamUsage(app, key);
      // Charged at least what the clients received; at most the documented bound,
      // L + k × (maxCost − cost) with k = 20 in flight.
      expect(used).toBeGreaterThanOrEqual(taken);
      expect(used).toBeLessThanOrEqual(2_000 + 20 * (4_000 - 100));
      // The plan is spent: the next answer is refused.
      expect(await readThenLeave(url, key, 1)).toBe(-429);
    },
  );
});
