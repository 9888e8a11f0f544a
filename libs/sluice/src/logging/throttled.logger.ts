/** Where a ThrottledLogger writes: Nest's Logger, or anything with its warn and error. */
export interface LogSink {
  /** Writes a warning. */
  warn(message: string): void;
  /** Writes an error. */
  error(message: string): void;
}

/**
 * Writes at most one message per interval. A failure that repeats on every request or every
 * second (Redis or PostgreSQL away) leaves one line per interval instead of thousands; the
 * messages held back are counted, and the next line written says how many there were.
 */
export class ThrottledLogger {
  private lastMs = Number.NEGATIVE_INFINITY;
  private held = 0;

  constructor(
    private readonly sink: LogSink,
    private readonly everyMs: number,
    /** The time, µs since the epoch: the module's Clock (a type this layer cannot import). */
    private readonly clock: () => number,
  ) {}

  /** Writes a warning, unless one was written within the interval. */
  warn(message: string): void {
    this.write('warn', message);
  }

  /** Writes an error, unless a message was written within the interval. */
  error(message: string): void {
    this.write('error', message);
  }

  private write(level: keyof LogSink, message: string): void {
    const now = this.clock() / 1000;
    if (now - this.lastMs < this.everyMs) {
      this.held++;
      return;
    }
    this.lastMs = now;
    const held = this.held === 0 ? '' : ` (${this.held} more like it since the last message)`;
    this.held = 0;
    this.sink[level](message + held);
  }
}
