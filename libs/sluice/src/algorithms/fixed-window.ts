import type { RateParams, Verdict } from './algorithm.types.js';
import { idiv } from './integer-math.js';

/**
 * State: the window (its index floor(now / period), or for a calendar period its start in µs),
 * what it has admitted, and the credits granted for it (negative: debited), which raise or lower
 * its limit until the window ends (docs/algorithms.md, "Credits").
 */
export interface FixedWindowState {
  window: number;
  count: number;
  granted?: number;
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

/**
 * The window a request now counts in and when it ends: now's, or a later one already counted (a
 * clock that stepped back), by period only: a calendar window's end is known only for the
 * boundaries given.
 */
function countedWindow(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
): { window: number; finish: number } {
  const at = windowAt(now, p);
  if (state === undefined || p.calendar !== undefined || state.window <= at.window) return at;
  return { window: state.window, finish: (state.window + 1) * p.period };
}

export function decide(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): Verdict<FixedWindowState> {
  const { window, finish } = countedWindow(state, now, p);
  let count = 0;
  let granted = 0;
  if (state !== undefined && state.window === window) {
    count = state.count;
    granted = state.granted ?? 0;
  }
  const reset = Math.max(1, finish - now);
  const limit = p.limit + granted;
  if (count + cost <= limit) {
    const charged: FixedWindowState = { window, count: count + cost };
    if (granted !== 0) charged.granted = granted;
    return {
      allowed: true,
      remaining: limit - count - cost,
      reset,
      retry: 0,
      delay: 0,
      state: charged,
      ttl: reset,
      granted,
    };
  }
  return {
    allowed: false,
    remaining: Math.max(0, limit - count),
    reset,
    retry: reset,
    delay: 0,
    ttl: reset,
    granted,
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
  const granted = state.granted ?? 0;
  const refunded: FixedWindowState = { window: state.window, count };
  if (granted !== 0) refunded.granted = granted;
  return { state: refunded, ttl: count === 0 && granted === 0 ? 0 : ends - now };
}

/**
 * The window `now` falls in, as decide keeps it (a later one already counted, by period only),
 * with what it has counted and been granted so far.
 */
function current(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
): { window: number; finish: number; count: number; granted: number } {
  const { window, finish } = countedWindow(state, now, p);
  if (state === undefined || state.window !== window)
    return { window, finish, count: 0, granted: 0 };
  return { window, finish, count: state.count, granted: state.granted ?? 0 };
}

/** The window's state as stored, credits left out while there are none, until its end. */
function kept(
  window: number,
  count: number,
  granted: number,
  ttl: number,
): { state: FixedWindowState; ttl: number } {
  const state: FixedWindowState = { window, count };
  if (granted !== 0) state.granted = granted;
  return { state, ttl: Math.max(1, ttl) };
}

/**
 * Adds `amount` credits (negative: a debit) to the window `now` falls in, its count kept; a
 * window not yet counted starts with them. They end with the window.
 */
export function grant(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
  amount: number,
): { state: FixedWindowState; ttl: number } {
  const { window, finish, count, granted } = current(state, now, p);
  return kept(window, count, granted + amount, finish - now);
}

/**
 * Charges `amount` more units (negative: gives them back) in the window `now` falls in, past the
 * limit if need be: a charge settled after the response (docs/algorithms.md, "Charges settled
 * after the response").
 */
export function settle(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
  amount: number,
): { state: FixedWindowState; ttl: number } {
  const { window, finish, count, granted } = current(state, now, p);
  return kept(window, Math.max(0, count + amount), granted, finish - now);
}

/** What a quota holds now: units counted and credits granted in the window `now` falls in. */
export function usage(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
): { used: number; granted: number } {
  const { count, granted } = current(state, now, p);
  return { used: count, granted };
}
