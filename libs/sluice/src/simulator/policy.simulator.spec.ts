import { describe, expect, it } from 'vitest';
import {
  MAX_SIMULATED_REQUESTS,
  simulatePolicy,
  type SimulatedPolicy,
} from './policy.simulator.js';

const fixedWindow: SimulatedPolicy = { algorithm: 'fixed-window', limit: 5, periodMs: 60_000 };

describe('simulatePolicy', () => {
  it('admits 5 of a burst of 20 under a fixed window of 5 a minute', () => {
    const result = simulatePolicy(fixedWindow, { kind: 'burst', count: 20 });

    expect(result.admitted).toBe(5);
    expect(result.rejected).toBe(15);
    expect(result.requests.slice(0, 5).every((request) => request.admitted)).toBe(true);
    expect(result.requests.slice(5).some((request) => request.admitted)).toBe(false);
  });

  it('shows the boundary case: a fixed window admits twice its limit across the boundary, a sliding log only its limit', () => {
    const policy = { limit: 10, periodMs: 1000 };
    const fixed = simulatePolicy({ ...policy, algorithm: 'fixed-window' }, { kind: 'boundary' });
    const log = simulatePolicy({ ...policy, algorithm: 'sliding-log' }, { kind: 'boundary' });
    const sliding = simulatePolicy(
      { ...policy, algorithm: 'sliding-window', segments: 10 },
      { kind: 'boundary' },
    );

    expect(fixed.requests).toHaveLength(20);
    expect(fixed.admitted).toBe(20);
    expect(log.admitted).toBe(10);
    // The segment estimate lets a little more through than the exact log, never the full double.
    expect(sliding.admitted).toBeGreaterThanOrEqual(10);
    expect(sliding.admitted).toBeLessThan(20);
  });

  it('lets a token bucket pass its burst at once, then its refill rate', () => {
    const bucket: SimulatedPolicy = {
      algorithm: 'token-bucket',
      limit: 10,
      periodMs: 1000,
      burst: 20,
    };

    expect(simulatePolicy(bucket, { kind: 'burst', count: 50 }).admitted).toBe(20);
    // 20 a second for 5 s against a refill of 10 a second: the burst, then 10 a second.
    const steady = simulatePolicy(bucket, { kind: 'steady', ratePerSecond: 20, durationMs: 5000 });
    expect(steady.requests).toHaveLength(100);
    expect(steady.admitted).toBeGreaterThanOrEqual(20 + 40 - 1);
    expect(steady.admitted).toBeLessThanOrEqual(20 + 50);
  });

  it('spaces GCRA admissions by its interval', () => {
    const gcra: SimulatedPolicy = { algorithm: 'gcra', limit: 2, periodMs: 1000, burst: 1 };
    const result = simulatePolicy(gcra, { kind: 'steady', ratePerSecond: 4, durationMs: 2000 });

    expect(result.requests.map((request) => request.admitted)).toEqual([
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
  });

  it('delays what a leaky bucket admits instead of refusing it, up to its longest delay', () => {
    const leaky: SimulatedPolicy = {
      algorithm: 'leaky-bucket',
      limit: 10,
      periodMs: 1000,
      maxDelayMs: 500,
    };
    const result = simulatePolicy(leaky, { kind: 'burst', count: 10 });

    expect(result.admitted).toBe(6);
    expect(result.delayed).toBe(5);
    expect(Math.max(...result.requests.map((request) => request.delayMs))).toBe(500);
  });

  it('holds a leaky bucket’s requests as the guard does: waits to the nearest millisecond', () => {
    // one request every 400 µs: waits of 0, 0.4, 0.8, 1.2, 1.6, 2.0 and 2.4 ms
    const fast: SimulatedPolicy = { algorithm: 'leaky-bucket', limit: 2500, periodMs: 1000 };
    const result = simulatePolicy(fast, { kind: 'burst', count: 7 });

    expect(result.requests.map((request) => request.delayMs)).toEqual([0, 0, 1, 1, 2, 2, 2]);
    expect(result.delayed).toBe(5);
  });

  it('blocks after the penalty allows, so even requests the rate would admit are refused', () => {
    const policy: SimulatedPolicy = {
      algorithm: 'fixed-window',
      limit: 2,
      periodMs: 1000,
      penalty: { afterViolations: 1, blockMs: 10_000 },
    };
    const result = simulatePolicy(policy, { kind: 'steady', ratePerSecond: 4, durationMs: 3000 });

    expect(result.admitted).toBe(2);
    expect(result.requests.filter((request) => request.blocked).length).toBeGreaterThan(0);
  });

  it('lets everything through in shadow mode, counting what would have been refused', () => {
    const result = simulatePolicy({ ...fixedWindow, mode: 'shadow' }, { kind: 'burst', count: 8 });

    expect(result.admitted).toBe(8);
    expect(result.shadowRejected).toBe(3);
  });

  it('caps the number of simulated requests', () => {
    const result = simulatePolicy(fixedWindow, { kind: 'burst', count: 1e9 });

    expect(result.requests).toHaveLength(MAX_SIMULATED_REQUESTS);
  });

  it('puts every request in a chart bucket', () => {
    const result = simulatePolicy(fixedWindow, {
      kind: 'steady',
      ratePerSecond: 3,
      durationMs: 10_000,
    });
    const charted = result.buckets.reduce(
      (sum, bucket) => sum + bucket.admitted + bucket.rejected,
      0,
    );

    expect(charted).toBe(result.requests.length);
    expect(result.buckets.reduce((sum, bucket) => sum + bucket.admitted, 0)).toBe(result.admitted);
  });
});
