import { describe, expect, it } from 'vitest';
import { toPolicySpec } from '../engine/policy-spec.js';
import { parsePolicy } from '../policy/policy.schema.js';
import { slotOf } from './eventual.sightings.js';
import { ViewTable } from './eventual.view.js';

const policy = parsePolicy({
  name: 'feed',
  algorithm: 'gcra',
  limit: 10,
  periodMs: 1000,
  consistency: 'eventual',
});
const spec = toPolicySpec(policy, policy.limit, policy.cost);
const key = (i: number) => `sluice:{user:u-${i}}`;

describe('ViewTable: the views of one instance, bounded', () => {
  it('says a key has no view without looking it up, and forgets the views it drops', () => {
    const table = new ViewTable(4);
    expect(table.mayHave(slotOf(key(0)))).toBe(false);
    table.viewOf(key(0), spec);
    expect(table.mayHave(slotOf(key(0)))).toBe(true);
    expect(table.find(key(0), spec)).toBeDefined();
    // Past the bound the oldest idle views go, and their keys are known to have none.
    for (let i = 1; i <= 8; i++) table.viewOf(key(i), spec);
    expect(table.find(key(0), spec)).toBeUndefined();
    expect(table.mayHave(slotOf(key(0)))).toBe(false);
    expect(table.mayHave(slotOf(key(8)))).toBe(true);
  });

  it('keeps a view with units in flight past the bound, and its key still has it', () => {
    const table = new ViewTable(2);
    const busy = table.viewOf(key(0), spec);
    busy.unsent = 3;
    for (let i = 1; i <= 6; i++) table.viewOf(key(i), spec);
    expect(table.find(key(0), spec)).toBe(busy);
    expect(table.mayHave(slotOf(key(0)))).toBe(true);
  });
});
