// A policy change (docs/architecture.md): pub/sub loses messages while a subscriber is away, so instances re-sync on
// reconnect and poll the version; they apply only versions newer than their own, and the stored
// snapshot is never replaced by an older one. Measured: a subscriber is kept away for a time
// and instances poll on their own timers, in processes no test clock reaches.
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPolicyChannel } from '@sluice/nest/src/bus/redis.channel.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { startRedisServer, type RedisServer } from '../../support/redis-servers.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import {
  ensureDemoBuilt,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoProcess,
} from '../../system/support/demo-process.js';
import { countStatuses, demoPolicies, send } from '../../system/support/http.js';
import {
  adminCall,
  adminDemoEnv,
  startAdminDemos,
  appliedVersion,
  waitFor,
  showDemoOutputOnFailure,
} from '../../system/admin/support/admin-demo.js';

const INSTANCES = 3;
/** Instances poll the stored version every 5 s (docs/architecture.md, a policy change). */
const POLL_INTERVAL_MS = 5_000;
const CONVERGE_MS = 5_000;
/** How long subscribers are kept away around a change. */
const AWAY_MS = 400;

describe('instances that miss, or get stale or repeated, change notices', () => {
  // A Redis of this file's own: CLIENT KILL TYPE pubsub disconnects every subscriber on it.
  let redisServer: RedisServer;
  let redis: Redis;
  let database: TestDatabase;
  let prefix: string;
  let demos: DemoProcess[] = [];
  let pids: number[] = [];

  beforeAll(async () => {
    [redisServer, database] = await Promise.all([
      startRedisServer(),
      createTestDatabase(),
      ensureDemoBuilt(),
    ]);
    redis = connectRedis(redisServer.url);
    prefix = uniqueDemoPrefix('missed');
    const env = adminDemoEnv({ redisUrl: redisServer.url, databaseUrl: database.url, prefix });
    demos = await startAdminDemos(env, INSTANCES);
    pids = demos.map((demo) => demo.pid);
  }, 90_000);

  showDemoOutputOnFailure(() => demos);

  afterAll(async () => {
    await stopAllDemos();
    await closeAll();
    await Promise.all([redisServer?.stop(), database?.drop()]);
  });

  const writer = (): string => demos[0]!.url;
  const versions = (): Promise<number[]> =>
    Promise.all(demos.map((demo) => appliedVersion(demo.url)));

  /** PUTs the reply policy with `limit`; returns the global version it produced. */
  async function changeReplyLimit(limit: number): Promise<number> {
    const current = await adminCall(writer(), 'alice', 'GET', '/policies/reply');
    const written = await adminCall(writer(), 'alice', 'PUT', '/policies/reply', {
      json: {
        algorithm: 'sliding-log',
        limit,
        periodMs: 60_000,
        key: 'user',
        version: current.body.version,
      },
    });
    expect(written.status, written.text).toBe(200);
    const listed = await adminCall(writer(), 'alice', 'GET', '/policies');
    return listed.body.version as number;
  }

  async function expectEverywhere(version: number, replyLimit: number): Promise<void> {
    for (const demo of demos) {
      expect(await appliedVersion(demo.url)).toBe(version);
      expect((await demoPolicies(demo.url)).reply!.limit).toBe(replyLimit);
    }
  }

  /** Samples every instance's version until `stop` resolves; fails if one ever goes down. */
  async function watchVersionsUntil(stop: Promise<unknown>): Promise<number[][]> {
    const samples: number[][] = [];
    let done = false;
    const finish = (): void => {
      done = true;
    };
    stop.then(finish, finish);
    while (!done) {
      samples.push(await versions());
      await sleep(10);
    }
    samples.push(await versions());
    return samples;
  }

  it('converges within 5 s, without a restart, on a change made while every subscriber was disconnected', async () => {
    let away = true;
    const killing = (async () => {
      while (away) {
        await redis.client('KILL', 'TYPE', 'pubsub');
        await sleep(2);
      }
    })();
    await sleep(AWAY_MS / 2);
    const version = await changeReplyLimit(7);
    const changedAt = Date.now();
    await sleep(AWAY_MS / 2);
    away = false;
    await killing;

    await waitFor(
      `every instance on version ${version}`,
      async () => ((await versions()).every((applied) => applied >= version) ? true : undefined),
      { timeoutMs: CONVERGE_MS - (Date.now() - changedAt) },
    );
    await expectEverywhere(version, 7);
    expect(demos.map((demo) => demo.pid)).toEqual(pids);
  }, 30_000);

  it('ignores old, repeated and malformed notices, and keeps the snapshot from going back', async () => {
    const version = await changeReplyLimit(9);
    await waitFor(
      'every instance on the new version',
      async () => ((await versions()).every((applied) => applied === version) ? true : undefined),
      { timeoutMs: CONVERGE_MS },
    );
    const channel = `${prefix}:policies`;
    const storedBefore = await redis.hgetall(channel);
    const versionBefore = await redis.get(`${channel}:version`);

    const tampering = (async () => {
      for (const notice of [
        { version: version - 1, name: 'reply' },
        { version, name: 'reply' },
        { version, name: 'reply' },
        { version: 1, name: null },
      ]) {
        await redis.publish(channel, JSON.stringify(notice));
      }
      for (const garbage of ['not json', '{"version":-1}', '{"version":"9e99"}', '{}']) {
        await redis.publish(channel, garbage);
      }
      // A slow admin whose older snapshot arrives after the newer one: the guarded write refuses it.
      const lateWriter = new RedisPolicyChannel(redis, prefix);
      const stale = { version: version - 1, enforcement: false, policies: [] };
      expect(await lateWriter.write(stale)).toBe(false);
      expect(await redis.hgetall(channel)).toEqual(storedBefore);
      expect(await redis.get(`${channel}:version`)).toBe(versionBefore);

      // Even a snapshot forced in behind the guard's back is older than what instances hold.
      await redis.del(channel);
      await redis.hset(channel, { '@version': String(version - 1), '@enforcement': 'off' });
      await redis.publish(channel, JSON.stringify({ version: version + 1, name: null }));
      await sleep(500);
      await redis.del(channel);
      await redis.hset(channel, storedBefore);
    })();
    const samples = await watchVersionsUntil(tampering);
    await tampering;

    for (let i = 1; i < samples.length; i++) {
      samples[i]!.forEach((applied, instance) =>
        expect(applied, `instance ${instance}, sample ${i}`).toBeGreaterThanOrEqual(
          samples[i - 1]![instance]!,
        ),
      );
    }
    await expectEverywhere(version, 9);
    // The forced snapshot also switched enforcement off; every instance still limits a new user.
    for (const [i, demo] of demos.entries()) {
      const replies = [];
      for (let n = 0; n <= 9; n++) {
        replies.push(
          await send(`${demo.url}/posts/1/replies`, {
            headers: { 'x-user': `after-tampering-${i}` },
            json: { body: 'still limited?' },
          }),
        );
      }
      expect(countStatuses(replies), demo.url).toEqual({ 201: 9, 429: 1 });
    }
  }, 30_000);

  it('applies a snapshot whose notice was never sent within one polling interval', async () => {
    // A writer that stored the snapshot and died before PUBLISH: only polling can find it.
    const stored = await new RedisPolicyChannel(redis, prefix).read();
    expect(stored).not.toBeNull();
    const next = {
      ...stored!,
      version: stored!.version + 1,
      policies: (stored!.policies as Array<Record<string, unknown>>).map((policy) =>
        policy.name === 'reply' ? { ...policy, limit: 11 } : policy,
      ),
    };
    const writtenAt = Date.now();
    expect(await new RedisPolicyChannel(redis, prefix).write(next)).toBe(true);

    await waitFor(
      `every instance on version ${next.version}`,
      async () =>
        (await versions()).every((applied) => applied === next.version) ? true : undefined,
      { timeoutMs: POLL_INTERVAL_MS + 1_000 },
    );
    console.log(`Snapshot without a notice applied everywhere after ${Date.now() - writtenAt} ms`);
    await expectEverywhere(next.version, 11);
  }, 30_000);
});
