import { afterEach, describe, expect, inject, it } from 'vitest';
import { SluiceAdminModule } from '@sluice/admin';
import { type AuditPage, type PolicyView } from '@sluice/admin/api';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js';
import {
  ADAPTERS,
  createApp,
  startApp,
  uniquePrefix,
  type AdapterName,
  type RunningApp,
} from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../../support/test-database.js';
import { adminClient, eventually } from './admin.client.js';
import { adminApp, TOKENS } from './app.module.js';

const quota = { algorithm: 'fixed-window', limit: 1, periodMs: 60_000, key: 'ip' };
/** The PostgreSQL the run's databases live on (TEST_DATABASE_URL, or the machine's). */
function postgresServer(): { host: string; port: number } {
  const server = new URL(postgresUrl());
  return { host: server.hostname, port: Number(server.port || 5432) };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await closeAll();
});

async function proxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const started = await startFaultProxy({ target });
  cleanups.push(() => started.stop());
  return started;
}

async function database(): Promise<TestDatabase> {
  const created = await createTestDatabase();
  cleanups.push(() => created.drop());
  return created;
}

async function running(...args: Parameters<typeof startApp>): Promise<RunningApp> {
  const app = await startApp(...args);
  cleanups.push(() => app.close());
  return app;
}

/** An admin app (on Express unless named) whose Redis connection passes a proxy the test controls. */
async function behindRedisProxy(
  name: string,
  adapter: AdapterName = 'express',
): Promise<{ app: RunningApp; redisProxy: FaultProxy; prefix: string }> {
  const redisUrl = inject('redisUrl');
  const { hostname, port } = new URL(redisUrl);
  const redisProxy = await proxy({ host: hostname, port: Number(port) });
  const prefix = uniquePrefix(name);
  const app = await running(
    adapter,
    adminApp({ redisUrl: redisProxy.url(redisUrl), prefix, databaseUrl: (await database()).url }),
  );
  return { app, redisProxy, prefix };
}

async function startFailure(databaseUrl: string): Promise<Error> {
  return createApp('express', adminApp({ databaseUrl })).then(
    () => new Error('the app started'),
    (error: unknown) => error as Error,
  );
}

describe('the admin when Redis or PostgreSQL fail', () => {
  it('keeps a write Redis missed (201) and publishes it once Redis answers again', async () => {
    const { app, redisProxy, prefix } = await behindRedisProxy('admin-outage');
    const api = adminClient(`${app.url}/sluice/api`);
    const storedVersion = () => connectRedis().get(`${prefix}:policies:version`);

    await redisProxy.mode('drop');
    const written = await api<PolicyView>('PUT', '/policies/late', { body: quota });
    expect(written.status).toBe(201);
    expect(await storedVersion()).not.toBe(String(written.body.version));
    // What needs Redis now fails whole: the reset is not audited, as it did not happen.
    expect((await api('DELETE', '/counters/reply/someone')).status).toBe(503);
    expect((await api('GET', '/instances')).status).toBe(503);
    const resets = await api<AuditPage>('GET', '/audit?action=counters.reset');
    expect(resets.body.entries).toEqual([]);

    await redisProxy.mode('pass');
    await eventually(async () => (await storedVersion()) === String(written.body.version), 8_000);
  });

  it.each(ADAPTERS)(
    'lets an admin sign in again and again while Redis is away (attempts given back locally), on %s',
    async (adapter) => {
      const { app, redisProxy } = await behindRedisProxy('admin-outage', adapter);
      await redisProxy.mode('drop');
      // More sign-ins than the 20 attempts a minute one address may make: each one proved right.
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) {
        const signedIn = await fetch(`${app.url}/sluice/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'alice', password: TOKENS.admin }),
        });
        statuses.push(signedIn.status);
      }
      expect(statuses.filter((status) => status !== 201 && status !== 200)).toEqual([]);
      await redisProxy.mode('pass');
    },
  );

  it("answers the charts, identifier and instance lists while Redis is slow, past the decisions' 100 ms", async () => {
    const { app, redisProxy } = await behindRedisProxy('admin-slow');
    const api = adminClient(`${app.url}/sluice/api`);
    // Each read crosses the proxy twice: about 500 ms, where a decision waits 100 ms.
    await redisProxy.mode({ delayMs: 250 });
    expect((await api('GET', '/stats?seconds=60')).status).toBe(200);
    expect((await api('GET', '/identifiers?policy=reply')).status).toBe(200);
    expect((await api('GET', '/instances')).status).toBe(200);
    await redisProxy.mode('pass');
  });

  it('answers 503 with Retry-After while PostgreSQL is unreachable, still serves what Redis holds, and recovers', async () => {
    const postgresProxy = await proxy(postgresServer());
    const app = await running(
      'fastify',
      adminApp({
        redisUrl: inject('redisUrl'),
        prefix: uniquePrefix('admin-outage'),
        databaseUrl: postgresProxy.url((await database()).url),
      }),
    );
    const api = adminClient(`${app.url}/sluice/api`);

    await postgresProxy.mode('drop');
    const read = await api('GET', '/policies');
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('5');
    expect(read.body).toMatchObject({
      statusCode: 503,
      error: 'Service Unavailable',
      message: expect.stringContaining('policy database is unreachable') as string,
    });
    expect((await api('PUT', '/policies/cut', { body: quota })).status).toBe(503);
    expect((await api('GET', '/instances')).status).toBe(200);
    expect((await api('GET', '/inspect/reply/someone')).status).toBe(200);

    await postgresProxy.mode('blackhole');
    const asked = Date.now();
    expect((await api('PUT', '/policies/cut', { body: quota })).status).toBe(503);
    expect(Date.now() - asked).toBeLessThan(8_000);

    await postgresProxy.mode('pass');
    expect((await api('PUT', '/policies/cut', { body: quota })).status).toBe(201);
    const created = await api<AuditPage>('GET', '/audit?action=policy.create');
    expect(created.body.entries.map((entry) => entry.target)).toEqual(['cut']);
  });

  it('refuses to start within 10 s when PostgreSQL does not answer, naming it without its password', async () => {
    const silent = await proxy(postgresServer());
    await silent.mode('blackhole');
    const asked = Date.now();
    const error = await startFailure(`postgres://postgres:hunter2@127.0.0.1:${silent.port}/sluice`);
    expect(Date.now() - asked).toBeLessThan(10_000);
    expect(error.message).toContain(
      `SluiceAdminModule: could not open the policy database postgres://postgres@127.0.0.1:${silent.port}/sluice`,
    );
    expect(error.message).not.toContain('hunter2');
  });

  it('names the option when the database URL or the path is not one', async () => {
    expect((await startFailure('mysql://root@db/app')).message).toBe(
      'SluiceAdminModule options.database: must be a postgres:// or postgresql:// URL',
    );
    expect(() =>
      SluiceAdminModule.forRoot({ database: 'postgres://postgres@127.0.0.1/x', path: '../up' }),
    ).toThrow(/^SluiceAdminModule path: /);
  });
});
