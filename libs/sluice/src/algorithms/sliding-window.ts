import type { RateParams, Verdict } from './algorithm.types.js';
import { idiv, imod } from './integer-math.js';

/**
 * State: `segments` counters, one per segment of period / segments µs, kept in slot
 * (segment mod segments), and the newest segment written (latest), which tells each slot's age.
 */
export interface SlidingWindowState {
  latest: number;
  counts: number[];
}

interface Window {
  current: number;
  bySegment: Map<number, number>;
  used: number;
  newest: number | undefined;
}

/** The counters that still lie within the segments-long window ending at the current segment. */
function open(state: SlidingWindowState | undefined, now: number, p: RateParams): Window {
  const window: Window = {
    current: idiv(now, p.segment),
    bySegment: new Map(),
    used: 0,
    newest: undefined,
  };
  if (state === undefined) return window;
  window.current = Math.max(window.current, state.latest);
  state.counts.forEach((count, slot) => {
    const segment = state.latest - imod(state.latest - slot, p.segments);
    if (count > 0 && segment > window.current - p.segments) {
      window.bySegment.set(segment, count);
      window.used += count;
      window.newest = Math.max(window.newest ?? segment, segment);
    }
  });
  return window;
}

function close(
  window: Window,
  now: number,
  p: RateParams,
): { state: SlidingWindowState; ttl: number } {
  const counts = new Array<number>(p.segments).fill(0);
  let newest: number | undefined;
  for (const [segment, count] of window.bySegment) {
    if (count > 0) {
      counts[imod(segment, p.segments)] = count;
      newest = Math.max(newest ?? segment, segment);
    }
  }
  const ttl = newest === undefined ? 0 : (newest + p.segments) * p.segment - now;
  return { state: { latest: window.current, counts }, ttl };
}

export function decide(
  state: SlidingWindowState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): Verdict<SlidingWindowState> {
  const window = open(state, now, p);
  if (window.used + cost <= p.limit) {
    if (cost > 0) {
      window.bySegment.set(window.current, (window.bySegment.get(window.current) ?? 0) + cost);
    }
    const next = close(window, now, p);
    return {
      allowed: true,
      remaining: p.limit - window.used - cost,
      reset: next.ttl,
      retry: 0,
      delay: 0,
      state: next.state,
      ttl: next.ttl,
    };
  }
  let retry = 0;
  let freed = 0;
  for (let segment = window.current - p.segments + 1; segment <= window.current; segment++) {
    freed += window.bySegment.get(segment) ?? 0;
    if (window.used - freed + cost <= p.limit) {
      retry = (segment + p.segments) * p.segment - now;
      break;
    }
  }
  const reset = ((window.newest ?? window.current) + p.segments) * p.segment - now;
  return {
    allowed: false,
    remaining: Math.max(0, p.limit - window.used),
    reset,
    retry,
    delay: 0,
    ttl: reset,
  };
}

/** Gives back cost units, newest segments first. */
export function refund(
  state: SlidingWindowState | undefined,
  now: number,
  p: RateParams,
  cost: number,
): { state: SlidingWindowState; ttl: number } | undefined {
  if (state === undefined) return undefined;
  const window = open(state, now, p);
  let left = cost;
  for (let segment = window.current; segment > window.current - p.segments && left > 0; segment--) {
    const count = window.bySegment.get(segment) ?? 0;
    const taken = Math.min(count, left);
    window.bySegment.set(segment, count - taken);
    left -= taken;
  }
  return close(window, now, p);
}
