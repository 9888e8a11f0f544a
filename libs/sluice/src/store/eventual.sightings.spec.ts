import { describe, expect, it } from 'vitest';
import { Sightings } from './eventual.sightings.js';

const MS = 1000;

describe('Sightings: when each identifier was last seen, for about one interval', () => {
  it('answers when a key was seen before, and -Infinity the first time', () => {
    const sightings = new Sightings(100);
    expect(sightings.see('a', 0, 50 * MS)).toBe(-Infinity);
    expect(sightings.see('a', 30 * MS, 50 * MS)).toBe(0);
    expect(sightings.see('a', 70 * MS, 50 * MS)).toBe(30 * MS);
    expect(sightings.see('b', 70 * MS, 50 * MS)).toBe(-Infinity);
  });

  it('keeps a sighting for at least one interval and lets it go within two', () => {
    const sightings = new Sightings(100);
    sightings.see('old', 0, 50 * MS);
    // Other keys keep the generations turning.
    for (let at = 10; at <= 140; at += 10) sightings.see('other', at * MS, 50 * MS);
    expect(sightings.see('old', 140 * MS, 50 * MS)).toBe(-Infinity);
    sightings.see('recent', 150 * MS, 50 * MS);
    for (let at = 160; at <= 200; at += 10) sightings.see('other', at * MS, 50 * MS);
    expect(sightings.see('recent', 200 * MS, 50 * MS)).toBe(150 * MS);
  });

  it('holds at most twice its bound, however many identifiers pass', () => {
    const sightings = new Sightings(10);
    for (let i = 0; i < 1000; i++) sightings.see(`user-${i}`, 0, 50 * MS);
    // The first are forgotten, though seen within the interval; the last ten are still known.
    expect(sightings.see('user-0', 0, 50 * MS)).toBe(-Infinity);
    expect(sightings.see('user-980', 0, 50 * MS)).toBe(-Infinity);
    expect(sightings.see('user-995', 0, 50 * MS)).toBe(0);
  });
});
