import { describe, expect, it } from 'vitest';
import { longSleep, MAX_TIMER_MS } from './long.sleep.js';

describe('longSleep', () => {
  const steps = async (ms: number) => {
    const waited: number[] = [];
    await longSleep(ms, (step) => {
      waited.push(step);
      return Promise.resolve();
    });
    return waited;
  };

  it('waits a short delay in one step', async () => {
    expect(await steps(250)).toEqual([250]);
    expect(await steps(MAX_TIMER_MS)).toEqual([MAX_TIMER_MS]);
  });

  it('splits a delay past what a timer holds into steps that add up to it', async () => {
    const thirtyDays = 30 * 86_400_000;
    const waited = await steps(thirtyDays);
    expect(waited).toEqual([MAX_TIMER_MS, thirtyDays - MAX_TIMER_MS]);
    expect(waited.every((step) => step <= MAX_TIMER_MS)).toBe(true);
  });

  it('does not wait for nothing', async () => {
    expect(await steps(0)).toEqual([]);
  });
});
