import { describe, expect, it } from 'vitest';
import { exactDurationText, parseDuration, rateText } from './duration';

describe('durations as people write them', () => {
  it.each([
    ['1 min', 60_000],
    ['90 s', 90_000],
    ['2 h', 7_200_000],
    ['1 h 30 min', 5_400_000],
    ['1h30m', 5_400_000],
    ['1 hour, 5 minutes', 3_900_000],
    ['1.5 h', 5_400_000],
    ['500 ms', 500],
    ['7 days', 604_800_000],
    ['60000', 60_000],
    ['  2 MIN ', 120_000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '5 fortnights', 'min 5', '1 min and', '-5 s', '0.5 ms', '1e3'])(
    'refuses %j',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it('writes a duration back exactly, so editing a policy never rounds its rules', () => {
    expect(exactDurationText(60_000)).toBe('1 min');
    expect(exactDurationText(5_400_000)).toBe('1 h 30 min');
    expect(exactDurationText(90_500)).toBe('1 min 30 s 500 ms');
    expect(exactDurationText(86_400_000)).toBe('1 d');
    for (const ms of [1, 999, 61_001, 90_061_001, 31_536_000_000]) {
      expect(parseDuration(exactDurationText(ms))).toBe(ms);
    }
  });

  it('spells a rate out', () => {
    expect(rateText(5, 60_000)).toBe('5 per minute');
    expect(rateText(1000, 3_600_000)).toBe('1000 per hour');
    expect(rateText(100, 10_000)).toBe('100 per 10 s');
    expect(rateText(3, 90_000)).toBe('3 per 1 min 30 s');
  });
});
