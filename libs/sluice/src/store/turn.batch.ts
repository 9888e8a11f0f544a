interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * When a batch's calls go: at the end of the event loop's turn, or after a hold. Injected, so a
 * test runs turns and holds by hand instead of waiting for them.
 */
export interface TurnScheduler {
  endOfTurn(run: () => void): void;
  after(ms: number, run: () => void): unknown;
  cancel(handle: unknown): void;
}

/** The event loop's own: setImmediate runs once the turn's I/O callbacks have all run. */
export const eventLoopTurns: TurnScheduler = {
  endOfTurn: (run) => setImmediate(run),
  after: (ms, run) => setTimeout(run, ms),
  cancel: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface TurnBatchOptions<T = unknown> {
  /** Calls per send at most. */
  maxItems: number;
  /**
   * While a send is out, new calls wait for it to come back, but at most this long, ms. 0: they
   * do not wait, each turn's calls go at the turn's end.
   */
  maxHoldMs: number;
  /** Default: the event loop's turns and timers. */
  scheduler?: TurnScheduler;
  /** Told of each call's end, just before its promise settles. */
  settled?: (item: T, failed: boolean) => void;
}

/**
 * Gathers calls and sends them together. The calls made during one turn of the event loop go
 * once that turn's I/O callbacks have all run (setImmediate), so the requests read from many
 * sockets in one turn share one send. While a send is out, new calls wait for it to come back
 * (under load each send then carries what arrived meanwhile), though never longer than
 * maxHoldMs, so a slow reply cannot hold them past their own timeout. A send answers each call
 * with its result, or an Error for that call alone; a send that fails fails all of its calls.
 */
export class TurnBatch<T, R> {
  private waiting: Array<Waiting<T, R>> = [];
  private sending = 0;
  private scheduled = false;
  private hold: unknown;
  private readonly scheduler: TurnScheduler;

  constructor(
    private readonly send: (items: T[]) => Promise<Array<R | Error>>,
    private readonly options: TurnBatchOptions<T>,
  ) {
    this.scheduler = options.scheduler ?? eventLoopTurns;
  }

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    if (this.sending === 0 || this.options.maxHoldMs === 0) {
      this.scheduled = true;
      this.scheduler.endOfTurn(this.flush);
    } else {
      this.hold ??= this.scheduler.after(this.options.maxHoldMs, this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.hold !== undefined) this.scheduler.cancel(this.hold);
    this.hold = undefined;
    if (this.waiting.length === 0) return;
    const chunk = this.waiting.splice(0, this.options.maxItems);
    this.sending++;
    // One promise a send: its calls answered, then the next send scheduled, in the same job.
    this.send(chunk.map((each) => each.item)).then(
      (results) => {
        const settled = this.options.settled;
        try {
          chunk.forEach((each, index) => {
            const result = results[index] as R | Error;
            const failed = result instanceof Error;
            settled?.(each.item, failed);
            if (failed) each.reject(result);
            else each.resolve(result);
          });
        } finally {
          this.sent();
        }
      },
      (error: unknown) => {
        const settled = this.options.settled;
        for (const each of chunk) {
          settled?.(each.item, true);
          each.reject(error);
        }
        this.sent();
      },
    );
    this.schedule();
  };

  private sent(): void {
    this.sending--;
    this.schedule();
  }
}
