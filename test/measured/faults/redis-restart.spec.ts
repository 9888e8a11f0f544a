// Failures (docs/operations.md): the test's own redis-server crashes (SIGKILL) under load and comes back empty; and
// an instance starts while Redis is down, says so, and syncs the published policies once it is up.
import { PolicyBus, SluiceEngine } from '@sluice/nest/internals';
import { SluiceConnection } from '@sluice/nest/src/connection/sluice.connection.js';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_LIMIT, OPEN_LIMIT, storeFaultsApp } from '../store-faults/app.module.js';
import {
  decidedByRedis,
  identifierOf,
  instanceOf,
  PHASES,
  quotaOf,
  runFault,
  type FaultRun,
  type Instance,
} from '../store-faults/fault.scenario.js';
import { startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { startRedisServer, type RedisServer } from '../../support/redis-servers.js';
import { percentile, recordReliabilitySection } from '../../support/measured-figures.js';
import { startLoggedApp } from './support/logged.app.js';
import { restartReport } from './support/restart.report.js';
import { RecordingLogger } from './support/recording.logger.js';

const TIMEOUT_MS = 100;
/** The budget for the 99th percentile of answers; the slowest is reported, not asserted. */
const P99_BUDGET_MS = TIMEOUT_MS + 50;
const DOWN_MS = 2_000;
/** Reconnect back-off (≤ 0.5 s after 2 s down) + breaker cooldown (1 s) + a loaded machine. */
const RECOVERY_BOUND_MS = 3_000;
/** The start waits 2 s for a first connection; a loaded machine may add a little. */
const START_BOUND_MS = 4_000;
const SYNC_BOUND_MS = 3_000;
const PUBLISHED_LIMIT = 7;
/** SluiceModule's default breaker cooldown. */
const COOLDOWN_MS = 1_000;
/**
 * The routes whose answers tell Redis' decisions apart. Not /local: the restart also empties the
 * heartbeats, so until both instances have beaten again each counts one live instance, and its
 * local share is the whole limit, the figures Redis shows.
 */
const JUDGED = ['allow', 'deny'] as const;

const apps: RunningApp[] = [];
const servers: RedisServer[] = [];
const rows: string[] = [];

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await closeAll();
  await Promise.all(servers.map((server) => server.stop()));
  if (rows.length === 2) {
    await recordReliabilitySection('redis-restart', restartReport(rows, TIMEOUT_MS, DOWN_MS));
  }
});

async function ownRedis(): Promise<RedisServer> {
  const server = await startRedisServer();
  servers.push(server);
  return server;
}

async function until(what: string, probe: () => boolean, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!probe()) {
    if (performance.now() - started > withinMs)
      throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - started;
}

const libraries = async (redis: Redis): Promise<string[]> =>
  ((await redis.call('FUNCTION', 'LIST')) as unknown[][]).map((library) => String(library[1]));

