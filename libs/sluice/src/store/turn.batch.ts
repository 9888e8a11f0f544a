interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface TurnBatchOptions {
  /** Calls per send at most. */
  maxItems: number;
  /**
   * While a send is out, new calls wait for it to come back, but at most this long, ms. 0: they
   * do not wait, each turn's calls go at the turn's end.
   */
  maxHoldMs: number;
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
  private hold: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (items: T[]) => Promise<Array<R | Error>>,
    private readonly options: TurnBatchOptions,
  ) {}

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
      setImmediate(this.flush);
    } else {
      this.hold ??= setTimeout(this.flush, this.options.maxHoldMs);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    clearTimeout(this.hold);
    this.hold = undefined;
    if (this.waiting.length === 0) return;
    const chunk = this.waiting.splice(0, this.options.maxItems);
    this.sending++;
    this.send(chunk.map((each) => each.item))
      .then(
        (results) => {
          chunk.forEach((each, index) => {
            const result = results[index] as R | Error;
            if (result instanceof Error) each.reject(result);
            else each.resolve(result);
          });
        },
        (error: unknown) => {
          for (const each of chunk) each.reject(error);
        },
      )
      .finally(() => {
        this.sending--;
        this.schedule();
      });
    this.schedule();
  };
}
