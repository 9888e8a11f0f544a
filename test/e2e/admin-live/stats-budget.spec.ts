// What a viewer's widest chart costs Redis: a week of hour roll-ups of 20 policies, read by one
// GET /stats?hours=168, measured with INFO commandstats on a Redis server of this file's own.
// Budget: 10 ms of Redis time for the whole request (docs/security.md).
import type { StatsSeries } from '@sluice/admin';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisDecisionStats, type PolicyCounts } from '@sluice/nest/internals';
import { adminClient } from '../admin-api/admin.client.js';
import { startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { startRedisServer, type RedisServer } from '../../support/redis-servers.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { adminApp } from '../admin-api/app.module.js';
import { quota } from '../admin-api/policy.bodies.js';

const BUDGET_USEC = 10_000;
const HOUR = 3_600_000;
const POLICIES = 20;

/** `allowed` decisions of `policy` in the hour holding `at`, every other count 0. */
function allowedIn(policy: string, at: number, allowed: number): PolicyCounts {
  return {
    policy,
    at,
    counts: { allowed, rejected: 0, blocked: 0, delayed: 0, shadowRejected: 0, storeError: 0 },
  };
}

let server: RedisServer;
let redis: Redis;
let database: TestDatabase;
let app: RunningApp;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
  database = await createTestDatabase();
  const prefix = uniquePrefix('stats-budget');
  app = await startApp(
    'express',
    adminApp({ redisUrl: server.url, prefix, databaseUrl: database.url }),
  );
  const api = adminClient(`${app.url}/sluice/api`);
  // 20 policies in force: the app's two and 18 more; a week of counts for each, every hour.
  for (let index = 0; index < POLICIES - 2; index++) {
    expect((await api('PUT', `/policies/extra-${index}`, { body: quota(10) })).status).toBe(201);
  }
  const stats = new RedisDecisionStats(redis, prefix);
  const now = Date.now();
  const names = [
    ...Array.from({ length: POLICIES - 2 }, (_, i) => `extra-${i}`),
    'reply',
    'browse',
  ];
  for (let hour = 0; hour < 168; hour++) {
    await stats.add(names.map((policy) => allowedIn(policy, now - hour * HOUR, 3)));
  }
}, 120_000);

afterAll(async () => {
  await app?.close();
  await database?.drop();
  redis?.disconnect();
  await server?.stop();
});

/** Every command's Redis time since the last CONFIG RESETSTAT, µs. */
async function redisTimeUsec(): Promise<number> {
  const info = await redis.info('commandstats');
  return [...info.matchAll(/^cmdstat_[^:]+:calls=\d+,usec=(\d+),/gm)]
    .map((match) => Number(match[1]))
    .reduce((sum, usec) => sum + usec, 0);
}

describe('GET /stats over a week', () => {
  it(`reads 20 policies' week from hour roll-ups within ${BUDGET_USEC / 1000} ms of Redis time`, async () => {
    const api = adminClient(`${app.url}/sluice/api`);
    await redis.config('RESETSTAT');
    const week = await api<StatsSeries>('GET', '/stats?hours=168', { as: 'viewer' });
    const usec = await redisTimeUsec();
    expect(week.status).toBe(200);
    expect(week.body.resolution).toBe('hour');
    expect(week.body.points).toHaveLength(168);
    expect(Object.keys(week.body.points.at(-2)!.policies)).toHaveLength(POLICIES);
    console.log(`GET /stats?hours=168, ${POLICIES} policies: ${usec} µs of Redis time`);
    expect(usec).toBeLessThanOrEqual(BUDGET_USEC);
  });
});
