import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Clock } from '../clock/clock.js';
import { PeriodicTask } from '../clock/periodic.task.js';
import { LIST_HITS, SLUICE_CLOCK } from '../config/sluice.tokens.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import type { ListHits } from '../lists/access-lists.js';
import { ThrottledLogger } from '../logging/throttled.logger.js';
import type { ListHitStore } from './list-hits.store.js';

const FLUSH_EVERY_MS = 1_000;
const LOG_EVERY_MS = 60_000;

/**
 * Sends what this instance's list entries matched to the shared totals once a second, so the
 * panel shows how often an entry acted, or in shadow mode would have (docs/guide.md).
 */
@Injectable()
export class ListHitTally
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new ThrottledLogger(new Logger('Sluice'), LOG_EVERY_MS, () =>
    this.clock(),
  );
  private readonly task = new PeriodicTask(() => this.flush(), FLUSH_EVERY_MS);

  constructor(
    @Inject(SluiceEngine) private readonly engine: SluiceEngine,
    @Inject(LIST_HITS) private readonly store: ListHitStore,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  /** Starts the flushes. */
  onModuleInit(): void {
    this.task.start();
  }

  /**
   * Sends what was counted before any module's onApplicationShutdown, while an app's own Redis
   * client is still open; onApplicationShutdown sends what comes after.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** Stops them, after sending what was counted since the last one. */
  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
    await this.flush();
  }

  /** Sends the matches counted since the last flush; kept for the next one when the store fails. */
  async flush(): Promise<void> {
    const hits = this.engine.lists.takeHits();
    if (hits.size === 0) return;
    try {
      await this.store.add(hits);
    } catch (error) {
      this.engine.lists.giveBackHits(hits);
      this.logger.warn(`List entry matches of the last second were not stored: ${String(error)}`);
    }
  }

  /** Every instance's totals by entry id, as last flushed. */
  read(): Promise<Map<string, ListHits>> {
    return this.store.read();
  }

  /** Drops a removed entry's totals. */
  forget(id: string): Promise<void> {
    return this.store.forget(id);
  }
}
