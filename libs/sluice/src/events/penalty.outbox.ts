import type { Clock } from '../clock/clock.js';
import type { Logger } from '@nestjs/common';
import { ThrottledLogger } from '../logging/throttled.logger.js';
import type { PenaltyEvent } from '../penalty/penalty.event.js';
import type { PenaltyStream } from '../penalty/penalty.stream.js';

/** Events waiting for Redis beyond this many are dropped, oldest first, and the drop logged. */
const MAX_WAITING = 10_000;
const BATCH = 500;
const RETRY_MS = 1_000;
const LOG_EVERY_MS = 10_000;

/**
 * Takes appends to the penalty stream off the request path: events are queued, sent in
 * batches on a later turn, and kept (up to MAX_WAITING) while Redis is away.
 */
export class PenaltyOutbox {
  private readonly waiting: PenaltyEvent[] = [];
  private readonly waitLog: ThrottledLogger;
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private dropped = 0;

  constructor(
    private readonly stream: PenaltyStream,
    private readonly logger: Logger,
    clock: Clock,
  ) {
    this.waitLog = new ThrottledLogger(logger, LOG_EVERY_MS, clock);
  }

  /** Events not yet in the stream. */
  get pending(): number {
    return this.waiting.length;
  }

  add(event: PenaltyEvent): void {
    this.waiting.push(event);
    if (this.waiting.length > MAX_WAITING) {
      this.dropped += this.waiting.splice(0, this.waiting.length - MAX_WAITING).length;
    }
    this.schedule(0);
  }

  /** Sends what waits, in batches; on failure keeps it and tries again a second later. */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Sends what waits one last time, then closes the stream. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.flush();
    await this.stream.close();
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    if (delayMs > 0) this.timer.unref();
  }

  private async send(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.slice(0, BATCH);
      try {
        await this.stream.append(batch);
      } catch (error) {
        this.waitLog.warn(
          `Penalty events wait for Redis (${this.waiting.length}): ${String(error)}`,
        );
        this.schedule(RETRY_MS);
        return;
      }
      this.waiting.splice(0, batch.length);
    }
    if (this.dropped > 0) {
      this.logger.error(`${this.dropped} penalty events were dropped while Redis was away`);
      this.dropped = 0;
    }
  }
}
