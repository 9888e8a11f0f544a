import { describe, expect, it } from 'vitest';
import { FailureLimiter } from './failure.limiter.js';

function limiterAt(start: number, limits = { maxFailures: 3, windowMs: 60_000, maxAddresses: 2 }) {
  const clock = { now: start };
  return { clock, limiter: new FailureLimiter(limits, () => clock.now) };
}

describe('FailureLimiter', () => {
  it('refuses an address once it used up its failures, until its window ends', () => {
    const { clock, limiter } = limiterAt(1_000);
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfterMs('10.0.0.1')).toBe(0);
      limiter.recordFailure('10.0.0.1');
      clock.now += 10_000;
    }
    expect(limiter.retryAfterMs('10.0.0.1')).toBe(30_000);
    expect(limiter.retryAfterMs('10.0.0.2')).toBe(0);
    clock.now = 61_000;
    expect(limiter.retryAfterMs('10.0.0.1')).toBe(0);
  });

  it('starts a fresh window after the old one ended', () => {
    const { clock, limiter } = limiterAt(0);
    limiter.recordFailure('a');
    limiter.recordFailure('a');
    clock.now = 60_000;
    limiter.recordFailure('a');
    limiter.recordFailure('a');
    expect(limiter.retryAfterMs('a')).toBe(0);
    limiter.recordFailure('a');
    expect(limiter.retryAfterMs('a')).toBe(60_000);
  });

  it('forgets the oldest address when it tracks too many', () => {
    const { limiter } = limiterAt(0, { maxFailures: 1, windowMs: 60_000, maxAddresses: 2 });
    limiter.recordFailure('a');
    limiter.recordFailure('b');
    limiter.recordFailure('c');
    expect(['a', 'b', 'c'].map((address) => limiter.retryAfterMs(address))).toEqual([
      0, 60_000, 60_000,
    ]);
  });
});
