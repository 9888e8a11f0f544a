// When PostgreSQL is down (docs/operations.md): with PostgreSQL down, guards are unaffected and admin writes answer 503; when it is
// back, writes succeed again and propagate, without restarting anything.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../../support/test-database.js';
import {
  ensureDemoBuilt,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoProcess,
} from '../../system/support/demo-process.js';
import { countStatuses, send, type Answer } from '../../system/support/http.js';
import {
  ADMINS,
  adminCall,
  adminDemoEnv,
  startAdminDemos,
  appliedVersion,
  waitFor,
  showDemoOutputOnFailure,
} from '../../system/admin/support/admin-demo.js';
import { adminTableContents } from '../../system/admin/support/admin-tables.js';
import { recordReliabilitySection } from '../../support/measured-figures.js';

const INSTANCES = 2;
/** A refused connection is known at once; allow for a loaded machine. */
const REFUSED_ANSWER_MS = 3_000;
/** A silent network is known only by the pool's connect or query timeout (~2 s / ~5 s). */
const SILENT_ANSWER_MS = 8_000;
const PROPAGATION_MS = 5_000;
/** Long enough to see how long a hanging write really takes, instead of a client timeout. */
const CLIENT_PATIENCE_MS = 30_000;
/** Lets bytes the silent network held reach PostgreSQL before the tables are compared. */
const SETTLE_MS = 1_000;

