import { describe, expect, it } from 'vitest';
import { memberOf } from './identifier-stats.store.js';
import { LocalTrafficProfile } from './local-traffic.profile.js';
import { summarizeProfile } from './profile.summary.js';
import {
  bucketBottom,
  bucketOf,
  bucketTop,
  EXACT_BELOW,
  fieldOf,
  FOLD_AFTER_MS,
  HOUR_MS,
  identifierHash,
  parseField,
  sampledAt,
  STEPS,
  windowMsOf,
} from './traffic-profile.js';
import type { ProfileCount } from './traffic-profile.store.js';

const T0 = 1_700_000_000_000 - (1_700_000_000_000 % HOUR_MS);

function field(name: string, tier = ''): string {
  const member = memberOf({ keyKind: 'ip', identifier: name });
  return fieldOf(identifierHash(member), tier, member);
}

describe('traffic profile buckets', () => {
  it('files every count in one bucket, exact below 32 and within 1/16 above', () => {
    for (let count = 1; count < 300_000; count += count < 2_000 ? 1 : 97) {
      const bucket = bucketOf(count);
      expect(bucketBottom(bucket)).toBeLessThanOrEqual(count);
      expect(bucketTop(bucket)).toBeGreaterThanOrEqual(count);
      if (count < EXACT_BELOW) expect(bucketTop(bucket)).toBe(count);
      expect(bucketTop(bucket) + 1 - bucketBottom(bucket)).toBeLessThanOrEqual(
        Math.max(1, bucketBottom(bucket) / STEPS),
      );
      // Buckets follow each other without a gap.
      expect(bucketBottom(bucket + 1)).toBe(bucketTop(bucket) + 1);
    }
  });

  it('hashes identifiers the same on every instance and reads its fields back', () => {
    expect(identifierHash('a')).toBe(0xe40c292c);
    const member = memberOf({ keyKind: 'user', identifier: 'ann:1' });
    expect(parseField(fieldOf(0xab, 'gold', member))).toEqual({
      hash: 0xab,
      tier: 'gold',
      member,
    });
    expect(parseField(fieldOf(7, '', member))?.tier).toBe('');
  });

  it('profiles a period within a second and a day', () => {
    expect(windowMsOf(100)).toBe(1_000);
    expect(windowMsOf(60_000)).toBe(60_000);
    expect(windowMsOf(30 * 86_400_000)).toBe(86_400_000);
  });
});

describe('LocalTrafficProfile', () => {
  const windowMs = 60_000;
  const count = (window: number, name: string, requests: number, tier = ''): ProfileCount => ({
    policy: 'api',
    windowMs,
    window,
    field: field(name, tier),
    count: requests,
  });
  const w0 = T0 / windowMs;

  it('adds up counts from several instances per window and folds a window once it has closed', async () => {
    const store = new LocalTrafficProfile();
    await store.record([count(w0, 'a', 3), count(w0, 'b', 40)], T0 + 1_000);
    await store.record([count(w0, 'a', 2), count(w0 + 1, 'a', 7)], T0 + windowMs + 1_000);
    const hour = Math.floor(T0 / HOUR_MS);
    // Before its end and the fold delay, the window is not in the hour yet.
    const early = await store.read('api', windowMs, hour, hour, T0 + windowMs + FOLD_AFTER_MS - 1);
    expect(early.hours).toEqual([]);
    const read = await store.read('api', windowMs, hour, hour, T0 + 2 * windowMs + FOLD_AFTER_MS);
    const summary = summarizeProfile(read, windowMs, hour, hour, null);
    expect(summary).toMatchObject({ windows: 2, identifierWindows: 3, requests: 52, max: 40 });
    expect(summary.histogram).toEqual([
      { from: 5, to: 5, identifierWindows: 1 },
      { from: 7, to: 7, identifierWindows: 1 },
      { from: 40, to: 41, identifierWindows: 1 },
    ]);
    expect(summary.busiest.map((each) => [each.identifier, each.most])).toEqual([
      ['b', 40],
      ['a', 7],
      // 'a' made 5 in the first window: its most is 7.
    ]);
    // Counts for a window that has folded are left out and said so.
    await store.record([count(w0, 'c', 9)], T0 + 3 * windowMs);
    expect((await store.read('api', windowMs, hour, hour, T0 + 3 * windowMs)).late).toBe(9);
  });

  it('keeps a sample once a window holds more identifiers than its bound, and says how large', async () => {
    const store = new LocalTrafficProfile({ sampleBound: 100, retentionMs: 86_400_000 });
    const counts = Array.from({ length: 1_000 }, (_, at) => count(w0, `id-${at}`, 5));
    const levels = await store.record(counts, T0 + 1_000);
    const level = [...levels.values()][0]!.level;
    expect(level).toBeGreaterThanOrEqual(3);
    const hour = Math.floor(T0 / HOUR_MS);
    const read = await store.read('api', windowMs, hour, hour, T0 + windowMs + FOLD_AFTER_MS);
    const summary = summarizeProfile(read, windowMs, hour, hour, null);
    const kept = counts.filter((each) => sampledAt(parseField(each.field)!.hash, level)).length;
    expect(kept).toBeLessThanOrEqual(100);
    expect(summary.share).toBe(2 ** level);
    expect(summary.identifierWindows).toBe(kept * 2 ** level);
    expect(summary.percentiles?.p50).toBe(5);
  });

  it('reads one tier, or requests of no tier, apart from the rest', async () => {
    const store = new LocalTrafficProfile();
    await store.record(
      [count(w0, 'a', 3, 'gold'), count(w0, 'b', 30, 'gold'), count(w0, 'c', 1)],
      T0 + 1_000,
    );
    const hour = Math.floor(T0 / HOUR_MS);
    const read = await store.read('api', windowMs, hour, hour, T0 + windowMs + FOLD_AFTER_MS);
    expect(summarizeProfile(read, windowMs, hour, hour, 'gold')).toMatchObject({
      identifierWindows: 2,
      requests: 33,
      max: 30,
    });
    const none = summarizeProfile(read, windowMs, hour, hour, '');
    expect(none).toMatchObject({ identifierWindows: 1, requests: 1, max: 1 });
    expect(none.busiest).toEqual([{ keyKind: 'ip', identifier: 'c', tier: null, most: 1 }]);
  });
});
