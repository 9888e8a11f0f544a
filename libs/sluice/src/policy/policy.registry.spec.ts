import { describe, expect, it } from 'vitest';
import { PolicyRegistry, UnknownPolicyError } from './policy.registry.js';

const api = { name: 'api', algorithm: 'fixed-window', limit: 100, periodMs: 60_000 };
const burst = { name: 'burst', algorithm: 'gcra', limit: 10, periodMs: 1_000 };

describe('PolicyRegistry.resolveRoute', () => {
  it("resolves a route's names once, the same frozen array for every request", () => {
    const registry = new PolicyRegistry();
    registry.set(api);
    registry.set(burst);
    const names = ['api', 'burst'];
    const first = registry.resolveRoute(names);
    expect(first.map((policy) => policy.name)).toEqual(['api', 'burst']);
    expect(registry.resolveRoute(names)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => (first as unknown[]).push(first[0])).toThrow(TypeError);
    // Another array of the same names is its own route.
    expect(registry.resolveRoute(['api', 'burst'])).not.toBe(first);
  });

  it('answers the policies as they are after a policy is set, deleted or all replaced', () => {
    const registry = new PolicyRegistry();
    registry.set(api);
    const names = ['api'];
    expect(registry.resolveRoute(names)[0]?.limit).toBe(100);

    registry.set({ ...api, limit: 5 });
    expect(registry.resolveRoute(names)[0]?.limit).toBe(5);

    // Parsed elsewhere, so replaceAll is the only change this registry sees.
    const replaced = new PolicyRegistry().set({ ...api, limit: 7 });
    registry.replaceAll([replaced], true);
    expect(registry.resolveRoute(names)[0]).toBe(replaced);

    registry.delete('api');
    expect(() => registry.resolveRoute(names)).toThrow(UnknownPolicyError);
  });

  it('keeps no answer for names not defined: defined later, they resolve', () => {
    const registry = new PolicyRegistry();
    const names = ['burst'];
    expect(() => registry.resolveRoute(names)).toThrow(UnknownPolicyError);
    registry.set(burst);
    expect(registry.resolveRoute(names)[0]?.name).toBe('burst');
  });
});