describe('the admin while PostgreSQL is unreachable', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  let demos: DemoProcess[] = [];
  let pids: number[] = [];
  let replyLimit = 0;
  /** The admin's tables just before PostgreSQL went away. */
  let tablesBeforeOutage: Record<string, string[]>;
  const refusedAfterMs: Record<'drop' | 'blackhole', number> = { drop: 0, blackhole: 0 };

  beforeAll(async () => {
    const server = new URL(postgresUrl());
    [database, proxy] = await Promise.all([
      createTestDatabase(),
      startFaultProxy({ target: { host: server.hostname, port: Number(server.port || 5432) } }),
      ensureDemoBuilt(),
    ]);
    const env = adminDemoEnv({
      redisUrl: inject('redisUrl'),
      databaseUrl: proxy.url(database.url),
      prefix: uniqueDemoPrefix('pg-outage'),
      // Exact counts below: a late Redis answer is refused, never admitted unseen.
      onStoreError: 'deny',
      timeoutMs: 1_000,
    });
    // The forum's posts stay in each process: the outage is the admin's, and the replies below
    // stand for any route whose handler needs no database.
    demos = await startAdminDemos({ ...env, DEMO_POSTS: 'memory' }, INSTANCES);
    pids = demos.map((demo) => demo.pid);
  }, 90_000);

  showDemoOutputOnFailure(() => demos);

  afterAll(async () => {
    await stopAllDemos();
    await proxy?.stop();
    await database?.drop();
  });

  const writer = (): string => demos[0]!.url;

  function putReplyLimit(limit: number, version: number): Promise<Answer> {
    return adminCall(writer(), 'alice', 'PUT', '/policies/reply', {
      json: { algorithm: 'sliding-log', limit, periodMs: 60_000, key: 'user', version },
    });
  }

  /** Writes a new reply limit and waits until every instance enforces it. */
  async function changeReplyLimit(limit: number): Promise<void> {
    const current = await adminCall(writer(), 'alice', 'GET', '/policies/reply');
    expect(current.status, current.text).toBe(200);
    const written = await putReplyLimit(limit, current.body.version as number);
    expect(written.status, written.text).toBe(200);
    const { version } = (await adminCall(writer(), 'alice', 'GET', '/enforcement')).body as {
      version: number;
    };
    await waitFor(
      `every instance on version ${version}`,
      async () => {
        const applied = await Promise.all(demos.map((demo) => appliedVersion(demo.url)));
        return applied.every((v) => v >= version) ? true : undefined;
      },
      { timeoutMs: PROPAGATION_MS },
    );
    replyLimit = limit;
  }

  /** On every instance a new user gets exactly the reply limit, then 429. */
  async function expectRepliesLimited(user: string): Promise<void> {
    for (const [i, demo] of demos.entries()) {
      const reply = () =>
        send(`${demo.url}/posts/1/replies`, {
          headers: { 'x-user': `${user}-${i}` },
          json: { body: 'still counting' },
        });
      const answers = await Promise.all(Array.from({ length: replyLimit + 1 }, reply));
      expect(countStatuses(answers)).toEqual({ 201: replyLimit, 429: 1 });
    }
  }

  /** An admin write answers 503 (with Retry-After) instead of hanging; returns how long it took. */
  async function expectWriteRefused(withinMs: number): Promise<number> {
    const started = Date.now();
    const answer = await fetch(`${writer()}/sluice/api/policies/reply`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${ADMINS.alice.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        algorithm: 'sliding-log',
        limit: replyLimit + 10,
        periodMs: 60_000,
        key: 'user',
        version: 1,
      }),
      signal: AbortSignal.timeout(CLIENT_PATIENCE_MS),
    });
    const body = (await answer.json()) as Record<string, unknown>;
    const tookMs = Date.now() - started;
    expect(answer.status, JSON.stringify(body)).toBe(503);
    expect(body).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
    expect(String(body.message)).toMatch(/database/i);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(tookMs, 'milliseconds until the 503').toBeLessThanOrEqual(withinMs);
    return tookMs;
  }

  /** The refused writes left no row behind, not even once the network delivered what it held. */
  async function expectNoTraceOfRefusedWrites(): Promise<void> {
    await sleep(SETTLE_MS);
    expect(await adminTableContents(database.url)).toEqual(tablesBeforeOutage);
  }

  /** What needs no PostgreSQL still answers: instances, inspect, and a counter left alone. */
  async function expectReadsWithoutPostgres(user: string): Promise<void> {
    const instances = await adminCall(writer(), 'victor', 'GET', '/instances');
    expect(instances.status, instances.text).toBe(200);
    expect((instances.body.instances as unknown[]).length).toBeGreaterThanOrEqual(INSTANCES);
    const inspected = await adminCall(writer(), 'victor', 'GET', `/inspect/reply/${user}-0`);
    expect(inspected.status, inspected.text).toBe(200);
    expect(inspected.body).toMatchObject({ allowed: false, remaining: 0 });
    // The reset writes its audit row first: with no database, no counter is reset either.
    const reset = await adminCall(writer(), 'olga', 'DELETE', `/counters/reply/${user}-0`);
    expect(reset.status, reset.text).toBe(503);
    const stillRefused = await send(`${demos[0]!.url}/posts/1/replies`, {
      headers: { 'x-user': `${user}-0` },
      json: { body: 'after the reset that was refused' },
    });
    expect(stillRefused.status).toBe(429);
  }

  it('writes and propagates a change before the outage', async () => {
    await changeReplyLimit(3);
    await expectRepliesLimited('before');
  });

  it('keeps deciding and refuses writes quickly while PostgreSQL refuses connections', async () => {
    tablesBeforeOutage = await adminTableContents(database.url);
    await proxy.mode('drop');

    await expectRepliesLimited('dropped');
    const tookMs = await expectWriteRefused(REFUSED_ANSWER_MS);
    refusedAfterMs.drop = tookMs;
    await expectReadsWithoutPostgres('dropped');
  }, 30_000);

  it('writes again once PostgreSQL accepts connections, without a restart', async () => {
    await proxy.mode('pass');

    await expectNoTraceOfRefusedWrites();
    await changeReplyLimit(4);
    await expectRepliesLimited('redialled');
  });

  it('keeps deciding and refuses writes within seconds while the network to PostgreSQL is silent', async () => {
    tablesBeforeOutage = await adminTableContents(database.url);
    await proxy.mode('blackhole');

    await expectRepliesLimited('silent');
    const tookMs = await expectWriteRefused(SILENT_ANSWER_MS);
    refusedAfterMs.blackhole = tookMs;
    await expectReadsWithoutPostgres('silent');
  }, 60_000);

  it('writes and propagates the next change once the network is back, without a restart', async () => {
    await proxy.mode('pass');

    await expectNoTraceOfRefusedWrites();
    await changeReplyLimit(5);
    await expectRepliesLimited('recovered');
    expect(demos.map((demo) => demo.pid)).toEqual(pids);
    const row = (fault: string, ms: number) =>
      `| ${fault} | exactly the limit on each of ${INSTANCES} instances, then 429 | 503 with \`Retry-After: 5\` after ${ms} ms | no row written | next write committed and in force on every instance, no restart |`;
    await recordReliabilitySection(
      'postgres-outage',
      [
        '## PostgreSQL unreachable',
        '',
        `| fault (${new Date().toISOString().slice(0, 10)}) | guarded requests | admin write | database afterwards | recovery |`,
        '|---|---|---|---|---|',
        row('connections refused (proxy drops)', refusedAfterMs.drop),
        row('network silent (proxy blackholes)', refusedAfterMs.blackhole),
        '',
        'Method (`test/measured/admin/postgres-outage.spec.ts`): two demo processes with the admin',
        'reach PostgreSQL through a TCP fault proxy the test controls. During each fault a new user',
        'replies on every instance up to the limit and once more; a policy write is sent and timed;',
        "the admin's tables are compared, row for row, with their contents before the fault once the",
        'proxy passes again. Penalty events set during an outage:',
        '[Penalty events while PostgreSQL or the admin is away](#penalty-events-while-postgresql-or-the-admin-is-away).',
      ].join('\n'),
    );
  }, 30_000);
});
