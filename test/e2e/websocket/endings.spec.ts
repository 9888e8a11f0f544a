import { once } from 'node:events';
import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { ExportWork, websocketApp } from './app.module.js';

// How a WebSocket message's concurrency slot ends (docs/algorithms.md, "What a request holds"):
// held while its handler works, whether its client stays or leaves, and given back once when the
// handler ends, answering or throwing; on each adapter, on one Redis and on a Cluster.

const STORES = [
  { name: 'Redis', connect: () => connectRedis(inject('redisUrl')) },
  { name: 'a Redis Cluster', connect: () => connectCluster() },
];
/** How soon after a handler ends its slot is free again: one more store call. */
const RELEASE_BUDGET_MS = 1_000;

interface Message {
  event: string;
  data: unknown;
}

const sockets: WebSocket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});
afterAll(closeAll);

/** A client of the chat gateway counted as `client`; `ask` sends and waits for the next answer. */
async function connect(url: string, client: string) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/chat`, {
    headers: { 'x-client': client },
  });
  sockets.push(socket);
  const waiting: Array<(message: Message) => void> = [];
  socket.on('message', (raw: Buffer) => waiting.shift()?.(JSON.parse(raw.toString()) as Message));
  await once(socket, 'open');
  return {
    socket,
    ask: (event: string, data: unknown) =>
      new Promise<Message>((resolve) => {
        waiting.push(resolve);
        socket.send(JSON.stringify({ event, data }));
      }),
  };
}

/** Waits until `count` exports have ended; says when. */
async function finishedAt(app: INestApplication, count: number): Promise<number> {
  const work = app.get(ExportWork);
  const deadline = Date.now() + 10_000;
  while (work.finished < count) {
    if (Date.now() > deadline) throw new Error(`${count} exports never finished`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now();
}

/** Asks for an export until one is admitted; how long after `since` that took. */
async function admittedAfter(url: string, client: string, since: number): Promise<number> {
  const asker = await connect(url, client);
  while (Date.now() - since < RELEASE_BUDGET_MS + 500) {
    const answer = await asker.ask('export', { ms: 0 });
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
      const leaving = await connect(url, client);
      leaving.socket.send(JSON.stringify({ event: 'export', data: { ms: 800 } }));
      await new Promise((resolve) => setTimeout(resolve, 150));
      leaving.socket.close();
      await once(leaving.socket, 'close');
      // The handler still works: its slot is still held, whoever asks next.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(app.get(ExportWork).running).toBe(1);
      const next = await connect(url, client);
      expect(await next.ask('export', { ms: 0 })).toMatchObject({
        event: 'exception',
        data: { statusCode: 429 },
      });
      const ended = await finishedAt(app, 1);
      expect(await admittedAfter(url, client, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    `frees the slot of a handler that throws within ${RELEASE_BUDGET_MS} ms of its end, on $name`,
    async (store) => {
      const { app, url } = await start(store);
      const client = `client-${Math.random()}`;
      const failing = await connect(url, client);
      const answer = failing.ask('export-failing', { ms: 200 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const other = await connect(url, client);
      expect(await other.ask('export', { ms: 0 })).toMatchObject({ event: 'exception' });
      expect(await answer).toMatchObject({
        event: 'exception',
        data: { message: 'the export failed' },
      });
      const ended = await finishedAt(app, 1);
      expect(await admittedAfter(url, client, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );
});
