// ioredis 6 speaks RESP3 by default, where some replies change shape (XREADGROUP's streams come as
// a map). Sluice is run here on an ioredis 6 client with the guide's recommended settings, on the
// run's standalone Redis and its Cluster: decisions, penalties through the stream, the policy bus.
// The repository's types are ioredis 5's; an app on ioredis 6 compiles against 6's own.
import type { Cluster, Redis } from 'ioredis';
import { Cluster as Cluster6, Redis as Redis6 } from 'ioredis6';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { SluiceEngine, type PenaltyEvent } from '@sluice/nest/internals';
import { RedisPenaltyStream } from '@sluice/nest/src/penalty/redis-penalty.stream.js';
import { RedisStore } from '@sluice/nest/engine';
import { heartbeat } from '@sluice/nest/src/bus/instance.heartbeat.js';
import { RedisPolicyChannel } from '@sluice/nest/src/bus/redis.channel.js';
import { penaltiesApp, LIMIT } from '../penalties/app.module.js';
import { closeAll, clusterNodes, connectRedis, filePrefixes } from '../../support/redis.clients.js';
import { admittedOfEach } from '../../support/engine/admitted-of-each.js';
import { closeAppsAfterEach } from '../../support/nest-app.js';

const clients: Array<Redis6 | Cluster6> = [];

const prefixes = filePrefixes('io6');

afterAll(async () => {
  const shared = connectRedis();
  await prefixes.removeAll(shared);
  // The Cluster client the tests used is connected: its masters hold the rest, one key at a
  // time since a master's keys span many slots.
  const cluster = clients.find((client) => client instanceof Cluster6);
  for (const node of cluster?.nodes('master') ?? []) {
    const keys = await node.keys(`${prefixes.next().replace(/\d+$/, '')}*`);
    for (const key of keys) await cluster!.del(key);
  }
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  await closeAll();
});

/** The guide's settings for a client passed in ("The Redis connection"). */
function standalone(): Redis6 {
  const client = new Redis6(inject('redisUrl'), {
    commandTimeout: 1_000,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  });
  clients.push(client);
  return client;
}

function cluster(): Cluster6 {
  const client = new Cluster6(clusterNodes(), {
    scaleReads: 'master',
    retryDelayOnFailover: 0,
    redisOptions: {
      commandTimeout: 1_000,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
    },
  });
  clients.push(client);
  return client;
}

const startApp = closeAppsAfterEach();
const prefix = () => prefixes.next();

describe('Sluice on an ioredis 6 client', () => {
  it('speaks RESP3, the protocol whose replies differ', async () => {
    const client = standalone();
    const hello = (await client.call('HELLO')) as unknown[];
    expect(hello[hello.indexOf('proto') + 1]).toBe(3);
  });

  it('decides exactly and sends a block through the penalty stream to a consumer group', async () => {
    const client = standalone();
    const name = prefix();
    const { url } = await startApp(
      'express',
      penaltiesApp({ redis: client as unknown as Redis, prefix: name }),
    );
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 3; i++) {
      const response = await fetch(`${url}/login`, { headers: { 'x-user': 'mallory' } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429, 429]);

    const stream = new RedisPenaltyStream(client as unknown as Redis, name);
    await stream.ensureGroup('admins');
    const deadline = Date.now() + 5_000;
    let events: Array<PenaltyEvent | null> = [];
    while (events.length === 0 && Date.now() < deadline) {
      events = (await stream.readNew('admins', 'first', 10, 200)).map((entry) => entry.event);
    }
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'block.started', policy: 'login', identifier: 'mallory' }),
    );
    // Read and not acknowledged: pending for its consumer, claimable by another.
    const pending = await stream.readPending('admins', 'first', 10);
    expect(pending.map((entry) => entry.event?.type)).toContain('block.started');
    const claimed = await stream.claim('admins', 'second', 0, 10);
    expect(claimed.map((entry) => entry.entryId)).toEqual(pending.map((entry) => entry.entryId));
    await stream.ack(
      'admins',
      claimed.map((entry) => entry.entryId),
    );
    expect(await stream.readPending('admins', 'second', 10)).toEqual([]);
    await stream.close();
  });

  it('writes a policy snapshot and heartbeats that another instance reads back', async () => {
    const name = prefix();
    const writer = new RedisPolicyChannel(standalone() as unknown as Redis, name);
    const reader = new RedisPolicyChannel(standalone() as unknown as Redis, name);
    const policies = [{ name: 'p', algorithm: 'gcra', limit: 3, periodMs: 1_000 }];
    expect(await writer.write({ version: 7, enforcement: true, policies })).toBe(true);
    expect(await reader.read()).toEqual({ version: 7, enforcement: true, policies });
    expect(await reader.storedVersion()).toBe(7);
    const startedAt = new Date();
    await writer.beat(heartbeat('instance-a', startedAt, 7, null, startedAt));
    expect((await reader.heartbeats()).map((beat) => beat.id)).toEqual(['instance-a']);
  });

  it('decides exactly on a Cluster, identifiers spread over its masters', async () => {
    const client = cluster();
    const engine = new SluiceEngine({
      store: new RedisStore(client as unknown as Cluster),
      prefix: prefix(),
    });
    engine.policies.set({
      name: 'spread',
      algorithm: 'sliding-window',
      limit: 2,
      periodMs: 60_000,
    });
    expect(await admittedOfEach(engine, 'spread', 30, 4)).toEqual(Array(30).fill(2));
    // The identifiers' keys landed on every master, not on one.
    const keysPerMaster = await Promise.all(client.nodes('master').map((node) => node.dbsize()));
    expect(keysPerMaster.filter((keys) => keys > 0)).toHaveLength(3);
  });
});
