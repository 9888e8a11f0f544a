import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { Client } from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js';
import { postgresUrl } from '../../support/test-database.js';

const proxies: FaultProxy[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
});

async function proxyTo(url: string): Promise<FaultProxy> {
  const { hostname, port } = new URL(url);
  const proxy = await startFaultProxy({ target: { host: hostname, port: Number(port) } });
  proxies.push(proxy);
  return proxy;
}

/** A raw connection through the proxy that records what Redis answers and how it ends. */
class RawRedis {
  readonly socket: Socket;
  received = '';
  ended: string | undefined;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port });
    sockets.push(this.socket);
    this.socket.on('data', (chunk: Buffer) => (this.received += chunk.toString('utf8')));
    this.socket.on('error', (error: NodeJS.ErrnoException) => (this.ended ??= error.code));
    this.socket.on('close', () => (this.ended ??= 'closed'));
  }

  async connected(): Promise<void> {
    await once(this.socket, 'connect');
  }

  send(command: string): void {
    this.socket.write(`${command}\r\n`);
  }

  /** Waits until `predicate` holds, or `ms` pass; returns whether it held. */
  async until(predicate: () => boolean, ms = 2_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!predicate() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return predicate();
  }
}

async function redisRoundTripMs(port: number): Promise<number> {
  const redis = new RawRedis(port);
  await redis.connected();
  const started = performance.now();
  redis.send('PING');
  expect(await redis.until(() => redis.received === '+PONG\r\n')).toBe(true);
  const elapsed = performance.now() - started;
  redis.socket.destroy();
  return elapsed;
}

describe('fault proxy in front of Redis', () => {
  it('forwards both ways in pass mode, a pipeline of 500 commands in order', async () => {
    const proxy = await proxyTo(inject('redisUrl'));
    const redis = new RawRedis(proxy.port);
    await redis.connected();

    redis.send(Array.from({ length: 500 }, (_, i) => `ECHO m${i}`).join('\r\n'));

    const expected = Array.from({ length: 500 }, (_, i) => `$${`m${i}`.length}\r\nm${i}\r\n`);
    expect(await redis.until(() => redis.received === expected.join(''))).toBe(true);
    expect(proxy.openConnections).toBe(1);
  });

  it('drop closes open connections and refuses new ones until pass, on the same port', async () => {
    const proxy = await proxyTo(inject('redisUrl'));
    const open = new RawRedis(proxy.port);
    await open.connected();
    const { port } = proxy;

    await proxy.mode('drop');

    expect(await open.until(() => open.ended !== undefined)).toBe(true);
    const refused = new RawRedis(port);
    expect(await refused.until(() => refused.ended !== undefined)).toBe(true);
    expect(refused.ended).toBe('ECONNREFUSED');

    await proxy.mode('pass');
    expect(proxy.port).toBe(port);
    expect(await redisRoundTripMs(port)).toBeLessThan(1_000);
  });

  it('blackhole keeps connections open and silent, and delivers what it held once passing again', async () => {
    const proxy = await proxyTo(inject('redisUrl'));
    const open = new RawRedis(proxy.port);
    await open.connected();
    await proxy.mode('blackhole');

    open.send('PING');
    const late = new RawRedis(proxy.port);
    await late.connected();
    late.send('PING');

    expect(await open.until(() => open.received !== '' || open.ended !== undefined, 500)).toBe(
      false,
    );
    expect(late.received).toBe('');
    expect(late.ended).toBeUndefined();
    expect(proxy.openConnections).toBe(2);

    await proxy.mode('pass');
    expect(await open.until(() => open.received === '+PONG\r\n')).toBe(true);
    expect(await late.until(() => late.received === '+PONG\r\n')).toBe(true);
  });

  it('reset sends RST to open connections and to new ones', async () => {
    const proxy = await proxyTo(inject('redisUrl'));
    const open = new RawRedis(proxy.port);
    await open.connected();

    await proxy.mode('reset');

    expect(await open.until(() => open.ended !== undefined)).toBe(true);
    expect(open.ended).toBe('ECONNRESET');
    const late = new RawRedis(proxy.port);
    late.send('PING');
    expect(await late.until(() => late.ended !== undefined)).toBe(true);
    expect(late.ended).toBe('ECONNRESET');
    expect(late.received).toBe('');
  });

  it('delay adds the delay to each direction, and pass takes it away', async () => {
    const proxy = await proxyTo(inject('redisUrl'));

    await proxy.mode({ delayMs: 150 });
    const delayed = await redisRoundTripMs(proxy.port);
    await proxy.mode('pass');
    const direct = await redisRoundTripMs(proxy.port);

    expect(delayed).toBeGreaterThanOrEqual(300);
    expect(delayed).toBeLessThan(1_500);
    expect(direct).toBeLessThan(150);
  });

  it('refuses a target off loopback and a delay out of range', async () => {
    await expect(startFaultProxy({ target: { host: '10.0.0.1', port: 6379 } })).rejects.toThrow(
      /loopback only/,
    );
    const proxy = await proxyTo(inject('redisUrl'));
    await expect(proxy.mode({ delayMs: -1 })).rejects.toThrow(/delayMs/);
  });

  it('stop closes the port and every connection', async () => {
    const proxy = await proxyTo(inject('redisUrl'));
    const open = new RawRedis(proxy.port);
    await open.connected();

    await proxy.stop();

    expect(await open.until(() => open.ended !== undefined)).toBe(true);
    const refused = new RawRedis(proxy.port);
    expect(await refused.until(() => refused.ended !== undefined)).toBe(true);
    expect(refused.ended).toBe('ECONNREFUSED');
  });
});

describe('fault proxy in front of PostgreSQL', () => {
  async function query(url: string, timeoutMs: number): Promise<string> {
    const client = new Client({
      connectionString: url,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const { rows } = await client.query<{ answer: string }>("SELECT 'through' AS answer");
      return rows[0]!.answer;
    } catch (error) {
      return `failed: ${(error as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  }

  it('lets a query through, fails fast while dropped, times out while blackholed, recovers', async () => {
    const server = postgresUrl();
    const proxy = await proxyTo(server);
    const url = proxy.url(server);

    expect(await query(url, 2_000)).toBe('through');

    await proxy.mode('drop');
    const dropStarted = Date.now();
    expect(await query(url, 2_000)).toMatch(/failed: .*ECONNREFUSED/);
    expect(Date.now() - dropStarted).toBeLessThan(1_000);

    await proxy.mode('blackhole');
    const blackholeStarted = Date.now();
    expect(await query(url, 500)).toMatch(/failed: .*timeout/i);
    expect(Date.now() - blackholeStarted).toBeGreaterThanOrEqual(450);

    await proxy.mode('pass');
    expect(await query(url, 2_000)).toBe('through');
  });
});
