import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { SluiceService } from '@sluice/nest';
import { afterAll, describe, expect, it } from 'vitest';
import type { SluiceModuleOptions } from '@sluice/nest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { trackersApp } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

/** One GET per entry, in order, each with the headers given: the statuses answered. */
async function statuses(url: string, requests: Array<Record<string, string>>): Promise<number[]> {
  const seen: number[] = [];
  for (const headers of requests) {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    seen.push(response.status);
  }
  return seen;
}

const times = <T>(count: number, value: T): T[] => Array<T>(count).fill(value);

describe.each(ADAPTERS)('trackers on %s', (adapter) => {
  let prefix = '';
  async function start(options: Partial<SluiceModuleOptions> = {}): Promise<string> {
    prefix = uniquePrefix('trackers');
    const app = await startApp(adapter, trackersApp({ redis: connectRedis(), prefix, ...options }));
    return app.url;
  }

  it('allow: an allowed address passes every policy undecided, before Redis', async () => {
    const url = await start({ allow: { addresses: ['127.0.0.1', '::1'] } });
    for (const path of ['by-ip', 'by-user', 'by-api-key']) {
      expect(await statuses(`${url}/${path}`, times(5, {}))).toEqual(times(5, 200));
    }
    const response = await fetch(`${url}/by-ip`);
    expect(response.headers.get('ratelimit')).toBeNull();
    // Nothing was counted: no key of this app's prefix holds an identifier.
    expect(await connectRedis().keys(`${prefix}:{*`)).toEqual([]);
  });

  it('allow: a range matches forwarded clients as trustProxy finds them, no one else', async () => {
    const url = await start({
      trustProxy: 'loopback',
      allow: { addresses: ['198.51.100.0/24', '2001:db8::/32'] },
    });
    const from = (xff: string) => ({ 'x-forwarded-for': xff });
    expect(await statuses(`${url}/by-ip`, times(4, from('198.51.100.7')))).toEqual(times(4, 200));
    expect(await statuses(`${url}/by-ip`, times(4, from('2001:db8:5::1')))).toEqual(times(4, 200));
    expect(await statuses(`${url}/by-ip`, times(3, from('203.0.113.7')))).toEqual([200, 200, 429]);
  });

  it('ip: without trustProxy, a spoofed X-Forwarded-For is no new identity', async () => {
    const url = await start();
    const spoofed = ['203.0.113.1', '203.0.113.2', '198.51.100.3', '2001:db8::1'].map((xff) => ({
      'x-forwarded-for': xff,
    }));
    expect(await statuses(`${url}/by-ip`, spoofed)).toEqual([200, 200, 429, 429]);
  });

  it('ip: behind a trusted loopback proxy, each forwarded client has its own count', async () => {
    const url = await start({ trustProxy: 'loopback' });
    const from = (xff: string) => ({ 'x-forwarded-for': xff });
    const first = from('203.0.113.1');
    const second = from('203.0.113.2');
    expect(await statuses(`${url}/by-ip`, [first, first, first])).toEqual([200, 200, 429]);
    expect(await statuses(`${url}/by-ip`, [second, second, second])).toEqual([200, 200, 429]);
  });

  it('ip: IPv6 addresses of one /64 share a count, another /64 does not', async () => {
    const url = await start({ trustProxy: 'loopback' });
    const sameNetwork = ['2001:db8:1:2::1', '2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::7'];
    const neighbour = ['2001:db8:1:3::1', '2001:db8:1:3::2'];
    const from = (xff: string) => ({ 'x-forwarded-for': xff });
    expect(await statuses(`${url}/by-ip`, sameNetwork.map(from))).toEqual([200, 200, 429]);
    expect(await statuses(`${url}/by-ip`, neighbour.map(from))).toEqual([200, 200]);
  });

  it('user: counts per authenticated user', async () => {
    const url = await start();
    const alice = { 'x-user': 'alice' };
    const bob = { 'x-user': 'bob' };
    expect(await statuses(`${url}/by-user`, [alice, alice, bob, alice, bob])).toEqual([
      200, 200, 200, 429, 200,
    ]);
  });

  it('header:x-api-key: counts per key', async () => {
    const url = await start();
    const keyA = { 'x-api-key': 'key-a' };
    const keyB = { 'x-api-key': 'key-b' };
    expect(await statuses(`${url}/by-api-key`, [keyA, keyA, keyB, keyA])).toEqual([
      200, 200, 200, 429,
    ]);
  });

  it('a named tracker counts per its answer', async () => {
    const url = await start();
    const tenant = (name: string) => ({ 'x-tenant': name });
    const requests = [tenant('acme'), tenant('ACME'), tenant('Acme'), tenant('globex')];
    expect(await statuses(`${url}/by-tenant`, requests)).toEqual([200, 200, 429, 200]);
  });

  it.each(['by-user', 'by-api-key', 'by-tenant'])(
    '%s: a request without the identifier is counted by its client address',
    async (route) => {
      const url = await start({ trustProxy: 'loopback' });
      const first = { 'x-forwarded-for': '203.0.113.1' };
      const second = { 'x-forwarded-for': '203.0.113.2' };
      expect(await statuses(`${url}/${route}`, [first, first, first, second])).toEqual([
        200, 200, 429, 200,
      ]);
    },
  );

  it('answers hostile identifiers with 200 then 429, each counted on its own', async () => {
    const url = await start();
    const hostile = [
      'k'.repeat(10_000),
      `${'k'.repeat(9_999)}j`,
      '{braces}:{and}:colons*?[]',
      'tab\tinside\tthe key',
      'latin-1 \u00ff\u00e9 bytes',
      '../../etc/passwd%00',
    ];
    for (const key of hostile) {
      const apiKey = { 'x-api-key': key };
      expect(await statuses(`${url}/by-api-key`, times(3, apiKey)), key.slice(0, 20)).toEqual([
        200, 200, 429,
      ]);
    }
  });
});

describe('a client that resets its connection', () => {
  it('is still counted as its own address, not as the one unknown client', async () => {
    const prefix = uniquePrefix('trackers-reset');
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const app = await startApp('express', trackersApp({ redis: connectRedis(), prefix }), (nest) =>
      // Slow middleware: the guard runs only once the client has gone.
      nest.use((request: IncomingMessage, _response: unknown, next: () => void) => {
        request.socket.once('close', () => next());
        arrived();
      }),
    );
    const { port } = new URL(app.url);
    const client = connect(Number(port), '127.0.0.1');
    await once(client, 'connect');
    client.write('GET /by-ip HTTP/1.1\r\nHost: x\r\n\r\n');
    await reached;
    client.resetAndDestroy();
    const sluice = app.app.get(SluiceService);
    const remaining = async () =>
      (await sluice.peek('by-ip', '127.0.0.1', { keyKind: 'ip' })).remaining;
    const deadline = performance.now() + 2_000;
    while ((await remaining()) === 2 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20)); // waits for the decision, not time
    }
    expect(await remaining()).toBe(1);
    expect((await sluice.peek('by-ip', 'unknown', { keyKind: 'ip' })).remaining).toBe(2);
  });
});
