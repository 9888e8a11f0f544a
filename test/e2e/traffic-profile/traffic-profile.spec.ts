// The traffic profile in Redis (traffic-profile.lua) keeps what its twin keeps in memory
// (local-traffic.profile.ts) on the same counts, on one Redis and on a Cluster; and a known
// traffic counted by the identifier tally reads back as docs/algorithms.md, "Traffic profiles",
// states.
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, PolicyRegistry } from '@sluice/nest/internals';
import { memberOf } from '@sluice/nest/src/stats/identifier-stats.store.js';
import { IdentifierTally } from '@sluice/nest/src/stats/identifier.tally.js';
import { LocalIdentifierStats } from '@sluice/nest/src/stats/local-identifier.stats.js';
import { LocalTrafficProfile } from '@sluice/nest/src/stats/local-traffic.profile.js';
import { summarizeProfile } from '@sluice/nest/src/stats/profile.summary.js';
import { RedisTrafficProfile } from '@sluice/nest/src/stats/redis-traffic.profile.js';
import {
  fieldOf,
  fixedWindows,
  FOLD_AFTER_MS,
  HOUR_MS,
  identifierHash,
  profileWindowsOf,
  windowAt,
  type ProfileWindows,
} from '@sluice/nest/src/stats/traffic-profile.js';
import type {
  ProfileCount,
  ProfileLimits,
  ProfileRecord,
} from '@sluice/nest/src/stats/traffic-profile.store.js';
import { decisionOf, partDecision } from '@sluice/nest/src/testing/decision.fixture.js';
import { knownTraffic, truePercentile } from '@sluice/nest/src/testing/known-traffic.fixture.js';
import { seededRandom } from '@sluice/nest/src/testing/seeded-random.fixture.js';
import {
  closeAll,
  connectCluster,
  connectRedis,
  filePrefixes,
} from '../../support/redis.clients.js';

const prefixes = filePrefixes('traffic-profile');
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

const T0_MS = 1_700_000_000_000 - (1_700_000_000_000 % HOUR_MS);
const TIERS = ['', 'gold', 'free'];

describe.each([
  ['one Redis', () => redis],
  ['a Redis Cluster', () => cluster],
] as const)('the traffic profile on %s', (_, client) => {
  it.each([
    ['every identifier kept', { sampleBound: 10_000, retentionMs: 86_400_000 }, 11],
    ['windows sampled, then a light hour', { sampleBound: 100, retentionMs: 86_400_000 }, 23],
  ] as const)('keeps what its twin keeps: %s', async (_label, limits: ProfileLimits, seed) => {
    const windows = fixedWindows(10_000);
    const { fromRedis, levels, announced } = await twinsAgree(
      client(),
      limits,
      seed,
      windows,
      T0_MS,
    );
    expect(fromRedis.hours.length).toBeGreaterThan(0);
    if (limits.sampleBound === 100) {
      // It sampled, and came down again once the traffic thinned, each step announced first.
      expect(Math.max(...levels)).toBeGreaterThanOrEqual(2);
      expect(fromRedis.level).toBeLessThan(Math.max(...levels));
      expect(announced).toBeGreaterThan(0);
    } else {
      expect(new Set(levels)).toEqual(new Set([0]));
    }
  });

  it('keeps what its twin keeps for calendar days in a time zone, across local midnight', async () => {
    // Kolkata's midnight is 18:30 UTC: its days end within an hour, not on one.
    const windows = profileWindowsOf({
      periodMs: 25 * HOUR_MS,
      calendar: { unit: 'day', timeZone: 'Asia/Kolkata', anchorDay: null },
    });
    const midnight = Date.UTC(2026, 10, 30, 18, 30);
    const limits = { sampleBound: 100, retentionMs: 86_400_000 };
    const { fromRedis, levels } = await twinsAgree(
      client(),
      limits,
      31,
      windows,
      midnight - 120_000,
    );
    // The day that ended at local midnight folded into the hour it ended in; the next is open.
    expect(fromRedis.hours.map((each) => each.hour)).toEqual([
      Math.floor((midnight - 1) / HOUR_MS),
    ]);
    expect(Math.max(...levels)).toBeGreaterThanOrEqual(1);
  });

  it('reads a known traffic counted by the identifier tally within its bucket', async () => {
    const clock = new ManualClock(T0_MS * 1000);
    const policies = new PolicyRegistry();
    policies.set({ name: 'api', algorithm: 'fixed-window', limit: 100, periodMs: 60_000 });
    const profile = new RedisTrafficProfile(client(), prefixes.next());
    const tally = new IdentifierTally(
      new LocalIdentifierStats(clock.now),
      clock.now,
      profile,
      policies,
    );
    const traffic = knownTraffic(4);
    const decision = decisionOf(partDecision('api', true));
    for (const counts of traffic.counts) {
      const start = clock.now();
      traffic.identifiers.forEach((identifier, at) => {
        for (let n = 0; n < counts[at]!; n++) tally.count(decision, 'ip', identifier);
      });
      await tally.flush();
      clock.set(start + 60_000_000);
    }
    clock.advance((FOLD_AFTER_MS + 1) * 1000);
    await tally.flush();
    const nowMs = clock.now() / 1000;
    const hour = Math.floor(nowMs / HOUR_MS);
    const record = await profile.read('api', fixedWindows(60_000), hour - 1, hour, nowMs);
    const summary = summarizeProfile(record, fixedWindows(60_000), hour - 1, hour, null);

    expect(summary).toMatchObject({ windows: 4, identifierWindows: 4_000, share: 1 });
    expect(summary.requests).toBe(traffic.counts.flat().reduce((a, b) => a + b, 0));
    const truth = truePercentile(traffic, 0.99);
    expect(summary.percentiles!.p99).toBeGreaterThanOrEqual(truth);
    expect(summary.percentiles!.p99).toBeLessThanOrEqual(Math.floor(truth * (1 + 1 / 16)));
    expect(summary.busiest[0]?.identifier).toMatch(/^abuser-/);
  });
});

