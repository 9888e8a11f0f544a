import { PolicyBus, type PolicySnapshot } from '@sluice/nest/internals';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import {
  closeAppsAfterEach,
  fetchTimes,
  uniquePrefix,
  type RunningApp,
} from '../../support/nest-app.js';
import { AdminOnlyController, busApp, CODE_LIMIT, ReplyController } from './app.module.js';

afterAll(closeAll);

const reply = (version: number, limit: number) => ({
  name: 'reply',
  algorithm: 'fixed-window',
  limit,
  periodMs: 3_600_000,
  source: 'admin',
  version,
});
const snapshot = (version: number, policies: unknown[], enforcement = true): PolicySnapshot => ({
  version,
  enforcement,
  policies,
});

const busOf = (running: RunningApp) => running.app.get(PolicyBus);
const admitted = async (url: string, times: number) =>
  (await fetchTimes(url, times)).filter((response) => response.status === 200).length;

/** Polls `probe` every 20 ms until it holds, failing after `withinMs`. */
async function eventually(probe: () => boolean | Promise<boolean>, withinMs: number) {
  const deadline = Date.now() + withinMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const topologies: Array<[string, () => Redis | Cluster]> = [
  ['a single Redis', () => connectRedis()],
  ['a Redis Cluster', () => connectCluster()],
];

describe.each(topologies)('policy bus on %s', (_, connect) => {
  const start = closeAppsAfterEach();
  const twoInstances = async (controllers = [ReplyController]) => {
    const prefix = uniquePrefix('bus');
    const apps: [RunningApp, RunningApp] = [
      await start('express', busApp({ redis: connect(), prefix }, controllers)),
      await start('fastify', busApp({ redis: connect(), prefix }, controllers)),
    ];
    return { prefix, apps, buses: [busOf(apps[0]), busOf(apps[1])] as const };
  };

  it('enforces the code default until a snapshot is published, then the published limit on every instance', async () => {
    const { apps } = await twoInstances();
    expect(await admitted(`${apps[1].url}/reply`, CODE_LIMIT + 1)).toBe(CODE_LIMIT);

    await busOf(apps[0]).publish(snapshot(1, [reply(1, 5)]), 'reply');
    await eventually(() => apps.every((app) => busOf(app).version === 1), 1000);
    // Instance 1 already admitted CODE_LIMIT in this window: 5 in all now.
    expect(await admitted(`${apps[1].url}/reply`, 5)).toBe(5 - CODE_LIMIT);
  });

  it('never moves a version backwards: stale and repeated snapshots are ignored', async () => {
    const {
      apps,
      buses: [a, b],
    } = await twoInstances();
    await a.publish(snapshot(5, [reply(5, 10)]), 'reply');
    await eventually(() => b.version === 5, 1000);
    await a.publish(snapshot(3, [reply(3, 1)]), 'reply');
    await a.publish(snapshot(5, [reply(5, 1)]), 'reply');
    expect(await a.storedVersion()).toBe(5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(b.version).toBe(5);
    expect(await admitted(`${apps[1].url}/reply`, 10)).toBe(10);
  });

  it('keeps the last good definition of a policy it cannot load, takes later changes, and reports why', async () => {
    const {
      apps,
      buses: [a, b],
    } = await twoInstances();
    await a.publish(snapshot(1, [reply(1, 4)]), 'reply');
    await eventually(() => b.version === 1, 1000);
    // A field of a later release, as a restored revision or a newer admin might hold.
    await expect(
      a.publish(snapshot(2, [{ ...reply(2, 9), quota: { calendar: 'month' } }]), 'reply'),
    ).resolves.toBeUndefined();
    await eventually(() => b.lastError !== null, 1000);
    expect(b.version).toBe(2);
    expect(b.lastError).toMatch(/snapshot v2 applied without a policy .*"reply".*quota/);
    expect(await admitted(`${apps[1].url}/reply`, 5)).toBe(4);
    await eventually(
      async () =>
        (await b.instances()).some((beat) => beat.id === b.instanceId && beat.lastError !== null),
      1000,
    );
    // The next change reaches it: nothing is stuck behind the policy it could not load.
    await a.publish(snapshot(3, [reply(3, 6)]), 'reply');
    await eventually(() => b.version === 3 && b.lastError === null, 1000);
  });

  it('catches up by polling when a notice was never received', async () => {
    const { prefix, apps } = await twoInstances();
    const writer = connect();
    // Stored as an admin would, but with no PUBLISH: only the version poll can find it.
    await writer.hset(`${prefix}:policies`, {
      '@version': '7',
      '@enforcement': 'on',
      reply: JSON.stringify(reply(7, 9)),
    });
    await writer.set(`${prefix}:policies:version`, '7');
    await eventually(() => apps.every((app) => busOf(app).version === 7), 2000);
    expect(await admitted(`${apps[0].url}/reply`, 10)).toBe(9);
  });

  it('the enforcement switch lets every request pass while off, and limits again when on', async () => {
    const {
      apps,
      buses: [a, b],
    } = await twoInstances();
    await a.publish(snapshot(1, [reply(1, 1)], false), null);
    await eventually(() => !b.enforcing, 1000);
    const passed = await fetchTimes(`${apps[1].url}/reply`, 4);
    expect(passed.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(passed.some((response) => response.headers.has('ratelimit'))).toBe(false);

    await a.publish(snapshot(2, [reply(2, 1)], true), null);
    await eventually(() => b.enforcing, 1000);
    expect((await fetchTimes(`${apps[1].url}/reply`, 2)).map((r) => r.status)).toEqual([200, 429]);
  });

  it('reports every instance with the version it applied', async () => {
    const {
      apps,
      buses: [a, b],
    } = await twoInstances();
    await a.publish(snapshot(4, [reply(4, 3)]), 'reply');
    await eventually(async () => {
      const beats = await a.instances();
      const mine = beats.filter((beat) => beat.id === a.instanceId || beat.id === b.instanceId);
      return mine.length === 2 && mine.every((beat) => beat.policyVersion === 4);
    }, 2000);
    const beat = (await a.instances()).find((each) => each.id === b.instanceId);
    expect(beat).toMatchObject({ pid: process.pid, lastError: null, policyVersion: 4 });
    expect(Date.parse(beat!.lastSeen)).toBeGreaterThanOrEqual(Date.parse(beat!.startedAt));
    await apps[1].close();
    expect((await a.instances()).some((each) => each.id === b.instanceId)).toBe(false);
  });

  it('starts with a policy only the stored snapshot defines', async () => {
    const prefix = uniquePrefix('bus');
    const writer = connect();
    await writer.hset(`${prefix}:policies`, {
      '@version': '2',
      '@enforcement': 'on',
      search: JSON.stringify({ ...reply(2, 1), name: 'search' }),
    });
    const app = await start('express', busApp({ redis: connect(), prefix }, [AdminOnlyController]));
    expect((await fetchTimes(`${app.url}/search`, 2)).map((r) => r.status)).toEqual([200, 429]);
  });
});

describe('policy bus without Redis', () => {
  const start = closeAppsAfterEach();

  it('applies what this process publishes', async () => {
    const app = await start('express', busApp({ prefix: uniquePrefix('bus') }));
    await busOf(app).publish(snapshot(1, [reply(1, 1)]), 'reply');
    expect((await fetchTimes(`${app.url}/reply`, 2)).map((r) => r.status)).toEqual([200, 429]);
    expect((await busOf(app).instances()).map((beat) => beat.policyVersion)).toEqual([1]);
  });

  it('refuses to start when a policy is defined nowhere', async () => {
    await expect(
      start('express', busApp({ prefix: uniquePrefix('bus') }, [AdminOnlyController])),
    ).rejects.toThrow(/"search" \(used by AdminOnlyController.search\)/);
  });
});
