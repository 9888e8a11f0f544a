import { describe, expect, it } from 'vitest';
import { durationText, waitText } from './duration.text.js';

describe('durations as people read them', () => {
  it('writes the two largest units', () => {
    expect([90, 12_000, 300_000, 9_000_000, 273_600_000].map(durationText)).toEqual([
      '90 ms',
      '12 s',
      '5 min',
      '2 h 30 min',
      '3 d 4 h',
    ]);
  });

  it('never says a wait is shorter than it is', () => {
    expect(waitText(1)).toBe('1 s');
    expect(waitText(3_600_000)).toBe('1 h');
    expect(waitText(55_600_000)).toBe('15 h 27 min');
    // A 429 said "retry in 232420 s": 2 d 16 h 33 min 40 s, shown as the hour after.
    expect(waitText(232_420_000)).toBe('2 d 17 h');
  });
});
