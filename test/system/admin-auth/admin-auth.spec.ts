import type { LoggerService } from '@nestjs/common';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminAuthOptions } from '@sluice/admin/src/config/admin-auth-options.interface.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import { ADAPTERS, closeAppsAfterEach, createApp, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { PolicyRegistry } from '@sluice/nest/internals';
import { adminAuthApp } from './app.module.js';
import { bearer, CREDENTIALS, sessionCookieOf, signIn, TOKENS } from './credentials.fixture.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  await closeAll();
});

const startApp = closeAppsAfterEach();

const NOT_SIGNED_IN = {
  statusCode: 401,
  error: 'Unauthorized',
  message: 'Sign in or send Authorization: Bearer <token>',
};

describe.each(ADAPTERS)('admin authentication on %s', (adapter) => {
  async function start(
    databaseUrl = database.url,
    auth: AdminAuthOptions = { credentials: CREDENTIALS },
  ): Promise<string> {
    return (await startApp(adapter, adminAuthApp(databaseUrl, auth))).url;
  }

  it('refuses a request without credentials, with a wrong token or another scheme', async () => {
    const url = await start();
    for (const headers of [
      {},
      bearer('wrong-token-of-some-length'),
      { authorization: 'Basic YTpi' },
    ]) {
      const response = await fetch(`${url}/sluice/api/things`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(NOT_SIGNED_IN);
    }
  });

  it('lets each role do what it may and names the role it lacks', async () => {
    const url = await start();
    const statuses = async (token: string): Promise<number[]> =>
      Promise.all(
        ['GET', 'POST', 'DELETE'].map(
          async (method) =>
            (await fetch(`${url}/sluice/api/things`, { method, headers: bearer(token) })).status,
        ),
      );
    expect(await statuses(TOKENS.victor)).toEqual([200, 403, 403]);
    expect(await statuses(TOKENS.olga)).toEqual([200, 201, 403]);
    expect(await statuses(TOKENS.alice)).toEqual([200, 201, 200]);
    const refused = await fetch(`${url}/sluice/api/things`, {
      method: 'POST',
      headers: bearer(TOKENS.victor),
    });
    expect(await refused.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'This needs the operator role; you are viewer',
    });
  });

  it('tells the handler who is asking, from where and with which user agent', async () => {
    const url = await start();
    const response = await fetch(`${url}/sluice/api/things`, {
      headers: { ...bearer(TOKENS.olga), 'user-agent': `ops-script/${'x'.repeat(600)}` },
    });
    const actor = (await response.json()) as Record<string, string>;
    expect(actor).toMatchObject({ name: 'olga', role: 'operator', ip: '127.0.0.1' });
    expect(actor.userAgent).toHaveLength(512);
    expect(actor.userAgent?.startsWith('ops-script/xxx')).toBe(true);
  });

  it('answers 429 with Retry-After after 20 failed attempts, even for a right token', async () => {
    const url = await start();
    for (let attempt = 0; attempt < 20; attempt++) {
      const wrong = await fetch(`${url}/sluice/api/things`, {
        headers: bearer(`wrong-${attempt}`),
      });
      expect(wrong.status).toBe(401);
    }
    for (const token of ['wrong-again', TOKENS.alice]) {
      const limited = await fetch(`${url}/sluice/api/things`, { headers: bearer(token) });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(await limited.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    }
    const signInLimited = await signIn(url, 'alice', TOKENS.alice);
    expect(signInLimited.status).toBe(429);
  });

  it('obeys its own sign-in limit, not another definition under its name', async () => {
    const running = await startApp(
      adapter,
      adminAuthApp(database.url, { credentials: CREDENTIALS }),
    );
    // A snapshot written before the name was reserved could hold one like this.
    running.app.get(PolicyRegistry).set({
      name: 'sluice-admin.sign-in-attempts',
      algorithm: 'sliding-log',
      limit: 100_000,
      periodMs: 60_000,
      key: 'ip',
    });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 21; attempt++) {
      const wrong = await fetch(`${running.url}/sluice/api/things`, {
        headers: bearer(`wrong-${attempt}`),
      });
      statuses.push(wrong.status);
    }
    expect(statuses).toEqual([...Array<number>(20).fill(401), 429]);
  });

  it('keeps accepting bearer tokens while PostgreSQL is unreachable; sessions answer 503', async () => {
    const { hostname, port } = new URL(database.url);
    const proxy = await startFaultProxy({ target: { host: hostname, port: Number(port) } });
    try {
      const url = await start(proxy.url(database.url));
      const cookie = sessionCookieOf(await signIn(url, 'victor', TOKENS.victor));
      await proxy.mode('drop');
      const response = await fetch(`${url}/sluice/api/things`, { headers: bearer(TOKENS.victor) });
      expect(response.status).toBe(200);
      const session = await fetch(`${url}/sluice/api/session`, { headers: { cookie } });
      expect(session.status).toBe(503);
      expect(session.headers.get('retry-after')).toBe('5');
      await proxy.mode('pass');
    } finally {
      await proxy.stop();
    }
  });

  it('stores salted digests, never a token', async () => {
    await start();
    const rows = await query<{ name: string; secret_hash: string; source: string }>(
      "SELECT name, secret_hash, source FROM sluice_admin_credential WHERE name IN ('alice', 'olga', 'victor') ORDER BY name",
    );
    expect(rows.map((row) => [row.name, row.source])).toEqual([
      ['alice', 'config'],
      ['olga', 'config'],
      ['victor', 'config'],
    ]);
    for (const row of rows) expect(row.secret_hash).toMatch(/^sha256\$[\w-]{22}\$[\w-]{43}$/);
    const dump = JSON.stringify(await query('SELECT * FROM sluice_admin_credential'));
    for (const token of Object.values(TOKENS)) expect(dump).not.toContain(token);
  });

  it('refuses to start in production without credentials, saying how to set them', async () => {
    const app = await createApp(adapter, adminAuthApp(database.url, { production: true }));
    await expect(app.init()).rejects.toThrow(/SLUICE_ADMIN_TOKENS=/);
    await app.close();
  });

  it('prints a one-time admin token in development, which then works', async () => {
    const warnings: string[] = [];
    const logger: LoggerService = {
      log: () => {},
      error: () => {},
      warn: (message: unknown) => warnings.push(String(message)),
    };
    const { url } = await startApp(adapter, adminAuthApp(database.url, {}), (app) =>
      app.useLogger(logger),
    );
    expect(warnings).toHaveLength(1);
    const token = /one-time token (\S+) /.exec(warnings[0] ?? '')?.[1] ?? '';
    expect(warnings[0]).toBe(
      `Sluice admin: no credentials configured; sign in as "admin" with the one-time token ${token} (valid until this process stops)`,
    );
    expect(token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const response = await fetch(`${url}/sluice/api/things`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(await response.json()).toEqual({ removedBy: 'admin' });
    expect((await signIn(url, 'admin', token)).status).toBe(200);
  });

  it('checks at most 20 of 100 parallel wrong tokens from one client; the rest get 429', async () => {
    const url = await start();
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async (_, attempt) => {
        const response = await fetch(`${url}/sluice/api/things`, {
          headers: bearer(`wrong-${attempt}-xxxxxxxxxxxx`),
        });
        await response.text();
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(80);
  });

  it('behind a trusted proxy, locks out the client that failed and no other', async () => {
    const { url } = await startApp(
      adapter,
      adminAuthApp(database.url, { credentials: CREDENTIALS }, { trustProxy: 'loopback' }),
    );
    const from = (client: string, token: string) =>
      fetch(`${url}/sluice/api/things`, {
        headers: { ...bearer(token), 'x-forwarded-for': client },
      });
    for (let attempt = 0; attempt < 21; attempt++) {
      await (await from('198.51.100.66', `wrong-${attempt}`)).text();
    }
    expect((await from('198.51.100.66', TOKENS.alice)).status).toBe(429);
    const other = await from('192.0.2.10', TOKENS.alice);
    expect(other.status).toBe(200);
    // The actor, as the audit and session rows record it, is the client, not the proxy.
    expect(((await other.json()) as { ip: string }).ip).toBe('192.0.2.10');
    const signedIn = await signIn(url, 'olga', TOKENS.olga, { 'x-forwarded-for': '192.0.2.11' });
    expect(signedIn.status).toBe(200);
  });

  it('shares the limit between two instances on one Redis', async () => {
    const sluice = { redis: connectRedis(), prefix: uniquePrefix('auth') };
    const apps = await Promise.all(
      [0, 1].map(() =>
        startApp(adapter, adminAuthApp(database.url, { credentials: CREDENTIALS }, sluice)),
      ),
    );
    const wrongAt = async (url: string, attempt: number) => {
      const response = await fetch(`${url}/sluice/api/things`, {
        headers: bearer(`wrong-${attempt}`),
      });
      await response.text();
      return response.status;
    };
    const first = [];
    for (let attempt = 0; attempt < 15; attempt++) first.push(await wrongAt(apps[0]!.url, attempt));
    const second = [];
    for (let attempt = 15; attempt < 25; attempt++)
      second.push(await wrongAt(apps[1]!.url, attempt));
    expect(first).toEqual(Array<number>(15).fill(401));
    expect(second).toEqual([...Array<number>(5).fill(401), ...Array<number>(5).fill(429)]);
  });

  it('takes the session cookie when a proxy adds its own Basic credentials', async () => {
    const url = await start();
    const cookie = sessionCookieOf(await signIn(url, 'victor', TOKENS.victor));
    const response = await fetch(`${url}/sluice/api/things`, {
      headers: { cookie, authorization: 'Basic cHJveHk6c2VjcmV0' },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { name: string }).name).toBe('victor');
  });
});

async function query<T>(sql: string): Promise<T[]> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}
