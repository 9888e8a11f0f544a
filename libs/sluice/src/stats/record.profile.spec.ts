import { describe, expect, it } from 'vitest';
import { memberOf } from './identifier-stats.store.js';
import { summarizeProfile } from './profile.summary.js';
import { profileOfRecords } from './record.profile.js';
import type { ReplayRecord } from './replay.store.js';
import { HOUR_MS } from './traffic-profile.js';

const T0_US = Date.UTC(2026, 10, 30, 6) * 1000;
const ann = memberOf({ keyKind: 'ip', identifier: '10.0.0.1' });
const bob = memberOf({ keyKind: 'ip', identifier: '10.0.0.2' });

describe('a profile counted from the replay record', () => {
  it('counts each identifier per window of a period under a second, exactly', () => {
    const at = (ms: number, member: string, tier = ''): ReplayRecord => ({
      member,
      tier,
      atUs: T0_US + ms * 1000,
      live: 'a',
    });
    const records = [
      // ann: 3 in the first 100 ms window, 1 in the next; bob: 5 in the first, of tier gold.
      at(0, ann),
      at(40, ann),
      at(99.9, ann),
      at(100, ann),
      ...[1, 2, 3, 4, 5].map((ms) => at(ms, bob, 'gold')),
      // Refused by another policy: still a request the policy was asked about.
      { ...at(250, ann), live: 'n' as const },
    ];
    const { record, windows } = profileOfRecords(records, 100);
    expect(windows).toMatchObject({ kind: 'fixed', windowMs: 100 });
    const hour = T0_US / 1000 / HOUR_MS;
    const summary = summarizeProfile(record, windows, hour, hour, null);
    expect(summary).toMatchObject({
      windowMs: 100,
      windows: 3,
      identifierWindows: 4,
      requests: 10,
      max: 5,
    });
    expect(summary.histogram).toEqual([
      { from: 1, to: 1, identifierWindows: 2 },
      { from: 3, to: 3, identifierWindows: 1 },
      { from: 5, to: 5, identifierWindows: 1 },
    ]);
    expect(summarizeProfile(record, windows, hour, hour, 'gold')).toMatchObject({
      identifierWindows: 1,
      busiest: [{ identifier: '10.0.0.2', tier: 'gold', most: 5 }],
    });
  });
});
