/**
 * What one handler invocation tells its guard after the guard has run: that it ended, and whether
 * it failed. A GraphQL resolver that throws answers HTTP 200 with an `errors` entry, so for
 * `count: 'failures'` the outcome comes from the resolver itself (HandlerOutcomeInterceptor), not
 * from the response's status (docs/guide.md, GraphQL); a WebSocket message has no response at
 * all, so its concurrency lease ends with its handler.
 */
const awaiting = new WeakMap<object, Array<(failed: boolean) => void>>();

/** The guard asks to hear how the invocation identified by `key` ends. */
export function awaitOutcome(key: object, listener: (failed: boolean) => void): void {
  const listeners = awaiting.get(key);
  if (listeners === undefined) awaiting.set(key, [listener]);
  else listeners.push(listener);
}

/** The listeners waiting on `key` as one, taken off so they run once; undefined when none waits. */
export function takeOutcomeListener(key: object): ((failed: boolean) => void) | undefined {
  const listeners = awaiting.get(key);
  if (listeners === undefined) return undefined;
  awaiting.delete(key);
  return (failed) => {
    for (const listener of listeners) listener(failed);
  };
}

/**
 * The invocations already decided. A request meets SluiceGuard twice when the guard is global
 * and a handler also names it (or a subclass) with @UseGuards: the second one lets it through,
 * so each request is decided once.
 */
const decided = new WeakSet<object>();

/** True the first time for `key`, false after. */
export function firstDecision(key: object): boolean {
  if (decided.has(key)) return false;
  decided.add(key);
  return true;
}
