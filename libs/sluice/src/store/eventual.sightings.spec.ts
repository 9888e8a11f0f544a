import { describe, expect, it } from 'vitest';
import { Sightings, slotOf } from './eventual.sightings.js';

const MS = 1000;

describe('Sightings: when each identifier was last seen', () => {
  it('answers when a key was seen before, and -Infinity the first time', () => {
    const sightings = new Sightings();
    expect(sightings.see(slotOf('sluice:{user:ann}'), 0)).toBe(-Infinity);
    expect(sightings.see(slotOf('sluice:{user:ann}'), 30 * MS)).toBe(0);
    expect(sightings.see(slotOf('sluice:{user:ann}'), 70 * MS)).toBe(30 * MS);
    expect(sightings.see(slotOf('sluice:{user:bob}'), 70 * MS)).toBe(-Infinity);
  });

  it('tells identifiers apart but for the few that share a slot, however many pass', () => {
    const sightings = new Sightings();
    for (let i = 0; i < 100_000; i++) sightings.see(slotOf(`sluice:{user:seen-${i}}`), 1);
    // 1 000 new identifiers against a table where 100 000 passed: most share no slot with a
    // recent one (at 1 000 passed, expect about 15 to).
    const fresh = new Sightings();
    for (let i = 0; i < 1000; i++) fresh.see(slotOf(`sluice:{user:seen-${i}}`), 1);
    let shared = 0;
    for (let i = 0; i < 1000; i++)
      if (fresh.see(slotOf(`sluice:{user:new-${i}}`), 2) === 1) shared++;
    expect(shared).toBeLessThan(50);
    // Every identifier still finds its own time, or a later one in its slot: never an older one.
    for (let i = 0; i < 1000; i++) {
      expect(sightings.see(slotOf(`sluice:{user:seen-${i}}`), 3)).toBeGreaterThanOrEqual(1);
    }
  });
});
