import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { decisionOf as decision, partDecision } from '../testing/decision.fixture.js';
import { PolicyRegistry } from '../policy/policy.registry.js';
import {
  knownTraffic,
  truePercentile,
  type KnownTraffic,
} from '../testing/known-traffic.fixture.js';
import { IdentifierTally } from './identifier.tally.js';
import { LocalIdentifierStats } from './local-identifier.stats.js';
import { LocalTrafficProfile } from './local-traffic.profile.js';
import { recommendLimit } from './profile.recommendation.js';
import { PROFILE_PERCENTILES, summarizeProfile, type ProfileSummary } from './profile.summary.js';
import { memberOf } from './identifier-stats.store.js';
import {
  firstHourRead,
  fixedWindows,
  FOLD_AFTER_MS,
  HOUR_MS,
  identifierHash,
  profileWindowsOf,
  sampledAt,
  STEPS,
} from './traffic-profile.js';
import {
  levelKey,
  type ProfileCount,
  type ProfileLimits,
  type ProfileSampling,
} from './traffic-profile.store.js';

const WINDOW_MS = 60_000;
const WINDOWS = fixedWindows(WINDOW_MS);
/** A whole hour, so the windows below end in one. */
const T0_MS = 1_700_000_000_000 - (1_700_000_000_000 % HOUR_MS);

const part = (policy: string, allowed: boolean, tier?: string) =>
  partDecision(policy, allowed, tier === undefined ? {} : { tier });

function setUp(limits?: ProfileLimits) {
  const clock = new ManualClock(T0_MS * 1000);
  const policies = new PolicyRegistry();
  policies.set({ name: 'api', algorithm: 'fixed-window', limit: 100, periodMs: 60_000 });
  policies.set({ name: 'burst', algorithm: 'gcra', limit: 10, periodMs: 1_000 });
  const profiles = new LocalTrafficProfile(limits);
  const tally = new IdentifierTally(
    new LocalIdentifierStats(clock.now),
    clock.now,
    profiles,
    policies,
  );
  const read = async (tier: string | null = null): Promise<ProfileSummary> => {
    const nowMs = clock.now() / 1000;
    const hour = Math.floor(nowMs / HOUR_MS);
    const record = await profiles.read('api', WINDOWS, hour - 1, hour, nowMs);
    return summarizeProfile(record, WINDOWS, hour - 1, hour, tier);
  };
  return { clock, tally, read };
}

/**
 * Plays the traffic through the tally: each window's requests of each identifier spread over
 * its first 50 seconds, the tally flushed every 10; then the clock moves past the last fold.
 */
async function play(traffic: KnownTraffic, setup: ReturnType<typeof setUp>): Promise<void> {
  const { clock, tally } = setup;
  const ok = decision(part('api', true));
  for (const counts of traffic.counts) {
    const start = clock.now();
    for (let step = 0; step < 5; step++) {
      clock.set(start + step * 10_000_000);
      traffic.identifiers.forEach((identifier, at) => {
        const due =
          Math.floor(((step + 1) * counts[at]!) / 5) - Math.floor((step * counts[at]!) / 5);
        for (let n = 0; n < due; n++) tally.count(ok, 'ip', identifier);
      });
      await tally.flush();
    }
    clock.set(start + WINDOW_MS * 1000);
  }
  clock.advance((FOLD_AFTER_MS + 1) * 1000);
  await tally.flush();
}

