// A penalty event (docs/architecture.md): penalty events wait in a Redis Stream while PostgreSQL or the admin is down, and the
// admin records each exactly once when it can: nothing lost, nothing twice.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js';
import { withPostgres } from '../../support/postgres-server.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../../support/test-database.js';
import {
  ensureDemoBuilt,
  startDemo,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoEnv,
  type DemoProcess,
} from '../../system/support/demo-process.js';
import { send } from '../../system/support/http.js';
import {
  adminDemoEnv,
  showDemoOutputOnFailure,
  waitFor,
} from '../../system/admin/support/admin-demo.js';
import { recordReliabilitySection } from '../../support/measured-figures.js';

const PENALTIES = 1_000;
const CONCURRENCY = 10;
const RECORDED_WITHIN_MS = 30_000;
const MAX_TRIES = 10;

interface Tally {
  rows: number;
  events: number;
  keys: number;
}

async function tally(databaseUrl: string): Promise<Tally> {
  return withPostgres(databaseUrl, async (client) => {
    const { rows } = await client.query<{ rows: string; events: string; keys: string }>(
      `SELECT count(*) AS rows, count(DISTINCT event_id) AS events,
              count(DISTINCT (policy, key_kind, identifier)) AS keys
       FROM sluice_penalty`,
    );
    const row = rows[0]!;
    return { rows: Number(row.rows), events: Number(row.events), keys: Number(row.keys) };
  });
}

/**
 * Each user fails until refused: the refusal starts the user's only block. A failure decided
 * while the store timed out (a busy machine) passes to the handler (401) and is tried again.
 */
async function blockUsers(url: string, users: string[]): Promise<void> {
  const queue = [...users];
  const worker = async () => {
    for (let user = queue.shift(); user !== undefined; user = queue.shift()) {
      let answer = { status: 401, text: '' };
      for (let tries = 0; answer.status === 401 && tries < MAX_TRIES; tries++) {
        answer = await send(`${url}/login`, { json: { username: user, password: 'wrong' } });
      }
      if (answer.status !== 429) {
        throw new Error(`${user}: expected 429, got ${answer.status} ${answer.text}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const usersNamed = (stem: string) => Array.from({ length: PENALTIES }, (_, i) => `${stem}${i}`);

describe('penalty events while PostgreSQL or the admin is away', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  let redis: Redis;
  let adminEnv: DemoEnv;
  let admin: DemoProcess;
  let app: DemoProcess;
  let streamKey = '';
  const figures: string[] = [];

  beforeAll(async () => {
    const server = new URL(postgresUrl());
    [database, proxy] = await Promise.all([
      createTestDatabase(),
      startFaultProxy({ target: { host: server.hostname, port: Number(server.port || 5432) } }),
      ensureDemoBuilt(),
    ]);
    const prefix = uniqueDemoPrefix('penalty-stream');
    streamKey = `${prefix}:penalty-events`;
    redis = connectRedis();
    adminEnv = {
      ...adminDemoEnv({
        redisUrl: inject('redisUrl'),
        databaseUrl: proxy.url(database.url),
        prefix,
        penaltyClaimIdleMs: 500,
      }),
      DEMO_LOGIN_MAX_FAILURES: '1',
      DEMO_LOGIN_BLOCK_MS: '600000',
      DEMO_LOGIN_MAX_BLOCK_MS: '600000',
    };
    admin = await startDemo(adminEnv);
    // The instance the users hit: no admin, so it needs neither PostgreSQL nor the admin.
    app = await startDemo({ ...adminEnv, DATABASE_URL: undefined });
  }, 90_000);

  showDemoOutputOnFailure(() => [admin, app]);

  afterAll(async () => {
    await stopAllDemos();
    await closeAll();
    await proxy?.stop();
    await database?.drop();
  });

  it(`records all ${PENALTIES} blocks set while PostgreSQL was cut off, once each, when it returns`, async () => {
    await proxy.mode('blackhole');
    await blockUsers(app.url, usersNamed('cut'));
    await waitFor(
      'every event in the stream',
      async () => ((await redis.xlen(streamKey)) >= PENALTIES ? true : undefined),
      { timeoutMs: 10_000 },
    );
    expect((await tally(database.url)).rows).toBe(0);

    await proxy.mode('pass');
    const back = performance.now();
    const recorded = await waitFor(
      'every block recorded',
      async () => {
        const now = await tally(database.url);
        return now.rows >= PENALTIES ? now : undefined;
      },
      { timeoutMs: RECORDED_WITHIN_MS, intervalMs: 200 },
    );
    expect(recorded).toEqual({ rows: PENALTIES, events: PENALTIES, keys: PENALTIES });
    figures.push(
      `| PostgreSQL blackholed (TCP proxy) while ${PENALTIES} users were blocked | ${PENALTIES} | ${((performance.now() - back) / 1000).toFixed(1)} s after the proxy passed again | 0 | 0 |`,
    );
  }, 120_000);

  it('records every block once when the admin is killed holding events it read but never recorded', async () => {
    await proxy.mode('blackhole');
    await blockUsers(app.url, usersNamed('killed'));
    // The admin reads a batch, then waits on the silent database without acknowledging it.
    const held = await waitFor(
      'the admin holding unrecorded events',
      async () => {
        const [pending] = (await redis.xpending(streamKey, 'sluice-admin')) as [number];
        return pending > 0 ? pending : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(held).toBeGreaterThan(0);
    await admin.stop('SIGKILL');

    await proxy.mode('pass');
    const restarted = performance.now();
    admin = await startDemo(adminEnv);
    const recorded = await waitFor(
      'every block recorded after the restart',
      async () => {
        const now = await tally(database.url);
        return now.rows >= 2 * PENALTIES ? now : undefined;
      },
      { timeoutMs: RECORDED_WITHIN_MS, intervalMs: 200 },
    );
    expect(recorded).toEqual({ rows: 2 * PENALTIES, events: 2 * PENALTIES, keys: 2 * PENALTIES });
    const [pending] = (await redis.xpending(streamKey, 'sluice-admin')) as [number];
    expect(pending).toBe(0);
    figures.push(
      `| PostgreSQL blackholed, ${PENALTIES} more users blocked, the admin killed (SIGKILL) holding what it had read and not recorded (${held} pending), then restarted with PostgreSQL back | ${PENALTIES} | ${((performance.now() - restarted) / 1000).toFixed(1)} s after the restart began | 0 | 0 |`,
    );
    await recordReliabilitySection(
      'penalty-stream',
      [
        '## Penalty events while PostgreSQL or the admin is away',
        '',
        `| fault (${new Date().toISOString().slice(0, 10)}) | blocks | all recorded | lost | recorded twice |`,
        '|---|---|---|---|---|',
        ...figures,
        '',
        'Method (`test/measured/admin/penalty-stream.spec.ts`): two demo processes on one Redis; the',
        "admin's reaches PostgreSQL through a TCP fault proxy the test controls, the other has no",
        'admin and takes the traffic. Each user fails to log in until refused, which blocks it',
        '(`DEMO_LOGIN_MAX_FAILURES=1`), 10 clients at a time. Counts are read straight from',
        '`sluice_penalty`: rows, distinct event ids and distinct blocked keys must all equal the',
        `blocks set. The restarted admin takes over the dead one's events after`,
        '`SLUICE_PENALTY_CLAIM_IDLE_MS=500`; afterwards no event is left pending in the group.',
      ].join('\n'),
    );
  }, 120_000);
});
