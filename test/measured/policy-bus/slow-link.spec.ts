import { PolicyBus } from '@sluice/nest/internals';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, inject, it } from 'vitest';
import { startFaultProxy } from '../../support/fault-proxy.js';
import { closeAppsAfterEach, fetchTimes, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { busApp } from './app.module.js';

afterAll(closeAll);
const start = closeAppsAfterEach();

/** Polls `probe` every 20 ms until it holds, failing after `withinMs`. */
async function eventually(probe: () => boolean, withinMs: number) {
  const deadline = Date.now() + withinMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await sleep(20);
  }
}

it.each([
  ['before its subscription is confirmed', 0],
  ['once subscribed', 500],
])(
  'keeps hearing notices after its connection dies %s and renewing it is slower than the command timeout',
  async (_, waitMs) => {
    const redisUrl = inject('redisUrl');
    const { port } = new URL(redisUrl);
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: Number(port) } });
    try {
      const prefix = uniquePrefix('bus-slow');
      // A URL, so Sluice builds the client: 100 ms command timeout, which its duplicates inherit.
      const app = await start('express', busApp({ redis: proxy.url(redisUrl), prefix }));
      const bus = app.app.get(PolicyBus);

      await sleep(waitMs);
      await proxy.mode('reset');
      await sleep(100);
      // Every reconnection's replies, the re-sent SUBSCRIBE's among them, now take 300 ms.
      await proxy.mode({ delayMs: 300 });
      await sleep(2_000);
      await proxy.mode('pass');
      await sleep(500);

      // Stored and announced, as the admin does; only the subscription can bring it within 1 s.
      const writer = connectRedis();
      const reply = { name: 'reply', algorithm: 'fixed-window', limit: 1, periodMs: 3_600_000 };
      await writer.hset(`${prefix}:policies`, {
        '@version': '3',
        '@enforcement': 'on',
        reply: JSON.stringify({ ...reply, source: 'admin', version: 3 }),
      });
      await writer.publish(`${prefix}:policies`, JSON.stringify({ version: 3, name: 'reply' }));
      await eventually(() => bus.version === 3, 1_000);
      expect((await fetchTimes(`${app.url}/reply`, 2)).map((r) => r.status)).toEqual([200, 429]);
    } finally {
      await proxy.stop();
    }
  },
);

it('reads a snapshot again within a second when the read after a notice timed out, not at the next poll', async () => {
  const redisUrl = inject('redisUrl');
  const { port } = new URL(redisUrl);
  const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: Number(port) } });
  try {
    const prefix = uniquePrefix('bus-slow-read');
    const app = await start(
      'express',
      busApp({ redis: proxy.url(redisUrl), prefix, syncIntervalMs: 60_000 }),
    );
    const bus = app.app.get(PolicyBus);
    expect(bus.lastError).toBeNull();

    // The notice still arrives, late; the read it triggers waits 2 × 250 ms for a 100 ms timeout.
    await proxy.mode({ delayMs: 250 });
    const writer = connectRedis();
    const reply = { name: 'reply', algorithm: 'fixed-window', limit: 1, periodMs: 3_600_000 };
    await writer.hset(`${prefix}:policies`, {
      '@version': '4',
      '@enforcement': 'on',
      reply: JSON.stringify({ ...reply, source: 'admin', version: 4 }),
    });
    await writer.publish(`${prefix}:policies`, JSON.stringify({ version: 4, name: 'reply' }));
    await eventually(() => bus.lastError?.includes('read the policy snapshot') === true, 2_000);
    expect(bus.version).toBe(0);

    await proxy.mode('pass');
    await eventually(() => bus.version === 4, 1_500);
    expect(bus.lastError).toBeNull();
    expect((await fetchTimes(`${app.url}/reply`, 2)).map((r) => r.status)).toEqual([200, 429]);
  } finally {
    await proxy.stop();
  }
});