describe('Redis killed with SIGKILL under load and restarted empty on the same port', () => {
  let server: RedisServer;
  let instances: Instance[];
  let run: FaultRun;
  let librariesBefore: string[];

  beforeAll(async () => {
    server = await ownRedis();
    const options = { redis: server.url, prefix: uniquePrefix('restart'), timeoutMs: TIMEOUT_MS };
    const express = await startApp('express', storeFaultsApp(options));
    const fastify = await startApp('fastify', storeFaultsApp(options));
    apps.push(express, fastify);
    instances = [instanceOf('express', express), instanceOf('fastify', fastify)];
    const bus = (instance: Instance) => instance.running.app.get(PolicyBus);
    await until(
      'two live instances',
      () => instances.every((i) => bus(i).liveInstances === 2),
      5_000,
    );
    const fault = {
      begin: async () => {
        const probe = connectRedis(server.url);
        librariesBefore = await libraries(probe);
        probe.disconnect();
        await server.kill();
      },
      end: () => server.restart(),
    };
    run = await runFault(instances, fault, DOWN_MS, `restart-${Date.now()}`);
  }, 60_000);

  it('answers every request by its policy’s onStoreError meanwhile: no 500, 99 % within budget', () => {
    const { answers } = run;
    expect(answers.filter((answer) => answer.status === 0).map((a) => a.error)).toEqual([]);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200, 429]));
    expect(
      percentile(
        answers.map((a) => a.ms),
        99,
      ),
      '99th percentile answer, ms',
    ).toBeLessThanOrEqual(P99_BUDGET_MS);
    const failed = answers.filter((answer) => !decidedByRedis(answer));
    const outcome = (answer: (typeof answers)[number]) =>
      `${answer.route} ${answer.status} ${answer.headers.get('retry-after')}`;
    const outcomes = new Set(failed.filter((a) => a.route !== 'local').map(outcome));
    expect(outcomes).toEqual(new Set(['allow 200 null', 'deny 429 1']));
    for (const { adapter } of instances) {
      const local = failed.filter((a) => a.route === 'local' && a.adapter === adapter);
      const outage = local.filter((answer) => answer.phase === 'outage');
      expect(outage.filter((answer) => answer.status === 200)).toHaveLength(LOCAL_LIMIT / 2);
      expect(new Set(local.map(quotaOf))).toEqual(new Set([LOCAL_LIMIT / 2]));
    }
  });

  it('reloads its functions into the empty server and decides in Redis again, counting from zero', async () => {
    const sluiceLibrary = (names: string[]) => names.some((name) => name.startsWith('sluice_'));
    expect(sluiceLibrary(librariesBefore)).toBe(true);
    expect(sluiceLibrary(await libraries(connectRedis(server.url)))).toBe(true);
    const { answers, passAt } = run;
    let recoveryMs = 0;
    for (const instance of instances) {
      expect(instance.connection.breakerState).toBe('closed');
      for (const route of JUDGED) {
        const first = answers.find(
          (a) =>
            a.adapter === instance.adapter &&
            a.route === route &&
            a.sentAt >= passAt &&
            decidedByRedis(a),
        );
        expect(first, `${instance.adapter} /${route} decided in Redis again`).toBeDefined();
        recoveryMs = Math.max(recoveryMs, first!.sentAt + first!.ms - passAt);
      }
    }
    expect(recoveryMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);

    const label = answers[0]!.identifier.replace(/-before$/, '');
    const after = identifierOf(label, 'after');
    const totals = { admitted: 0, counted: 0, inDoubt: 0 };
    for (const route of JUDGED) {
      for (const phase of PHASES.filter((each) => each !== 'after')) {
        // Lost with the server's memory; and nothing sent while it was gone ran later.
        expect(run.counted.get(`${route} ${identifierOf(label, phase)}`), phase).toBe(0);
      }
      const admitted = answers.filter(
        (a) => a.route === route && a.identifier === after && a.status === 200 && decidedByRedis(a),
      ).length;
      const counted = run.counted.get(`${route} ${after}`)!;
      const inDoubt = run.keysInDoubt.filter((key) => key.includes(`:${after}}`)).length;
      expect(counted, `/${route} after`).toBeGreaterThanOrEqual(admitted);
      expect(counted - admitted, `/${route} after: counted unanswered`).toBeLessThanOrEqual(
        inDoubt,
      );
      totals.admitted += admitted;
      totals.counted += counted;
      totals.inDoubt += inDoubt;
    }
    const failMode = answers.filter((answer) => !decidedByRedis(answer)).length;
    const worst = Math.max(...answers.map((answer) => answer.ms));
    rows.push(
      `| redis-server killed (SIGKILL) under load, down ${DOWN_MS / 1000} s, restarted empty on its port | ${answers.length} requests: ${failMode} decided by onStoreError, 0 errors (no 500), worst ${worst.toFixed(0)} ms, 99th percentile ${percentile(
        answers.map((answer) => answer.ms),
        99,
      ).toFixed(
        0,
      )} ms; breaker opened on both instances; the function library was loaded again; Redis decided every route again ${recoveryMs.toFixed(0)} ms after the restart; since the restart Redis answered ${totals.admitted} admissions and counted ${totals.counted} (calls in doubt: ${totals.inDoubt}) | 0 |`,
    );
  });
});

