import { describe, expect, it } from 'vitest';
import { ManualClock } from '@sluice/nest/internals';
import { ExpiringCache } from './expiring.cache.js';

describe('ExpiringCache', () => {
  it('forgets an entry when its time is up', () => {
    const clock = new ManualClock(0);
    const cache = new ExpiringCache<string>(60_000, 10, clock.now);
    cache.set('k', 'v');
    clock.set(59_999_000);
    expect(cache.get('k')).toBe('v');
    clock.set(60_000_000);
    expect(cache.get('k')).toBeUndefined();
  });

  it('evicts the oldest entry when full', () => {
    const cache = new ExpiringCache<number>(60_000, 2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
  });
});
