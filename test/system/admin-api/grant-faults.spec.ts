import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { AuditPage, QuotaGrantAnswer, QuotaState } from '@sluice/admin/api';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js';
import { startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { withPostgres } from '../../support/postgres-server.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { adminClient } from './admin.client.js';
import { adminApp, LEDGER } from './app.module.js';

// A grant and its audit entry are made together or not at all, and a grant retried with its key
// is made once (docs/guide.md, "Credits"): each fault below is placed at one step of a grant,
// and Redis's total, the audit and the answers are compared after.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  app: RunningApp;
  database: TestDatabase;
  redisProxy: FaultProxy;
  api: ReturnType<typeof adminClient>;
}

async function setUp(): Promise<Setup> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const redisUrl = inject('redisUrl');
  const { hostname, port } = new URL(redisUrl);
  const redisProxy = await startFaultProxy({ target: { host: hostname, port: Number(port) } });
  cleanups.push(() => redisProxy.stop());
  const app = await startApp(
    'express',
    adminApp({
      redisUrl: redisProxy.url(redisUrl),
      prefix: uniquePrefix('grant-faults'),
      databaseUrl: database.url,
      policies: [LEDGER],
    }),
  );
  cleanups.push(() => app.close());
  return { app, database, redisProxy, api: adminClient(`${app.url}/sluice/api`) };
}

const grant = (setup: Setup, identifier: string, body: object) =>
  setup.api<QuotaGrantAnswer>('POST', `/quotas/ledger/${identifier}/grant`, {
    as: 'operator',
    body,
  });

const held = async (setup: Setup, identifier: string) =>
  (await setup.api<QuotaState>('GET', `/quotas/ledger/${identifier}`)).body.granted;

async function audited(setup: Setup, identifier: string): Promise<number[]> {
  const page = await setup.api<AuditPage>('GET', '/audit?action=quota.grant&limit=200');
  return page.body.entries
    .filter((entry) => entry.target === `ledger/${identifier}`)
    .map((entry) => (entry.after as { amount: number }).amount);
}

/** A trigger that holds a marked grant's step `pg_sleep` long, so a test can end its connection. */
async function slowStep(database: TestDatabase, sql: string): Promise<() => Promise<void>> {
  await withPostgres(database.url, (client) =>
    client.query(`
      CREATE FUNCTION slow_grant_step() RETURNS trigger AS $$
      BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$ LANGUAGE plpgsql;
      ${sql}`),
  );
  return () =>
    withPostgres(database.url, (client) =>
      client.query('DROP FUNCTION slow_grant_step() CASCADE').then(() => undefined),
    );
}

/** Ends the app's connection that is running `pattern`, once it is seen. */
async function killBackendRunning(database: TestDatabase, pattern: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const killed = await withPostgres(database.url, (client) =>
      client.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE $1`,
        [pattern],
      ),
    );
    if (killed.rows.some((row) => row.ended)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no connection ran ${pattern} within 2 s`);
}

describe('grants under faults (Express, Redis, PostgreSQL)', () => {
  it('makes a grant retried with its key once, in sequence and in parallel', async () => {
    const setup = await setUp();
    const key = randomUUID();
    const first = await grant(setup, '198.51.100.1', { amount: 7, key });
    const again = await grant(setup, '198.51.100.1', { amount: 7, key });
    expect([first.status, first.body.replayed, first.body.granted]).toEqual([200, false, 7]);
    expect([again.status, again.body.replayed, again.body.granted]).toEqual([200, true, 7]);

    const parallelKey = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        grant(setup, '198.51.100.1', { amount: 5, key: parallelKey }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(answers.filter((answer) => !answer.body.replayed)).toHaveLength(1);
    expect(await held(setup, '198.51.100.1')).toBe(12);
    expect((await audited(setup, '198.51.100.1')).sort()).toEqual([5, 7]);

    const reused = await grant(setup, '198.51.100.1', { amount: 9, key });
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ issues: [{ field: 'key' }] });
    expect((await grant(setup, '198.51.100.1', { amount: 9, key: 'short' })).status).toBe(400);
  });

  it('takes a grant back, 503, when its connection ends after the audit insert or at commit', async () => {
    const setup = await setUp();
    const steps = [
      // After Redis took the credits, while the audit entry is being inserted.
      {
        trigger: `CREATE TRIGGER slow_grant_step BEFORE INSERT ON sluice_admin_audit
          FOR EACH ROW EXECUTE FUNCTION slow_grant_step();`,
        running: '%sluice_admin_audit%',
      },
      // Everything written, while the transaction commits.
      {
        trigger: `CREATE CONSTRAINT TRIGGER slow_grant_step AFTER INSERT ON sluice_grant_key
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_grant_step();`,
        running: 'COMMIT',
      },
    ];
    for (const [index, step] of steps.entries()) {
      const identifier = `198.51.100.${10 + index}`;
      const removeTrigger = await slowStep(setup.database, step.trigger);
      const key = randomUUID();
      const answer = grant(setup, identifier, { amount: 30, key });
      await killBackendRunning(setup.database, step.running);
      const refused = await answer;
      await removeTrigger();
      expect(refused.status, step.running).toBe(503);
      expect(await held(setup, identifier)).toBe(0);
      expect(await audited(setup, identifier)).toEqual([]);

      // The operator retries with the same key: made once now.
      const retried = await grant(setup, identifier, { amount: 30, key });
      expect([retried.status, retried.body.replayed]).toEqual([200, false]);
      expect(await held(setup, identifier)).toBe(30);
      expect(await audited(setup, identifier)).toEqual([30]);
    }
  });

  it('keeps Redis and the audit equal while Redis stalls, each grant retried with its key', async () => {
    const setup = await setUp();
    const identifier = '198.51.100.20';
    let stalls = 0;
    let stalling = true;
    // Redis stalls for 150 ms every 600 ms while grants run: replies past the decisions' 100 ms
    // deadline, grants that land after their request gave up.
    const stallRedis = (async () => {
      while (stalling) {
        await new Promise((resolve) => setTimeout(resolve, 600));
        await setup.redisProxy.mode({ delayMs: 150 });
        await new Promise((resolve) => setTimeout(resolve, 150));
        await setup.redisProxy.mode('pass');
        stalls += 1;
      }
    })();
    const statuses: number[] = [];
    let made = 0;
    const operator = async () => {
      while (stalls < 5) {
        const key = randomUUID();
        for (let attempt = 0; ; attempt++) {
          const answer = await grant(setup, identifier, { amount: 1, key });
          statuses.push(answer.status);
          if (answer.status === 200) break;
          if (attempt === 20) throw new Error('a grant was refused 20 times');
          // An operator tries again a moment later.
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        made += 1;
      }
    };
    try {
      await Promise.all(Array.from({ length: 6 }, operator));
    } finally {
      stalling = false;
      await stallRedis;
      await setup.redisProxy.mode('pass');
    }
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    // The stalls did refuse some grants, each one retried until it was made.
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(await held(setup, identifier)).toBe(made);
    const entries = await withPostgres(setup.database.url, (client) =>
      client.query<{ count: string }>('SELECT count(*) FROM sluice_admin_audit WHERE target = $1', [
        `ledger/${identifier}`,
      ]),
    );
    expect(Number(entries.rows[0]?.count)).toBe(made);
  });
});
