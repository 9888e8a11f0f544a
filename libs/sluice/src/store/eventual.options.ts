import type { Clock } from '../clock/clock.js';

// What an EventualStore is built with and what it counts.

/** Runs `task` after `ms`; returns how to cancel it. */
export type Scheduler = (task: () => void, ms: number) => () => void;

/** The clock, the scheduler and the bound of an EventualStore. */
export interface EventualStoreOptions {
  /** µs. Default: the system clock. */
  clock?: Clock;
  /** Default: an unreferenced setTimeout, so a pending sync never keeps a process alive. */
  schedule?: Scheduler;
  /** Most views kept (one per policy and identifier); past it the oldest idle ones go. Default 100 000. */
  maxViews?: number;
}

/** How often each kind of call was made: what a test or a benchmark reads. */
export interface EventualCounts {
  /** Consume calls decided here, from a view. */
  local: number;
  /** Consume calls sent to Redis: no usable view, or a refusal Redis must count. */
  exact: number;
  /** Sync calls sent (one per identifier with hits or refusals in an interval). */
  syncs: number;
  /** Sync calls that failed: their units were dropped, never sent twice. */
  failedSyncs: number;
}

/** The default scheduler: an unreferenced setTimeout, so a pending sync never keeps a process alive. */
export const unrefTimeout: Scheduler = (task, ms) => {
  const timer = setTimeout(task, ms);
  timer.unref();
  return () => clearTimeout(timer);
};
