import type { RateParams, Verdict } from './algorithm.types.js';
import { idiv } from './integer-math.js';

/**
 * State: the window (its index floor(now / period), or for a calendar period its start in µs)
 * and what it has admitted.
 */
export interface FixedWindowState {
  window: number;
  count: number;
}

/** The window `now` falls in and when it ends, µs: by period, or by the calendar's boundaries. */
function windowAt(now: number, p: RateParams): { window: number; finish: number } {
  const calendar = p.calendar;
  if (calendar !== undefined) {
    // The caller's clock chose the boundaries; this clock (Redis's) says which side it is on.
    return now >= calendar.finish
      ? { window: calendar.finish, finish: calendar.next }
      : { window: calendar.start, finish: calendar.finish };
  }
  const window = idiv(now, p.period);
  return { window, finish: (window + 1) * p.period };
}

export function decide(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): Verdict<FixedWindowState> {
  let { window, finish } = windowAt(now, p);
  let count = 0;
  if (state !== undefined) {
    // A later window already counted (a clock that stepped back) is kept, by period only: a
    // calendar window's end is known only for the boundaries given.
    if (p.calendar === undefined && state.window > window) {
      window = state.window;
      finish = (window + 1) * p.period;
    }
    if (state.window === window) count = state.count;
  }
  const reset = Math.max(1, finish - now);
  if (count + cost <= p.limit) {
    return {
      allowed: true,
      remaining: p.limit - count - cost,
      reset,
      retry: 0,
      delay: 0,
      state: { window, count: count + cost },
      ttl: reset,
    };
  }
  return {
    allowed: false,
    remaining: Math.max(0, p.limit - count),
    reset,
    retry: reset,
    delay: 0,
    ttl: reset,
  };
}

export function refund(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): { state: FixedWindowState; ttl: number } | undefined {
  const { window, finish } = windowAt(now, p);
  if (state === undefined || state.window < window) return undefined;
  const count = Math.max(0, state.count - cost);
  const ends = p.calendar === undefined ? (state.window + 1) * p.period : finish;
  return {
    state: { window: state.window, count },
    ttl: count === 0 ? 0 : ends - now,
  };
}