describe('the traffic profile of a known traffic', () => {
  it('finds each percentile within its bucket when every identifier is kept', async () => {
    const traffic = knownTraffic(12);
    const setup = setUp();
    await play(traffic, setup);
    const summary = await setup.read();

    expect(summary).toMatchObject({ windows: 12, identifierWindows: 12_000, share: 1, late: 0 });
    expect(summary.requests).toBe(traffic.counts.flat().reduce((a, b) => a + b, 0));
    expect(summary.max).toBe(Math.max(...traffic.counts.flat()));
    for (const [name, fraction] of Object.entries(PROFILE_PERCENTILES)) {
      const truth = truePercentile(traffic, fraction);
      const found = summary.percentiles![name as keyof typeof PROFILE_PERCENTILES];
      // Never below the truth, at most one bucket (1/16) above.
      expect(found, name).toBeGreaterThanOrEqual(truth);
      expect(found, name).toBeLessThanOrEqual(Math.floor(truth * (1 + 1 / STEPS)));
    }
    // The ten abusive identifiers are the busiest.
    expect(
      summary.busiest.slice(0, 10).every((each) => each.identifier.startsWith('abuser-')),
    ).toBe(true);
  });

  it('stays within a stated tolerance when each window keeps a sample', async () => {
    const traffic = knownTraffic(12, 7);
    const setup = setUp({ sampleBound: 150, retentionMs: 86_400_000 });
    await play(traffic, setup);
    const summary = await setup.read();

    expect(summary.share).toBeGreaterThanOrEqual(8);
    // The sample's estimates: identifier-windows within 15 % of 12 000.
    expect(Math.abs(summary.identifierWindows - 12_000)).toBeLessThanOrEqual(1_800);
    // Each percentile lies between the true ones 3 points of rank either side (p99.9 excepted:
    // a sample of ~1 500 identifier-windows holds one or two of the top 0.1 %).
    for (const name of ['p50', 'p90', 'p99'] as const) {
      const fraction = PROFILE_PERCENTILES[name];
      const low = truePercentile(traffic, Math.max(0, fraction - 0.03));
      const high = truePercentile(traffic, Math.min(1, fraction + 0.03));
      const found = summary.percentiles![name];
      expect(found, name).toBeGreaterThanOrEqual(low);
      expect(found, name).toBeLessThanOrEqual(Math.ceil(high * (1 + 1 / STEPS)));
    }
  });

  it('counts a request refused by another policy, and each tier apart', async () => {
    const setup = setUp();
    const { clock, tally } = setup;
    tally.count(decision(part('api', true), part('burst', false)), 'ip', '10.0.0.1');
    tally.count(decision(part('api', true, 'gold')), 'user', 'ann');
    tally.count(decision(part('api', true, 'gold')), 'user', 'ann');
    await tally.flush();
    clock.advance((WINDOW_MS + FOLD_AFTER_MS) * 1000);
    await tally.flush();

    expect(await setup.read()).toMatchObject({ identifierWindows: 2, requests: 3 });
    expect(await setup.read('gold')).toMatchObject({
      identifierWindows: 1,
      requests: 2,
      busiest: [{ keyKind: 'user', identifier: 'ann', tier: 'gold', most: 2 }],
    });
  });
});

describe('what an instance sends of a sampled profile', () => {
  /** A store that answers a fixed sampling and keeps what it was sent. */
  class Answering extends LocalTrafficProfile {
    sent: ProfileCount[][] = [];
    answer: ProfileSampling = { level: 0, nextLevel: -1, nextFrom: -1 };
    override record(counts: readonly ProfileCount[]): Promise<Map<string, ProfileSampling>> {
      this.sent.push([...counts]);
      return Promise.resolve(new Map([[levelKey('api', WINDOWS), this.answer]]));
    }
  }

  it('sends every count until it has heard, then those its window keeps, at a lower level once announced', async () => {
    const clock = new ManualClock(T0_MS * 1000);
    const policies = new PolicyRegistry();
    policies.set({ name: 'api', algorithm: 'fixed-window', limit: 100, periodMs: 60_000 });
    const store = new Answering();
    const tally = new IdentifierTally(
      new LocalIdentifierStats(clock.now),
      clock.now,
      store,
      policies,
    );
    const ids = Array.from({ length: 64 }, (_, at) => `10.2.0.${at}`);
    const second = async () => {
      for (const id of ids) tally.count(decision(part('api', true)), 'ip', id);
      await tally.flush();
      clock.advance(1_000_000);
    };
    const keptAt = (level: number) =>
      ids.filter((id) =>
        sampledAt(identifierHash(memberOf({ keyKind: 'ip', identifier: id })), level),
      ).length;

    store.answer = { level: 3, nextLevel: -1, nextFrom: -1 };
    await second();
    expect(store.sent.at(-1)).toHaveLength(64);
    await second();
    expect(store.sent.at(-1)).toHaveLength(keptAt(3));
    // Level 2 announced from the next window on: this window's counts still at 3.
    store.answer = { level: 3, nextLevel: 2, nextFrom: T0_MS / WINDOW_MS + 1 };
    await second();
    await second();
    expect(store.sent.at(-1)).toHaveLength(keptAt(3));
    while (clock.now() < (T0_MS + WINDOW_MS - 1_000) * 1000) await second();
    await second();
    expect(store.sent.at(-1)).toHaveLength(keptAt(3));
    // The next window: its counts at 2.
    await second();
    expect(store.sent.at(-1)).toHaveLength(keptAt(2));
    expect(keptAt(2)).toBeGreaterThan(keptAt(3));
    // Heard nothing for more than 1.5 s (nothing sent): every count goes, and is heard again.
    store.answer = { level: 3, nextLevel: -1, nextFrom: -1 };
    clock.advance(2_000_000);
    for (const id of ids) tally.count(decision(part('api', true)), 'ip', id);
    await tally.flush();
    expect(store.sent.at(-1)).toHaveLength(64);
  });
});

