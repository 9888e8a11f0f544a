import { Injectable } from '@nestjs/common';

/**
 * A test app's slow work, counted: how many run now, the most that ever ran at once, how many
 * ended. What a concurrency limit must bound, and what a test waits on instead of a sleep.
 */
@Injectable()
export class WorkCounter {
  running = 0;
  most = 0;
  finished = 0;

  async run(ms: number): Promise<void> {
    this.running++;
    this.most = Math.max(this.most, this.running);
    try {
      await new Promise((resolve) => setTimeout(resolve, ms));
    } finally {
      this.running--;
      this.finished++;
    }
  }

  /** Waits until `count` pieces of work have ended; says when (ms since the epoch). */
  async finishedAt(count: number): Promise<number> {
    const deadline = Date.now() + 10_000;
    while (this.finished < count) {
      if (Date.now() > deadline) throw new Error(`${count} pieces of work never finished`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return Date.now();
  }
}
