import type { RateParams, Verdict } from './algorithm.types.js';
import { idiv } from './integer-math.js';

/** State: the window index floor(now / period) and what it has admitted. */
export interface FixedWindowState {
  window: number;
  count: number;
}

export function decide(
  state: FixedWindowState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): Verdict<FixedWindowState> {
  let window = idiv(now, p.period);
  let count = 0;
  if (state !== undefined) {
    window = Math.max(window, state.window);
    if (state.window === window) count = state.count;
  }
  const reset = (window + 1) * p.period - now;
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
  if (state === undefined || state.window < idiv(now, p.period)) return undefined;
  const count = Math.max(0, state.count - cost);
  return {
    state: { window: state.window, count },
    ttl: count === 0 ? 0 : (state.window + 1) * p.period - now,
  };
}
