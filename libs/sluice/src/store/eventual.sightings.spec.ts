import { describe, expect, it } from 'vitest';
import { hashOf, Sightings, slotOf } from './eventual.sightings.js';

const MS = 1000;

/** Two keys of the same slot and different hashes, found by trying. */
function twoInOneSlot(): [string, string] {
  const bySlot = new Map<number, string>();
  for (let i = 0; ; i++) {
    const key = `sluice:{user:k-${i}}`;
    const other = bySlot.get(slotOf(key));
    if (other !== undefined && hashOf(other) !== hashOf(key)) return [other, key];
    bySlot.set(slotOf(key), key);
  }
}

describe('Sightings: when each identifier was last seen', () => {
  it('answers when a key was seen before, and -Infinity the first time', () => {
    const sightings = new Sightings();
    expect(sightings.see(hashOf('sluice:{user:ann}'), 0)).toBe(-Infinity);
    expect(sightings.see(hashOf('sluice:{user:ann}'), 30 * MS)).toBe(0);
    expect(sightings.see(hashOf('sluice:{user:ann}'), 70 * MS)).toBe(30 * MS);
    expect(sightings.see(hashOf('sluice:{user:bob}'), 70 * MS)).toBe(-Infinity);
  });

  it('never answers with the time of another key that shares the slot', () => {
    const [first, second] = twoInOneSlot();
    const sightings = new Sightings();
    sightings.see(hashOf(first), 10 * MS);
    // A key new to this instance is new, whoever was last seen in its slot.
    expect(sightings.see(hashOf(second), 20 * MS)).toBe(-Infinity);
    // The slot is the second's now: the first, back, looks new rather than hot.
    expect(sightings.see(hashOf(first), 30 * MS)).toBe(-Infinity);
    expect(sightings.see(hashOf(first), 40 * MS)).toBe(30 * MS);
  });

  it('gives no new identifier a recent time, however many passed', () => {
    const sightings = new Sightings();
    for (let i = 0; i < 100_000; i++) sightings.see(hashOf(`sluice:{user:seen-${i}}`), 1);
    // The last hundred seen kept their slots, but for the few a later one took.
    let found = 0;
    for (let i = 99_900; i < 100_000; i++) {
      if (sightings.see(hashOf(`sluice:{user:seen-${i}}`), 2) === 1) found++;
    }
    expect(found).toBeGreaterThan(90);
    let looksSeen = 0;
    for (let i = 0; i < 10_000; i++) {
      if (sightings.see(hashOf(`sluice:{user:new-${i}}`), 3) !== -Infinity) looksSeen++;
    }
    expect(looksSeen).toBe(0);
  });
});
