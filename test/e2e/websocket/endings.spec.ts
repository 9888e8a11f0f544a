import { once } from 'node:events';
import { WsAdapter } from '@nestjs/platform-ws';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import type { WebSocket } from 'ws';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { WorkCounter } from '../../support/work.counter.js';
import { websocketApp } from './app.module.js';
import { connectChat } from './chat.client.js';

// How a WebSocket message's concurrency slot ends (docs/algorithms.md, "What a request holds"):
// held while its handler works, whether its client stays or leaves, and given back once when the
// handler ends, answering or throwing; on each adapter, on one Redis and on a Cluster.

const STORES = [
  { name: 'Redis', connect: () => connectRedis(inject('redisUrl')) },
  { name: 'a Redis Cluster', connect: () => connectCluster() },
];
/** How soon after a handler ends its slot is free again: one more store call. */
const RELEASE_BUDGET_MS = 1_000;

const sockets: WebSocket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});
afterAll(closeAll);

/** Asks for an export until one is admitted; how long after `since` that took. */
async function admittedAfter(url: string, client: string, since: number): Promise<number> {
  const asker = await connectChat(url, client, sockets);
  while (Date.now() - since < RELEASE_BUDGET_MS + 500) {
    const answer = await asker.send('export', { ms: 0 });
    if (answer.event === 'exported') return Date.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Infinity;
}

describe.each(ADAPTERS)('a WebSocket message under a concurrency limit, on %s', (adapter) => {
  const startApp = closeAppsAfterEach();

  async function start(store: (typeof STORES)[number]) {
    const options = { redis: store.connect(), prefix: uniquePrefix('ws-endings') };
    return startApp(adapter, websocketApp(options), (nest) =>
      nest.useWebSocketAdapter(new WsAdapter(nest)),
    );
  }

  it.each(STORES)(
    `holds the slot of a client gone while its handler works, frees it within ${RELEASE_BUDGET_MS} ms of the end, on $name`,
    async (store) => {
      const { app, url } = await start(store);
      const client = `client-${Math.random()}`;
      const leaving = await connectChat(url, client, sockets);
      leaving.socket.send(JSON.stringify({ event: 'export', data: { ms: 800 } }));
      await new Promise((resolve) => setTimeout(resolve, 150));
      leaving.socket.close();
      await once(leaving.socket, 'close');
      // The handler still works: its slot is still held, whoever asks next.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(app.get(WorkCounter).running).toBe(1);
      const next = await connectChat(url, client, sockets);
      expect(await next.send('export', { ms: 0 })).toMatchObject({
        event: 'exception',
        data: { statusCode: 429 },
      });
      const ended = await app.get(WorkCounter).finishedAt(1);
      expect(await admittedAfter(url, client, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    `frees the slot of a handler that throws within ${RELEASE_BUDGET_MS} ms of its end, on $name`,
    async (store) => {
      const { app, url } = await start(store);
      const client = `client-${Math.random()}`;
      const failing = await connectChat(url, client, sockets);
      const answer = failing.send('export-failing', { ms: 200 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const other = await connectChat(url, client, sockets);
      expect(await other.send('export', { ms: 0 })).toMatchObject({ event: 'exception' });
      expect(await answer).toMatchObject({
        event: 'exception',
        data: { message: 'the export failed' },
      });
      const ended = await app.get(WorkCounter).finishedAt(1);
      expect(await admittedAfter(url, client, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );
});