describe('an instance started while Redis is down', () => {
  it('starts, says so loudly, enforces its code defaults, and syncs the published policies once Redis is up', async () => {
    const server = await ownRedis();
    await server.kill();
    const prefix = uniquePrefix('cold');
    const logger = new RecordingLogger();
    const started = performance.now();
    const app = await startLoggedApp(
      'fastify',
      storeFaultsApp({ redis: server.url, prefix, timeoutMs: TIMEOUT_MS }),
      logger,
    );
    apps.push(app);
    const startMs = performance.now() - started;
    expect(startMs).toBeLessThanOrEqual(START_BOUND_MS);
    expect(logger.lines.filter((line) => line.startsWith('error '))).toContainEqual(
      expect.stringContaining('REDIS IS UNREACHABLE at start'),
    );
    const bus = app.app.get(PolicyBus);
    const engine = app.app.get(SluiceEngine);
    expect([bus.version, bus.synced, engine.policies.get('allow')?.limit]).toEqual([
      0,
      false,
      OPEN_LIMIT,
    ]);
    /** Each answer's status and RateLimit-Policy, which only a decision in Redis carries here. */
    const statuses = async (route: string, times: number) => {
      const answers: string[] = [];
      for (let i = 0; i < times; i++) {
        const response = await fetch(`${app.url}/${route}`, { headers: { 'x-client': 'cold' } });
        await response.arrayBuffer();
        const policy = response.headers.get('ratelimit-policy');
        answers.push(policy === null ? String(response.status) : `${response.status} ${policy}`);
      }
      return answers;
    };
    expect(await statuses('allow', 3)).toEqual(['200', '200', '200']);
    expect(await statuses('deny', 3)).toEqual(['429', '429', '429']);

    await server.restart();
    const upAt = performance.now();
    const writer = connectRedis(server.url);
    const allow = {
      name: 'allow',
      algorithm: 'fixed-window',
      limit: PUBLISHED_LIMIT,
      periodMs: 3_600_000,
      key: 'header:x-client',
      source: 'admin',
      version: 3,
    };
    await writer.hset(`${prefix}:policies`, {
      '@version': '3',
      '@enforcement': 'on',
      allow: JSON.stringify(allow),
    });
    await writer.set(`${prefix}:policies:version`, '3');
    await writer.publish(`${prefix}:policies`, JSON.stringify({ version: 3, name: 'allow' }));
    await until('the published snapshot applied', () => bus.version === 3, SYNC_BOUND_MS);
    const syncMs = performance.now() - upAt;
    expect(engine.policies.get('allow')?.limit).toBe(PUBLISHED_LIMIT);
    // The breaker opened on the requests above; after its cooldown the next request probes.
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS));
    const published = await statuses('allow', PUBLISHED_LIMIT + 1);
    expect(published).toEqual([
      ...Array<string>(PUBLISHED_LIMIT).fill(`200 "allow";q=${PUBLISHED_LIMIT};w=3600`),
      `429 "allow";q=${PUBLISHED_LIMIT};w=3600`,
    ]);
    expect(app.app.get(SluiceConnection).breakerState).toBe('closed');
    expect(await libraries(writer)).toContainEqual(expect.stringMatching(/^sluice_/));
    rows.push(
      `| instance started with its redis-server down, which then started empty | started in ${startMs.toFixed(0)} ms and logged \`REDIS IS UNREACHABLE at start\` at error level; policy version 0 (code defaults), \`/allow\` 200 and \`/deny\` 429 by onStoreError; a snapshot written and published once Redis was up applied ${syncMs.toFixed(0)} ms after the restart, its limit (${PUBLISHED_LIMIT}) enforced from Redis | 0 |`,
    );
  });
});
