// Sluice on node-redis (the `redis` package), 5 and 4, passed to SluiceModule and RedisStore as
// an app would: decisions on the standalone Redis and the Cluster, penalties through the stream,
// the policy bus with its notices, the per-second stats (docs/guide.md, "The Redis connection").
// The twins' conformance through node-redis is in ../engine/conformance.spec.ts.
import type { PenaltyEvent } from '@sluice/nest/internals';
import {
  RedisStore,
  SluiceEngine,
  type NodeRedisClient,
  type NodeRedisCluster,
} from '@sluice/nest/engine';
import { RedisPenaltyStream } from '@sluice/nest/src/penalty/redis-penalty.stream.js';
import { heartbeat } from '@sluice/nest/src/bus/instance.heartbeat.js';
import { RedisPolicyChannel } from '@sluice/nest/src/bus/redis.channel.js';
import type { ChangeNotice } from '@sluice/nest/src/bus/policy-snapshot.js';
import { fromNodeRedis } from '@sluice/nest/src/store/node-redis.client.js';
import { LocalTrafficProfile } from '@sluice/nest/src/stats/local-traffic.profile.js';
import { RedisTrafficProfile } from '@sluice/nest/src/stats/redis-traffic.profile.js';
import { fieldOf, fixedWindows, identifierHash } from '@sluice/nest/src/stats/traffic-profile.js';
import { createClient as createClient5, createCluster as createCluster5 } from 'redis';
import { createClient as createClient4, createCluster as createCluster4 } from 'redis4';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { admittedOfEach } from '../../support/engine/admitted-of-each.js';
import { closeAppsAfterEach } from '../../support/nest-app.js';
import { closeAll, clusterNodes, connectRedis, filePrefixes } from '../../support/redis.clients.js';
import { LIMIT, penaltiesApp } from '../penalties/app.module.js';

const prefixes = filePrefixes('nredis');
const opened: Array<NodeRedisClient | NodeRedisCluster> = [];

afterAll(async () => {
  await prefixes.removeAll(connectRedis());
  await Promise.all(
    opened.map(async (client) => {
      await (client.close?.() ?? client.quit?.())?.catch(() => undefined);
    }),
  );
  await closeAll();
});

interface Factories {
  createClient(options: { url: string }): NodeRedisClient;
  createCluster(options: { rootNodes: Array<{ url: string }> }): NodeRedisCluster;
}

/** A major's client and cluster, connected as an app connects them before passing them in. */
function versionOf(major: number, factories: Factories) {
  const connected = async <C extends NodeRedisClient | NodeRedisCluster>(client: C): Promise<C> => {
    client.on('error', () => undefined);
    opened.push(client);
    await client.connect();
    return client;
  };
  return {
    major,
    single: () => connected(factories.createClient({ url: inject('redisUrl') })),
    cluster: () =>
      connected(
        factories.createCluster({
          rootNodes: clusterNodes().map((node) => ({ url: `redis://${node.host}:${node.port}` })),
        }),
      ),
  };
}

const VERSIONS = [
  versionOf(5, { createClient: createClient5, createCluster: createCluster5 }),
  versionOf(4, { createClient: createClient4, createCluster: createCluster4 }),
];

const startApp = closeAppsAfterEach();

