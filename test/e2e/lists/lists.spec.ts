import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PolicyBus, type ListEntry } from '@sluice/nest/internals';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { startRedisServer, type RedisServer } from '../../support/redis-servers.js';
import { listsApp } from './app.module.js';

const startApp = closeAppsAfterEach();

/** MONITOR watches a server of this file's own, so other files' traffic does not show. */
let server: RedisServer;
let monitor: Redis;
let monitored: string[][] = [];

beforeAll(async () => {
  server = await startRedisServer();
  monitor = await connectRedis(server.url).monitor();
  monitor.on('monitor', (_time: string, args: string[]) => monitored.push(args));
});

afterAll(async () => {
  monitor?.disconnect();
  await closeAll();
  await server?.stop();
});

const REDIS = [
  ['one Redis under MONITOR', () => connectRedis(server.url)],
  ['a Redis Cluster', () => connectCluster()],
] as const;

let version = 0;

function entry(fields: Partial<ListEntry> & Pick<ListEntry, 'id' | 'kind' | 'value'>): ListEntry {
  return {
    list: 'deny',
    keyKind: null,
    prefix: false,
    policies: null,
    mode: 'enforce',
    reason: 'abuse seen in the logs',
    expiresAt: null,
    createdBy: 'olga',
    createdAt: new Date().toISOString(),
    ...fields,
  };
}

/** GETs /report as `address` with `key`; the status and the headers a test reads. */
async function report(url: string, address: string, key: string, userAgent = 'curl/8.5') {
  const response = await fetch(`${url}/report`, {
    headers: { 'x-forwarded-for': address, 'x-api-key': key, 'user-agent': userAgent },
  });
  await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

describe.each(ADAPTERS)('allow and deny lists on %s', (adapter) => {
  describe.each(REDIS)('with %s', (redisName, connect) => {
    async function start() {
      const prefix = uniquePrefix('lists');
      const running = await startApp(adapter, listsApp({ redis: connect(), prefix }));
      /** Publishes the lists as the admin does: the snapshot in Redis, a notice to every instance. */
      const publish = (lists: ListEntry[]) =>
        running.app
          .get(PolicyBus)
          .publish({ version: ++version, enforcement: true, policies: [], lists });
      return { url: running.url, prefix, publish };
    }

    it('refuses a denied range before any Redis call, and lets the rest be counted', async () => {
      const { url, publish } = await start();
      await publish([entry({ id: 'range', kind: 'address', value: '203.0.113.0/24' })]);
      monitored = [];
      const denied = await report(url, '203.0.113.77', 'key-a');
      expect(denied.status).toBe(429);
      expect(Number(denied.retryAfter)).toBe(60);
      // IPv4-mapped IPv6 is the same client.
      expect((await report(url, '::ffff:203.0.113.8', 'key-b')).status).toBe(429);
      expect((await report(url, '198.51.100.7', 'key-c')).status).toBe(200);
      if (redisName.includes('MONITOR')) {
        // MONITOR's feed arrives on its own connection: once it shows the allowed request's
        // call, it has shown everything sent before it.
        const names = (text: string) =>
          monitored.some((args) => args.some((arg) => arg.includes(text)));
        await vi.waitFor(() => expect(names('key-c')).toBe(true), { timeout: 5_000 });
        expect(['203.0.113.77', 'key-a', '203.0.113.8', 'key-b'].filter(names)).toEqual([]);
      }
    });

    it('lets an allowed API key skip only the policy it names; a denied User-Agent is refused', async () => {
      const { url, publish } = await start();
      await publish([
        entry({
          id: 'partner',
          list: 'allow',
          kind: 'identifier',
          keyKind: 'header:x-api-key',
          value: 'partner-',
          prefix: true,
          policies: ['report-key'],
        }),
        entry({ id: 'bot', kind: 'userAgent', value: 'evilbot' }),
      ]);
      // report-key skips partner keys; report-ip still counts each address (2 a minute).
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await report(url, '198.51.100.20', 'partner-9')).status);
      expect(statuses).toEqual([200, 200, 429]);
      for (let i = 0; i < 3; i++) {
        expect((await report(url, `198.51.100.${30 + i}`, 'partner-9')).status).toBe(200);
      }
      // The same text sent as an address is not the API key the entry was written for.
      expect((await report(url, '198.51.100.40', 'someone')).status).toBe(200);
      expect((await report(url, '198.51.100.41', 'other', 'Mozilla/5.0 EvilBot/1.2')).status).toBe(
        429,
      );
    });

    it('counts what a shadow deny entry would have refused, and refuses nothing', async () => {
      const { url, publish } = await start();
      await publish([
        entry({ id: 'watch', kind: 'address', value: '192.0.2.0/24', mode: 'shadow' }),
      ]);
      expect((await report(url, '192.0.2.5', 'k-1')).status).toBe(200);
      expect((await report(url, '192.0.2.6', 'k-2')).status).toBe(200);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('sluice_list_matches_total{list="deny",mode="shadow"} 2');
    });
  });
});
