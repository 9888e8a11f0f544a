import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
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

/** App middleware that holds a request `x-before-ms` before the guards see it. */
function heldBeforeGuards(
  req: { headers: Record<string, string | string[] | undefined> },
  _res: unknown,
  next: () => void,
): void {
  setTimeout(next, Number(req.headers['x-before-ms'] ?? 0));
}

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

  /** The app's export counts: running now, the most at once, finished. */
  async function work(url: string): Promise<{ running: number; most: number; finished: number }> {
    return (await (await fetch(`${url}/work`)).json()) as {
      running: number;
      most: number;
      finished: number;
    };
  }

  /** Waits until `finished` exports have ended, then says when. */
  async function finishedAt(url: string, finished: number): Promise<number> {
    const deadline = Date.now() + 10_000;
    while ((await work(url)).finished < finished) {
      if (Date.now() > deadline) throw new Error(`${finished} exports never finished`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return Date.now();
  }

  /** Asks `times` at once until all are admitted; says how long that took from `since`. */
  async function admittedAfter(
    ask: () => Promise<Response>,
    times: number,
    since: number,
  ): Promise<number> {
    while (Date.now() - since < RELEASE_BUDGET_MS + 500) {
      const responses = await Promise.all(Array.from({ length: times }, ask));
      await Promise.all(responses.map((response) => response.text()));
      if (responses.every((response) => response.status === 200)) return Date.now() - since;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return Infinity;
  }

  /** Raw HTTP/1.1 on one connection: the requests written at once, the socket left open. */
  async function rawSocket(url: string, requests: string[]): Promise<Socket> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    socket.on('error', () => undefined);
    socket.write(requests.join(''));
    return socket;
  }

  const get = (path: string, key: string) =>
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`;

  it.each(STORES)(
    'bounds the work, not the sockets: clients that leave do not free slots while handlers run, on $name',
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency-work') }),
      );
      const key = `key-${Math.random()}`;
      // Six clients in turn, each leaving 150 ms after it asked for a one-second export.
      for (let n = 0; n < 6; n++) {
        const client = new AbortController();
        const asked = fetch(`${url}/export?ms=1000`, {
          headers: { 'x-api-key': key },
          signal: client.signal,
        }).catch(() => 'gone');
        await new Promise((resolve) => setTimeout(resolve, 150));
        client.abort();
        await asked;
      }
      const counts = await work(url);
      // A limit of 2 in flight: never more than 2 exports worked at once.
      expect(counts.most).toBe(2);
      const ended = await finishedAt(url, 2);
      const ask = () => fetch(`${url}/export?ms=0`, { headers: { 'x-api-key': key } });
      expect(await admittedAfter(ask, 2, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    `holds a gone client's slot while its handler works, frees it within ${RELEASE_BUDGET_MS} ms of its end, on $name`,
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency-abort') }),
      );
      const key = `key-${Math.random()}`;
      const ask = (ms: number, signal?: AbortSignal) =>
        fetch(`${url}/export?ms=${ms}`, { headers: { 'x-api-key': key }, signal });
      const clients = [new AbortController(), new AbortController()];
      const hung = clients.map((client) => ask(1_500, client.signal).catch(() => 'aborted'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const client of clients) client.abort();
      expect(await Promise.all(hung)).toEqual(['aborted', 'aborted']);
      // The handlers still work: their slots are still held.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await work(url)).running).toBe(2);
      expect((await ask(0)).status).toBe(429);
      const ended = await finishedAt(url, 2);
      expect(await admittedAfter(() => ask(0), 2, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    'frees the slot of a client gone during admission once its handler ends, on $name',
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency-admission') }),
      );
      const key = `key-${Math.random()}`;
      // The tracker takes 300 ms; the client leaves after 100, before its slot is taken.
      const socket = await rawSocket(url, [
        `GET /slow-admission?ms=100 HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nx-admission-ms: 300\r\n\r\n`,
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      const ended = await finishedAt(url, 1);
      const ask = () => fetch(`${url}/slow-admission?ms=0`, { headers: { 'x-api-key': key } });
      expect(await admittedAfter(ask, 1, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    'holds, then frees, the slot of a client gone before admission, on $name',
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency-before') }),
        (app) => app.use(heldBeforeGuards),
      );
      const key = `key-${Math.random()}`;
      // The app holds the request 300 ms before any guard runs; the client leaves after 100.
      const socket = await rawSocket(url, [
        `GET /export?ms=400 HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nx-before-ms: 300\r\n\r\n`,
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await once(socket, 'close');
      // Admitted all the same, its handler works with one of the two slots: one more passes.
      const deadline = Date.now() + 2_000;
      while ((await work(url)).running === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect((await work(url)).running).toBe(1);
      const ask = () => fetch(`${url}/export?ms=0`, { headers: { 'x-api-key': key } });
      const during = await Promise.all([ask(), ask()]);
      await Promise.all(during.map((response) => response.text()));
      expect(during.map((response) => response.status).sort()).toEqual([200, 429]);
      // Given back when its handler ends: both slots pass again.
      const ended = await finishedAt(url, 2);
      expect(await admittedAfter(ask, 2, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    'frees the slots of pipelined requests behind a dropped connection, on $name',
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency-pipelined') }),
      );
      const key = `key-${Math.random()}`;
      const socket = await rawSocket(url, [get('/export?ms=300', key), get('/export?ms=300', key)]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      const ended = await finishedAt(url, 2);
      const ask = () => fetch(`${url}/export?ms=0`, { headers: { 'x-api-key': key } });
      expect(await admittedAfter(ask, 2, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    'frees the slot of a half-closed client, and of a handler that throws, once they end, on $name',
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency-half') }),
      );
      const key = `key-${Math.random()}`;
      // Node's server closes a connection its client half-closed; the handler works on.
      const socket = await rawSocket(url, [get('/export?ms=200', key)]);
      socket.end();
      await once(socket, 'close');
      const failing = await fetch(`${url}/failing?ms=50`, { headers: { 'x-api-key': key } });
      expect(failing.status).toBe(500);
      await failing.text();
      const ended = await finishedAt(url, 2);
      const ask = () => fetch(`${url}/export?ms=0`, { headers: { 'x-api-key': key } });
      expect(await admittedAfter(ask, 2, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    "frees the slots of handlers an app's filter answers and an interceptor fails, once they end, on $name",
    async (store) => {
      const { url } = await startApp(
        adapter,
        concurrencyApp({ redis: store.connect(), prefix: uniquePrefix('concurrency-filters') }),
      );
      const key = `key-${Math.random()}`;
      const ask = (path: string) => fetch(`${url}${path}`, { headers: { 'x-api-key': key } });
      const answers = [ask('/filtered?ms=200'), ask('/intercepted?ms=200')];
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Both slots are held while the two handlers work.
      const third = await ask('/export?ms=0');
      expect(third.status).toBe(429);
      await third.text();
      const [filtered, intercepted] = await Promise.all(answers);
      expect(filtered?.status).toBe(200);
      expect(await filtered?.json()).toEqual({ exported: false });
      expect(intercepted?.status).toBe(500);
      await intercepted?.text();
      const ended = await finishedAt(url, 2);
      expect(await admittedAfter(() => ask('/export?ms=0'), 2, ended)).toBeLessThanOrEqual(
        RELEASE_BUDGET_MS,
      );
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
