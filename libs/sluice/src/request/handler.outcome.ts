/**
 * What one handler invocation tells its guard after the guard has run: that it ended, and whether
 * it failed. A GraphQL resolver that throws answers HTTP 200 with an `errors` entry, so for
 * `count: 'failures'` the outcome comes from the resolver itself (HandlerOutcomeInterceptor), not
 * from the response's status (docs/guide.md, GraphQL); a WebSocket message has no response at
 * all, so its concurrency lease ends with its handler.
 */
interface Awaiting {
  listeners: Array<(failed: boolean) => void>;
  holdMs: number;
}

/** How an invocation's outcome is reported, and how long to wait for it after its client left. */
export interface OutcomeReport {
  /** Tells every guard that waits how the invocation ended; call once. */
  settle(failed: boolean): void;
  /**
   * How long the handler's outcome is awaited once its client is gone (the transport stopped
   * listening): as long as what it holds would last by itself; 0, not at all.
   */
  holdMs: number;
}

const awaiting = new WeakMap<object, Awaiting>();

/**
 * The guard asks to hear how the invocation identified by `key` ends. `holdMs`: how long its
 * holdings last by themselves (the longest lease), so the outcome is awaited that long after
 * the client left.
 */
export function awaitOutcome(key: object, listener: (failed: boolean) => void, holdMs = 0): void {
  const entry = awaiting.get(key);
  if (entry === undefined) awaiting.set(key, { listeners: [listener], holdMs });
  else {
    entry.listeners.push(listener);
    entry.holdMs = Math.max(entry.holdMs, holdMs);
  }
}

/** The report of `key`'s outcome, taken off so it runs once; undefined when no guard waits. */
export function takeOutcome(key: object): OutcomeReport | undefined {
  const entry = awaiting.get(key);
  if (entry === undefined) return undefined;
  awaiting.delete(key);
  const { listeners, holdMs } = entry;
  return {
    holdMs,
    settle: (failed) => {
      for (const listener of listeners) listener(failed);
    },
  };
}

/**
 * Marks an invocation already decided. A request meets SluiceGuard twice when the guard is global
 * and a handler also names it (or a subclass) with @UseGuards: the second one lets it through,
 * so each request is decided once. The mark is a property of the invocation's own object (a
 * WeakSet costs every request a weak entry the collector must trace); a frozen object goes in
 * the WeakSet instead.
 */
const DECIDED = Symbol('sluice.decided');
const decidedFrozen = new WeakSet<object>();

/** True the first time for `key`, false after. */
export function firstDecision(key: object): boolean {
  const marked = key as { [DECIDED]?: true };
  if (marked[DECIDED] === true) return false;
  if (Object.isExtensible(key)) {
    marked[DECIDED] = true;
    return true;
  }
  if (decidedFrozen.has(key)) return false;
  decidedFrozen.add(key);
  return true;
}
