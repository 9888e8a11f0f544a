import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../policy/policy.schema.js';
import { PolicyValidationError } from '../policy/policy-validation.error.js';
import { ALGORITHM_TRAITS, traitsOf } from './algorithm.traits.js';
import { ALGORITHMS, type AlgorithmName } from './algorithm.types.js';

/** Whether a policy of `algorithm` with `extra` validates. */
function accepts(algorithm: AlgorithmName, extra: Record<string, unknown>): boolean {
  try {
    parsePolicy({ name: 'p', algorithm, limit: 10, periodMs: 60_000, ...extra });
    return true;
  } catch (error) {
    if (error instanceof PolicyValidationError) return false;
    throw error;
  }
}

describe('algorithm traits', () => {
  it('name every algorithm, and no other', () => {
    expect(Object.keys(ALGORITHM_TRAITS).sort()).toEqual([...ALGORITHMS].sort());
  });

  it.each(ALGORITHMS)(
    'say which fields and modes a %s policy takes, as the schema checks',
    (name) => {
      const traits = traitsOf(name);
      expect(accepts(name, { burst: 20 })).toBe(traits.burst);
      expect(accepts(name, { segments: 6 })).toBe(traits.segments);
      expect(accepts(name, { maxDelayMs: 500 })).toBe(traits.shapes);
      expect(accepts(name, { periodMs: undefined, calendar: { unit: 'day' } })).toBe(traits.quota);
      expect(accepts(name, { usage: { maxCost: 20 } })).toBe(traits.quota);
      expect(accepts(name, { consistency: 'eventual' })).toBe(traits.eventual);
      expect(accepts(name, { count: 'failures' })).toBe(traits.countsFailures);
      if (traits.maxLimit !== undefined) {
        expect(accepts(name, { limit: traits.maxLimit, periodMs: 3_600_000 })).toBe(true);
        expect(accepts(name, { limit: traits.maxLimit + 1, periodMs: 3_600_000 })).toBe(false);
      }
    },
  );

  it('give a name this release does not know no traits, prototype names included', () => {
    for (const name of ['fixed-windows', 'constructor', '__proto__', 'toString']) {
      expect(traitsOf(name as AlgorithmName)).toMatchObject({
        window: false,
        burst: false,
        quota: false,
        holdsSlots: false,
      });
    }
  });
});
