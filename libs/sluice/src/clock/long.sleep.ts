import { setTimeout as sleep } from 'node:timers/promises';

/** Node's timers hold at most 2³¹−1 ms; a longer one fires after 1 ms, with a warning. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Waits `ms`, however long: in steps a timer can hold, so a shaping delay of a month (a policy's
 * maxDelayMs may be up to a year) is not cut to 1 ms. `wait` is the step, a test's to replace.
 */
export async function longSleep(
  ms: number,
  wait: (ms: number) => Promise<unknown> = sleep,
): Promise<void> {
  for (let left = ms; left > 0; left -= MAX_TIMER_MS) {
    await wait(Math.min(left, MAX_TIMER_MS));
  }
}
