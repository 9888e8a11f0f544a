/**
 * A task run every `everyMs`: one run at a time (a run asked for while one is under way gets
 * that one), on a timer that never keeps the process alive, and stopped at shutdown after the
 * run under way ends. Sweepers, publishers, flushes and polls share it (docs/architecture.md).
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly everyMs: number,
  ) {}

  /** Starts the runs; a second call while started does nothing. */
  start(): void {
    if (this.timer !== undefined) return;
    // Each task reports its own failures; a rejection here would only be unhandled.
    this.timer = setInterval(() => void this.run().catch(() => undefined), this.everyMs);
    this.timer.unref();
  }

  /**
   * Runs the task now, or joins the run under way. `work` runs in the task's place, one at a time
   * with it (a sweep as of a chosen time). It starts at once, within this call, so what it sends
   * leaves before anything its caller does next (a final flush before a connection closes).
   */
  run(work: () => Promise<void> = this.task): Promise<void> {
    if (this.running !== undefined) return this.running;
    let started: Promise<void>;
    try {
      started = work();
    } catch (error) {
      started = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const running = started.finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  /**
   * No further runs (the timer stops within this call); resolves once the run under way, if any,
   * has ended.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
