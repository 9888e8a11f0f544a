import { describe, expect, it } from 'vitest';
import { replayRecords, type ReplayRecord } from './policy.replay.js';
import type { SimulatedPolicy } from './policy.simulator.js';

const LIVE: SimulatedPolicy = { algorithm: 'fixed-window', limit: 3, periodMs: 10_000 };
const T0_US = 1_800_000_000_000_000;

/** Requests at the given seconds, marked as the live rule answered them. */
function records(member: string, seconds: number[], live: ReplayRecord['live'][], tier = '') {
  return seconds.map((second, at) => ({
    member,
    tier,
    atUs: T0_US + second * 1_000_000,
    live: live[at] ?? 'a',
  }));
}

describe('replaying recorded requests', () => {
  it('finds no difference when the rule is the live one, and each change when it is not', () => {
    const recorded = [
      // Five in one window: the fourth and fifth refused live; then a new window.
      ...records('ip\u0000a', [0, 1, 2, 3, 4, 11], ['a', 'a', 'a', 'r', 'r', 'a']),
      ...records('ip\u0000b', [0.5, 1.5], ['a', 'a']),
      // Admitted by this policy, refused by another: never charged, not replayed.
      ...records('ip\u0000c', [0, 0, 0, 0], ['n', 'n', 'n', 'n']),
    ];
    const same = replayRecords(LIVE, recorded);
    expect(same).toMatchObject({
      decided: 8,
      refused: 2,
      liveRefused: 2,
      newlyRefused: 0,
      newlyAdmitted: 0,
    });

    const stricter = replayRecords({ ...LIVE, limit: 1 }, recorded);
    // a: 1 of the first window and its next window's one; b: 1.
    expect(stricter).toMatchObject({ refused: 5, newlyRefused: 3, newlyAdmitted: 0 });
    const looser = replayRecords({ ...LIVE, limit: 10 }, recorded);
    expect(looser).toMatchObject({ refused: 0, newlyAdmitted: 2 });
    // Each record's own answer, in the records' order.
    expect(looser.admitted.every(Boolean)).toBe(true);
  });

  it("decides each record at its tier's rate", () => {
    const recorded = [
      ...records('user\u0000free', [0, 1, 2], [], ''),
      ...records('user\u0000pro', [0, 1, 2], [], 'pro'),
    ];
    const outcome = replayRecords({ ...LIVE, limit: 1 }, recorded, { pro: { limit: 5 } });
    expect(outcome.admitted).toEqual([true, false, false, true, true, true]);
  });

  it('counts a calendar quota in its periods, each record in the one holding its time', () => {
    // Paris's midnight of 2027-01-15 is 23:00 UTC: two before it, two after.
    const midnight = Date.UTC(2027, 0, 14, 23) * 1000;
    const at = (seconds: number): ReplayRecord => ({
      member: 'ip\u0000a',
      tier: '',
      atUs: midnight + seconds * 1_000_000,
      live: 'a',
    });
    const recorded = [at(-2), at(-1), at(1), at(2)];
    const daily = { unit: 'day', timeZone: 'Europe/Paris', anchorDay: null } as const;
    const quota = { ...LIVE, limit: 2, periodMs: 25 * 3_600_000 };
    expect(replayRecords(quota, recorded, {}, daily).refused).toBe(0);
    // Without the calendar, 25-hour windows from the epoch hold all four.
    expect(replayRecords(quota, recorded).refused).toBe(2);
  });
});