/**
 * Three instances send counts once a second for 4 minutes from `startMs`; the identifiers thin
 * out after 2, and some counts arrive after their window folded. Redis and the twin answer the
 * same levels at every call and keep the same hours, read once the last window folded.
 */
async function twinsAgree(
  client: Redis | Cluster,
  limits: ProfileLimits,
  seed: number,
  windows: ProfileWindows,
  startMs: number,
): Promise<{ fromRedis: ProfileRecord; levels: number[]; announced: number }> {
  const random = seededRandom(seed);
  const redisProfile = new RedisTrafficProfile(client, prefixes.next(), limits);
  const localProfile = new LocalTrafficProfile(limits);
  let nowMs = startMs;
  const levels: number[] = [];
  let announced = 0;
  for (let second = 0; second < 240; second++) {
    nowMs += 1_000;
    const identifiers = second < 120 ? 400 : 20;
    for (let instance = 0; instance < 3; instance++) {
      const counts: ProfileCount[] = [];
      for (let n = 0; n < 30; n++) {
        const at = Math.floor(random() * identifiers);
        const member = memberOf({ keyKind: 'ip', identifier: `10.9.0.${at}` });
        const late = random() < 0.02;
        counts.push({
          policy: 'api',
          windows,
          window: windowAt(windows, late ? nowMs - 30_000 : nowMs),
          field: fieldOf(identifierHash(member), TIERS[at % 3]!, member),
          count: 1 + Math.floor(random() * (at % 7 === 0 ? 300 : 5)),
        });
      }
      const [fromRedis, fromLocal] = await Promise.all([
        redisProfile.record(counts, nowMs),
        localProfile.record(counts, nowMs),
      ]);
      expect([...fromRedis]).toEqual([...fromLocal]);
      for (const sampling of fromRedis.values()) {
        levels.push(sampling.level);
        if (sampling.nextFrom >= 0) announced++;
      }
    }
  }
  const fromHour = Math.floor(startMs / HOUR_MS);
  const readAt = nowMs + 10_000 + FOLD_AFTER_MS;
  const [fromRedis, fromLocal] = await Promise.all([
    redisProfile.read('api', windows, fromHour, fromHour + 1, readAt),
    localProfile.read('api', windows, fromHour, fromHour + 1, readAt),
  ]);
  expect(fromRedis).toEqual(fromLocal);
  expect(fromRedis.late).toBeGreaterThan(0);
  return { fromRedis, levels, announced };
}
