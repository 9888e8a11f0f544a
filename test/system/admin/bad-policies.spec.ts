// An invalid policy is refused with a 400 that names each bad field, and nothing of it is
// written (docs/architecture.md, a policy change). A corpus of bad policies goes to a running demo's admin API; afterwards the
// database and the Redis snapshot are byte for byte what they were.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import {
  ensureDemoBuilt,
  startDemo,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoProcess,
} from '../support/demo-process.js';
import {
  adminCall,
  adminDemoEnv,
  appliedVersion,
  showDemoOutputOnFailure,
} from './support/admin-demo.js';
import { adminTableContents } from './support/admin-tables.js';
import { BAD_REQUESTS, type BadRequest } from './support/bad-policy.corpus.js';

describe('bad policies sent to the admin API', () => {
  let database: TestDatabase;
  let demo: DemoProcess;
  let redis: Redis;
  let prefix: string;

  beforeAll(async () => {
    [database] = await Promise.all([createTestDatabase(), ensureDemoBuilt()]);
    prefix = uniqueDemoPrefix('bad-policies');
    redis = connectRedis(inject('redisUrl'));
    demo = await startDemo(
      adminDemoEnv({ redisUrl: inject('redisUrl'), databaseUrl: database.url, prefix }),
    );
  }, 60_000);

  showDemoOutputOnFailure(() => (demo ? [demo] : []));

  afterAll(async () => {
    await stopAllDemos();
    await closeAll();
    await database?.drop();
  });

  async function redisSnapshot(): Promise<Record<string, unknown>> {
    return {
      policies: await redis.hgetall(`${prefix}:policies`),
      version: await redis.get(`${prefix}:policies:version`),
    };
  }

  function issuesOf(body: Record<string, unknown>): Array<{ field: string; message: string }> {
    return Array.isArray(body.issues)
      ? (body.issues as Array<{ field: string; message: string }>)
      : [];
  }

  async function send(request: BadRequest, replyVersion: number) {
    const body = request.bodyFor?.(replyVersion) ?? request.body;
    return adminCall(demo.url, 'alice', request.method ?? 'PUT', request.path, {
      ...(typeof body === 'string'
        ? { raw: body, headers: { 'content-type': 'application/json' } }
        : { json: body }),
    });
  }

  it(`refuses ${BAD_REQUESTS.length} bad requests with a 400 naming the field, and writes nothing`, async () => {
    expect(BAD_REQUESTS.length).toBeGreaterThanOrEqual(40);
    const reply = await adminCall(demo.url, 'alice', 'GET', '/policies/reply');
    expect(reply.status, reply.text).toBe(200);
    const replyVersion = reply.body.version as number;
    const tablesBefore = await adminTableContents(database.url);
    expect(Object.keys(tablesBefore)).toHaveLength(5);
    const redisBefore = await redisSnapshot();
    const versionBefore = await appliedVersion(demo.url);

    const wrong: string[] = [];
    for (const request of BAD_REQUESTS) {
      const answer = await send(request, replyVersion);
      const issues = issuesOf(answer.body);
      const named =
        request.field === null ||
        issues.some((issue) => issue.field === request.field) ||
        (issues.length === 0 && String(answer.body.message).includes(request.field));
      if (answer.status !== 400 || !named) {
        wrong.push(`${request.title}: ${answer.status} ${answer.text.slice(0, 300)}`);
      }
    }

    expect(wrong).toEqual([]);
    expect(await adminTableContents(database.url)).toEqual(tablesBefore);
    expect(await redisSnapshot()).toEqual(redisBefore);
    expect(await appliedVersion(demo.url)).toBe(versionBefore);
  }, 120_000);

  it('still accepts a good policy afterwards', async () => {
    const answer = await adminCall(demo.url, 'alice', 'PUT', '/policies/shout', {
      json: { algorithm: 'fixed-window', limit: 3, periodMs: 10_000, key: 'ip', version: 0 },
    });
    expect(answer.status, answer.text).toBe(201);
  });
});