describe('a limit recommended from a known traffic', () => {
  it('lands within a bucket of the true percentile and estimates what it refuses', async () => {
    const traffic = knownTraffic(12, 3);
    const setup = setUp();
    await play(traffic, setup);
    const summary = await setup.read();
    const counts = traffic.counts.flat();
    const truly = (limit: number) => ({
      windows: counts.filter((count) => count > limit).length,
      requests: counts.reduce((sum, count) => sum + Math.max(0, count - limit), 0),
    });

    for (const [percentile, headroom] of [
      [0.5, 0],
      [0.9, 0.2],
      [0.99, 0],
      [0.999, 0.5],
    ] as const) {
      const found = recommendLimit(summary, 'fixed-window', 100, percentile, headroom);
      const truth = truePercentile(traffic, percentile);
      expect(found.base).toBeGreaterThanOrEqual(truth);
      expect(found.base).toBeLessThanOrEqual(Math.floor(truth * (1 + 1 / STEPS)));
      expect(found.limit).toBe(Math.ceil(found.base * (1 + headroom)));
      // Identifier-windows exact for a limit below 32, else within 2 % of them; requests within
      // 3 % (counts in a bucket 32 or wider are taken as evenly spread).
      const exact = truly(found.limit);
      const tolerance = found.limit < 32 ? 0 : 0.02;
      expect(Math.abs(found.refused.identifierWindows - exact.windows)).toBeLessThanOrEqual(
        Math.ceil(tolerance * counts.length),
      );
      expect(Math.abs(found.refused.requests - exact.requests)).toBeLessThanOrEqual(
        Math.ceil(0.03 * exact.requests),
      );
    }
    const p99 = recommendLimit(summary, 'gcra', 100, 0.99, 0);
    expect(p99.exact).toBe(false);
    expect(p99.identifiers.every((each) => each.most > p99.limit)).toBe(true);
    // The limit in force (100) the same way: within 3 % of what it truly refused.
    const now = truly(100);
    expect(Math.abs(p99.refusedNow.identifierWindows - now.windows)).toBeLessThanOrEqual(
      Math.ceil(0.03 * now.windows),
    );
  });
});

describe('the profile of a calendar quota', () => {
  it('counts each identifier per calendar month in its time zone and recommends from whole months', async () => {
    // New York's months: October ends at 04:00 UTC (summer time), November at 05:00.
    const october = Date.UTC(2026, 9, 1, 4);
    const november = Date.UTC(2026, 10, 1, 4);
    const december = Date.UTC(2026, 11, 1, 5);
    const clock = new ManualClock(october * 1000);
    const policies = new PolicyRegistry();
    const calendar = { unit: 'month', timeZone: 'America/New_York' } as const;
    policies.set({ name: 'quota', algorithm: 'fixed-window', limit: 500, calendar });
    const profiles = new LocalTrafficProfile();
    const tally = new IdentifierTally(
      new LocalIdentifierStats(clock.now),
      clock.now,
      profiles,
      policies,
    );
    const traffic = knownTraffic(2, 5);
    const ok = decision(part('quota', true));
    const months = [
      [october, november],
      [november, december],
    ] as const;
    for (const [month, [start, end]] of months.entries()) {
      // Each identifier's month spread over four days of it, the last an hour before it ends.
      for (let day = 0; day < 4; day++) {
        clock.set((day === 3 ? end - HOUR_MS : start + day * 86_400_000) * 1000);
        traffic.identifiers.forEach((identifier, at) => {
          const total = traffic.counts[month]![at]!;
          const due = Math.floor(((day + 1) * total) / 4) - Math.floor((day * total) / 4);
          for (let n = 0; n < due; n++) tally.count(ok, 'ip', identifier);
        });
        await tally.flush();
      }
    }
    clock.set((december + FOLD_AFTER_MS + 1_000) * 1000);
    await tally.flush();

    const windows = profileWindowsOf(policies.get('quota')!);
    const nowMs = clock.now() / 1000;
    const toHour = Math.floor(nowMs / HOUR_MS);
    // A month is longer than a week: the read goes back to the last whole month.
    const fromHour = firstHourRead(windows, toHour, 168);
    expect(fromHour).toBeLessThanOrEqual(Math.floor(november / HOUR_MS));
    const record = await profiles.read('quota', windows, fromHour, toHour, nowMs);
    // Each month folded into the hour its last moment is in: the hour before local midnight.
    expect(record.hours.map((each) => (each.hour + 1) * HOUR_MS)).toEqual([november, december]);
    const summary = summarizeProfile(record, windows, fromHour, toHour, null);
    expect(summary).toMatchObject({ calendar: 'month', windows: 2, identifierWindows: 2_000 });
    expect(summary.requests).toBe(traffic.counts.flat().reduce((a, b) => a + b, 0));
    const found = recommendLimit(summary, 'fixed-window', 500, 0.99, 0.2);
    const truth = truePercentile(traffic, 0.99);
    expect(found.base).toBeGreaterThanOrEqual(truth);
    expect(found.base).toBeLessThanOrEqual(Math.floor(truth * (1 + 1 / STEPS)));
    expect(found.exact).toBe(true);
    expect(found.refusedNow.identifierWindows).toBe(
      traffic.counts.flat().filter((count) => count > 500).length,
    );
  });
});
