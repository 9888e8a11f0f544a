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

/** A reply watched: when it is due, whether it came, and how to fail its caller. */
interface Watched {
  dueAt: number;
  settled: boolean;
  fail(): void;
}

/**
 * The replies awaited under one timeout, in the order they were sent: with one timeout their
 * deadlines come in that order too, so one timer, set for the oldest reply still awaited, serves
 * them all. A send then costs no timer of its own (docs/architecture.md, "Rules of the hot path").
 */
class DeadlineQueue {
  private readonly watched: Watched[] = [];
  private head = 0;
  /** A timer is set, or a sweep is scheduled. */
  private waiting = false;

  constructor(private readonly timeoutMs: number) {}

  watch<T>(reply: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Watched = {
        dueAt: performance.now() + this.timeoutMs,
        settled: false,
        fail: () => reject(new StoreTimeoutError(this.timeoutMs)),
      };
      this.watched.push(entry);
      if (!this.waiting) this.wakeIn(this.timeoutMs);
      reply.then(
        (value) => {
          entry.settled = true;
          resolve(value);
        },
        (error: unknown) => {
          entry.settled = true;
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the reply's own failure, passed on as it is
          reject(error);
        },
      );
    });
  }

  private wakeIn(ms: number): void {
    this.waiting = true;
    setTimeout(this.expire, Math.max(1, Math.ceil(ms)));
  }

  // The verdict waits for the check phase, after the I/O phase has read what arrived meanwhile.
  private readonly expire = (): void => {
    setImmediate(this.sweep);
  };

  private readonly sweep = (): void => {
    const now = performance.now();
    const { watched } = this;
    while (this.head < watched.length) {
      const entry = watched[this.head] as Watched;
      if (!entry.settled) {
        if (entry.dueAt > now) break;
        entry.settled = true;
        entry.fail();
      }
      this.head++;
    }
    if (this.head === watched.length) {
      watched.length = 0;
      this.head = 0;
      this.waiting = false;
      return;
    }
    if (this.head > 1024) {
      watched.splice(0, this.head);
      this.head = 0;
    }
    this.wakeIn((watched[this.head] as Watched).dueAt - now);
  };
}

const queues = new Map<number, DeadlineQueue>();

/**
 * Settles as `reply` does, or fails with StoreTimeoutError when timeoutMs pass without it. The
 * verdict is given in the event loop's check phase, which comes after its I/O phase: when the app
 * itself held the loop past the deadline (a long synchronous task, a garbage collection), a reply
 * that arrived meanwhile is read first, and the call does not fail, nor count against Redis in
 * the breaker, for the app's own delay. (ioredis' commandTimeout fires in the timers phase,
 * before such a reply is read.)
 */
export function withinDeadline<T>(reply: Promise<T>, timeoutMs: number): Promise<T> {
  let queue = queues.get(timeoutMs);
  if (queue === undefined) queues.set(timeoutMs, (queue = new DeadlineQueue(timeoutMs)));
  return queue.watch(reply);
}
