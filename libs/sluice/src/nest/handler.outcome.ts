/**
 * What one handler invocation tells its guard after the guard has run: whether the handler
 * failed. A GraphQL resolver that throws answers HTTP 200 with an `errors` entry, so for
 * `count: 'failures'` the outcome comes from the resolver itself (GraphqlOutcomeInterceptor),
 * not from the response's status (docs/guide.md, GraphQL).
 */
const awaiting = new WeakMap<object, (failed: boolean) => void>();

/** The guard asks to hear how the invocation identified by `key` ends. */
export function awaitOutcome(key: object, listener: (failed: boolean) => void): void {
  awaiting.set(key, listener);
}

/** The listener waiting on `key`, taken off so it runs once; undefined when none waits. */
export function takeOutcomeListener(key: object): ((failed: boolean) => void) | undefined {
  const listener = awaiting.get(key);
  if (listener !== undefined) awaiting.delete(key);
  return listener;
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
