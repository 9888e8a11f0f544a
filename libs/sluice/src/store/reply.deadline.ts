/** Redis did not answer a call within the store's timeoutMs. */
export class StoreTimeoutError extends Error {
  /** Always 'StoreTimeoutError'. */
  override name = 'StoreTimeoutError';
  constructor(
    /** The timeout that passed, ms. */
    readonly timeoutMs: number,
  ) {
    super(`Redis did not answer within ${timeoutMs} ms`);
  }
}

/**
 * Settles as `reply` does, or fails with StoreTimeoutError when timeoutMs pass without it. The
 * verdict is given in the event loop's check phase, which comes after its I/O phase: when the app
 * itself held the loop past the deadline (a long synchronous task, a garbage collection), a reply
 * that arrived meanwhile is read first, and the call does not fail, nor count against Redis in
 * the breaker, for the app's own delay. (ioredis' commandTimeout fires in the timers phase,
 * before such a reply is read.)
 */
export function withinDeadline<T>(reply: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const giveUp = (): void => reject(new StoreTimeoutError(timeoutMs));
    const timer = setTimeout(() => setImmediate(giveUp), timeoutMs);
    void reply.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
