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
  fixedWindows,
  firstHourRead,
  hourOf,
  hoursKeptMs,
  hoursToRead,
  profileWindowsOf,
  windowAt,
  windowEnd,
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

  it('samples one hash in 2^level, as the Lua does, at every level and edge of a 32-bit hash', () => {
    const hashes = [0, 1, 2, 3, 4, 96, 1024, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];
    for (let seed = 1; seed < 2_000; seed++) hashes.push(identifierHash(`id-${seed}`));
    // Lua's `hash % 2 ^ level == 0` (traffic-profile.lua), levels past the hash's 32 bits too.
    const lua = (hash: number, level: number) => hash % 2 ** level === 0;
    for (let level = 0; level <= 34; level++) {
      for (const hash of hashes) expect(sampledAt(hash, level)).toBe(lua(hash, level));
    }
    expect(hashes.filter((hash) => sampledAt(hash, 3)).length).toBeGreaterThan(200);
    expect(sampledAt(0x80000000, 31)).toBe(true);
    expect(sampledAt(0x80000001, 31)).toBe(false);
    expect(sampledAt(5, 0)).toBe(true);
  });

  it('profiles a period of a second or more in windows of it, a shorter one per second', () => {
    expect(windowMsOf(100)).toBe(1_000);
    expect(windowMsOf(60_000)).toBe(60_000);
    expect(windowMsOf(30 * 86_400_000)).toBe(30 * 86_400_000);
  });

  it('profiles a calendar policy in its own periods, each named by its end', () => {
    const windows = profileWindowsOf({
      periodMs: 0,
      calendar: { unit: 'month', timeZone: 'Europe/Paris', anchorDay: 15 },
    });
    expect(windows.key).toBe('month:Europe/Paris:15');
    // 2026-11-20 in Paris is in the month from Nov 15 to Dec 15, local midnight (UTC+1).
    const window = windowAt(windows, Date.UTC(2026, 10, 20));
    expect(window).toBe(Date.UTC(2026, 11, 14, 23));
    expect(windowEnd(windows, window)).toBe(window);
    expect(hourOf(windows, window)).toBe(Date.UTC(2026, 11, 14, 22) / HOUR_MS);
    // Kept a week after it folds, and a month more, so the last month reads until the next.
    expect(hoursKeptMs(windows, 7 * 86_400_000)).toBe((7 + 31) * 86_400_000 + HOUR_MS);
    expect(hoursKeptMs(fixedWindows(60_000), 7 * 86_400_000)).toBe(7 * 86_400_000);
  });

  it('reads windows over a day by the hours they end in, back to the last whole one', () => {
    const year = profileWindowsOf({
      periodMs: 0,
      calendar: { unit: 'year', timeZone: 'UTC', anchorDay: null },
    });
    const toHour = Date.UTC(2026, 10, 30, 12) / HOUR_MS;
    const fromHour = firstHourRead(year, toHour, 168);
    // A year and a day back: the year that ended on 2026-01-01 is the one hour read.
    expect(hoursToRead(year, fromHour, toHour)).toEqual([Date.UTC(2025, 11, 31, 23) / HOUR_MS]);
    const days30 = fixedWindows(30 * 86_400_000);
    const hours = hoursToRead(days30, firstHourRead(days30, toHour, 168), toHour);
    expect(hours).toHaveLength(1);
    expect(((hours[0]! + 1) * HOUR_MS) % (30 * 86_400_000)).toBe(0);
    // A day or less: every hour of the range.
    const minute = fixedWindows(60_000);
    expect(firstHourRead(minute, toHour, 24)).toBe(toHour - 24);
    expect(hoursToRead(minute, toHour - 24, toHour)).toHaveLength(25);
  });
});

describe('LocalTrafficProfile', () => {
  const windowMs = 60_000;
  const windows = fixedWindows(windowMs);
  const count = (window: number, name: string, requests: number, tier = ''): ProfileCount => ({
    policy: 'api',
    windows,
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
    const early = await store.read('api', windows, hour, hour, T0 + windowMs + FOLD_AFTER_MS - 1);
    expect(early.hours).toEqual([]);
    const read = await store.read('api', windows, hour, hour, T0 + 2 * windowMs + FOLD_AFTER_MS);
    const summary = summarizeProfile(read, windows, hour, hour, null);
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
    expect((await store.read('api', windows, hour, hour, T0 + 3 * windowMs)).late).toBe(9);
  });

  it('keeps a sample once a window holds more identifiers than its bound, and says how large', async () => {
    const store = new LocalTrafficProfile({ sampleBound: 100, retentionMs: 86_400_000 });
    const counts = Array.from({ length: 1_000 }, (_, at) => count(w0, `id-${at}`, 5));
    const levels = await store.record(counts, T0 + 1_000);
    const level = [...levels.values()][0]!.level;
    expect(level).toBeGreaterThanOrEqual(3);
    const hour = Math.floor(T0 / HOUR_MS);
    const read = await store.read('api', windows, hour, hour, T0 + windowMs + FOLD_AFTER_MS);
    const summary = summarizeProfile(read, windows, hour, hour, null);
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
    const read = await store.read('api', windows, hour, hour, T0 + windowMs + FOLD_AFTER_MS);
    expect(summarizeProfile(read, windows, hour, hour, 'gold')).toMatchObject({
      identifierWindows: 2,
      requests: 33,
      max: 30,
    });
    const none = summarizeProfile(read, windows, hour, hour, '');
    expect(none).toMatchObject({ identifierWindows: 1, requests: 1, max: 1 });
    expect(none.busiest).toEqual([{ keyKind: 'ip', identifier: 'c', tier: null, most: 1 }]);
  });
});