async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(VERSIONS)('Sluice on a node-redis $major client', ({ single, cluster }) => {
  it('decides exactly, sends the block through the penalty stream, and counts the second', async () => {
    const client = await single();
    const name = prefixes.next();
    const { url } = await startApp('express', penaltiesApp({ redis: client, prefix: name }));
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 3; i++) {
      const response = await fetch(`${url}/login`, { headers: { 'x-user': 'mallory' } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429, 429]);

    const stream = new RedisPenaltyStream(fromNodeRedis(client), name);
    await stream.ensureGroup('admins');
    const events = await until('the block in the stream', async () => {
      const read = await stream.readNew('admins', 'first', 10, 200);
      return read.length === 0 ? undefined : read.map((entry) => entry.event);
    });
    expect(events).toContainEqual(
      expect.objectContaining<Partial<PenaltyEvent>>({
        type: 'block.started',
        policy: 'login',
        identifier: 'mallory',
      }),
    );
    const pending = await stream.readPending('admins', 'first', 10);
    await stream.ack(
      'admins',
      pending.map((entry) => entry.entryId),
    );
    expect(await stream.readPending('admins', 'first', 10)).toEqual([]);
    await stream.close();

    // The instance's per-second counts reach Redis (a pipeline of HINCRBY and PEXPIRE).
    const reader = connectRedis();
    const counted = await until('the second counted in Redis', async () => {
      // The whole keyspace, page by page: the shared server holds other files' keys too.
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await reader.scan(cursor, 'MATCH', `${name}:{stats:login}:s:*`);
        found.push(...keys);
        cursor = next;
      } while (cursor !== '0');
      return found.length === 0 ? undefined : found;
    });
    const totals = await reader.hgetall(counted[0]!);
    expect(Number(totals.allowed ?? 0) + Number(totals.rejected ?? 0)).toBeGreaterThan(0);
  });

  it.each([
    ['a client', single],
    ['a cluster', cluster],
  ] as const)('adds up the traffic profile on %s as its twin does', async (_, connect) => {
    const store = new RedisTrafficProfile(fromNodeRedis(await connect()), prefixes.next());
    const twin = new LocalTrafficProfile();
    const startMs = 1_800_000_000_000;
    const counts = ['a', 'b', 'c'].map((name, at) => ({
      policy: 'api',
      windows: fixedWindows(60_000),
      window: startMs / 60_000,
      field: fieldOf(identifierHash(name), '', `ip\u0000${name}`),
      count: 3 * at + 1,
    }));
    expect(await store.record(counts, startMs)).toEqual(await twin.record(counts, startMs));
    const hour = Math.floor(startMs / 3_600_000);
    const readAt = startMs + 70_000;
    const read = await store.read('api', fixedWindows(60_000), hour, hour, readAt);
    expect(read).toEqual(await twin.read('api', fixedWindows(60_000), hour, hour, readAt));
    expect(read.hours[0]?.top.map((each) => each.count)).toEqual([7, 4, 1]);
  });

  it('writes a snapshot, tells the other instances, and keeps their heartbeats', async () => {
    const name = prefixes.next();
    const writer = new RedisPolicyChannel(fromNodeRedis(await single()), name);
    const reader = new RedisPolicyChannel(fromNodeRedis(await single()), name);
    const notices: ChangeNotice[] = [];
    let subscribed = false;
    await reader.subscribe({
      notice: (notice) => notices.push(notice),
      resubscribed: () => (subscribed = true),
      unblocked: () => undefined,
    });
    await until('the subscription', () => Promise.resolve(subscribed ? true : undefined));
    const policies = [{ name: 'p', algorithm: 'gcra', limit: 3, periodMs: 1_000 }];
    expect(await writer.write({ version: 7, enforcement: true, policies })).toBe(true);
    await until('the notice', async () => {
      await writer.announce({ version: 7, name: 'p' });
      return notices.length > 0 ? true : undefined;
    });
    expect(notices[0]).toMatchObject({ version: 7 });
    expect(await reader.read()).toEqual({ version: 7, enforcement: true, policies });
    expect(await reader.storedVersion()).toBe(7);
    const startedAt = new Date();
    await writer.beat(heartbeat('instance-a', startedAt, 7, null, startedAt));
    expect((await reader.heartbeats()).map((beat) => beat.id)).toEqual(['instance-a']);
    await reader.close();
  });

  it('decides exactly on a Cluster, identifiers spread over its masters, batched per master', async () => {
    const client = await cluster();
    const engine = new SluiceEngine({ store: new RedisStore(client), prefix: prefixes.next() });
    engine.policies.set({
      name: 'spread',
      algorithm: 'sliding-window',
      limit: 2,
      periodMs: 60_000,
    });
    expect(await admittedOfEach(engine, 'spread', 30, 4)).toEqual(Array(30).fill(2));
  });

  it('runs a Nest app on the Cluster through SluiceModule', async () => {
    const client = await cluster();
    const { url } = await startApp(
      'fastify',
      penaltiesApp({ redis: client, prefix: prefixes.next() }),
    );
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const response = await fetch(`${url}/login`, { headers: { 'x-user': 'draco' } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});
