// Requests decided in Redis are recorded by the identifier tally, kept in a Redis Stream per
// policy, and replayed through the twin of the same rule: on one Redis and on a Cluster, the
// replay refuses exactly what the live rule refused (docs/algorithms.md, "Replay").
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ManualClock,
  PolicyRegistry,
  SluiceEngine,
  replayRecords,
  type PolicyInput,
} from '@sluice/nest/internals';
import { RedisStore } from '@sluice/nest/engine';
import { IdentifierTally } from '@sluice/nest/src/stats/identifier.tally.js';
import { LocalIdentifierStats } from '@sluice/nest/src/stats/local-identifier.stats.js';
import { RedisReplayStore } from '@sluice/nest/src/stats/redis-replay.store.js';
import { batchOf } from '@sluice/nest/src/stats/replay.store.js';
import { RedisTrafficProfile } from '@sluice/nest/src/stats/redis-traffic.profile.js';
import { seededRandom } from '@sluice/nest/src/testing/seeded-random.fixture.js';
import {
  closeAll,
  connectCluster,
  connectRedis,
  filePrefixes,
} from '../../support/redis.clients.js';

const prefixes = filePrefixes('replay');
let redis: Redis;
let cluster: Cluster;
beforeAll(() => {
  redis = connectRedis();
  cluster = connectCluster();
});
afterAll(async () => {
  await prefixes.removeAll(redis);
  await closeAll();
});

const POLICIES: PolicyInput[] = [
  { name: 'window', algorithm: 'fixed-window', limit: 4, periodMs: 10_000, key: 'ip' },
  { name: 'bucket', algorithm: 'gcra', limit: 2, periodMs: 1_000, burst: 3, key: 'ip' },
  { name: 'sliding', algorithm: 'sliding-window', limit: 5, periodMs: 10_000, key: 'ip' },
  // Calendar days in Kolkata; the requests start 20 s before its midnight (18:30 UTC).
  {
    name: 'daily',
    algorithm: 'fixed-window',
    limit: 20,
    calendar: { unit: 'day', timeZone: 'Asia/Kolkata' },
    key: 'ip',
  },
];
const STARTS: Record<string, number> = { daily: Date.UTC(2027, 0, 14, 18, 29, 40) * 1000 };

describe.each([
  ['one Redis', () => redis],
  ['a Redis Cluster', () => cluster],
] as const)('replay on %s', (_, client) => {
  it.each(POLICIES.map((policy) => [policy.name, policy] as const))(
    'refuses exactly what the live %s rule refused',
    async (_name, policy) => {
      const prefix = prefixes.next();
      const clock = new ManualClock(STARTS[policy.name] ?? 1_800_000_000_000_000);
      const engine = new SluiceEngine({
        store: new RedisStore(client(), { clock: clock.now }),
        prefix,
        clock: clock.now,
        policies: [policy],
      });
      const registry = new PolicyRegistry();
      registry.set(policy);
      const replays = new RedisReplayStore(client(), prefix);
      const tally = new IdentifierTally(
        new LocalIdentifierStats(clock.now),
        clock.now,
        new RedisTrafficProfile(client(), prefix),
        registry,
        replays,
      );
      // 20 addresses over 40 s, each second 0 to 3 requests from each, at random moments.
      const random = seededRandom(policy.name.length);
      const start = clock.now();
      for (let second = 0; second < 40; second++) {
        const moments: Array<[number, string]> = [];
        for (let address = 0; address < 20; address++) {
          const count = Math.floor(random() * 4);
          for (let n = 0; n < count; n++) {
            moments.push([Math.floor(random() * 1_000_000), `10.3.0.${address}`]);
          }
        }
        moments.sort((a, b) => a[0] - b[0]);
        for (const [offset, address] of moments) {
          clock.set(start + second * 1_000_000 + offset);
          tally.count(await engine.consume(policy.name, address), 'ip', address);
        }
        await tally.flush();
      }
      const { records } = await replays.read(policy.name, start);
      expect(records.length).toBeGreaterThan(500);
      const parsed = registry.get(policy.name)!;
      const outcome = replayRecords(
        {
          algorithm: parsed.algorithm,
          limit: parsed.limit,
          periodMs: parsed.periodMs,
          burst: parsed.burst,
          segments: parsed.segments,
        },
        records,
        {},
        parsed.calendar,
      );
      expect(outcome.liveRefused).toBeGreaterThan(50);
      expect(outcome).toMatchObject({ newlyRefused: 0, newlyAdmitted: 0 });
      expect(outcome.refused).toBe(outcome.liveRefused);
      // The record expires with the profile's retention (a week) after its last append.
      const ttl = await client().pttl(`${prefix}:{replay:${policy.name}}`);
      expect(ttl).toBeGreaterThan(7 * 86_400_000 - 60_000);
    },
  );

  it('leaves out of a read what is older than the retention before the newest record', async () => {
    const prefix = prefixes.next();
    const store = new RedisReplayStore(client(), prefix, 10_000, 60_000);
    const at = (seconds: number) => 1_800_000_000_000_000 + seconds * 1_000_000;
    await store.append('api', batchOf([{ member: 'ip\u0000a', tier: '', atUs: at(0), live: 'a' }]));
    await store.append(
      'api',
      batchOf([
        { member: 'ip\u0000a', tier: '', atUs: at(90), live: 'a' },
        { member: 'ip\u0000b', tier: 'pro', atUs: at(100), live: 'r' },
      ]),
    );
    const read = await store.read('api', 0);
    expect(read.records.map((record) => [record.member, record.tier, record.live])).toEqual([
      ['ip\u0000a', '', 'a'],
      ['ip\u0000b', 'pro', 'r'],
    ]);
    expect(read.oldestUs).toBe(at(40));
  });

  it("reads the previous release's entries beside the packed ones", async () => {
    const prefix = prefixes.next();
    const store = new RedisReplayStore(client(), prefix);
    const at = 1_800_000_000_000_000;
    // The previous release wrote a line per record under the field `r`.
    await client().xadd(`${prefix}:{replay:api}`, '*', 'r', `${at}\ta\tpro\tip\u00001.2.3.4`);
    await store.append(
      'api',
      batchOf([{ member: 'ip\u00001.2.3.5', tier: '', atUs: at + 5, live: 'r' }]),
    );
    const read = await store.read('api', 0);
    expect(read.records).toEqual([
      { member: 'ip\u00001.2.3.4', tier: 'pro', atUs: at, live: 'a' },
      { member: 'ip\u00001.2.3.5', tier: '', atUs: at + 5, live: 'r' },
    ]);
    expect(read.oldestUs).toBe(at);
    await client().del(`${prefix}:{replay:api}`);
  });
});
