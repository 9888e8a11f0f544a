import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  PENALTY_STREAM,
  PolicyBus,
  SLUICE_CLOCK,
  type Clock,
  type PenaltyEvent,
  type PenaltyStream,
  type PenaltyStreamEntry,
  ThrottledLogger,
} from '@sluice/nest/internals';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { inTransaction } from '../database/transaction.js';
import type { SluiceAdminModuleOptions } from '../config/sluice-admin-options.interface.js';
import { ADMIN_OPTIONS } from '../config/sluice-admin.tokens.js';
import { recordEvents } from './penalty.rows.js';
import { WebhookDispatcher } from './webhook.dispatcher.js';

/** Every admin instance reads in this group, so each event is recorded by one of them. */
export const PENALTY_GROUP = 'sluice-admin';
const BATCH = 500;
const READ_BLOCK_MS = 1_000;
const RETRY_MS = 1_000;
const DEFAULT_CLAIM_IDLE_MS = 30_000;
const LOG_EVERY_MS = 10_000;

/** `penalties.claimIdleMs`, checked: 100 ms to a day. */
export function claimIdleMs(value: unknown): number {
  if (value === undefined) return DEFAULT_CLAIM_IDLE_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || value > 86_400_000) {
    throw new Error(
      `SluiceAdminModule options.penalties.claimIdleMs: must be an integer from 100 to 86400000 (ms), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Consumes the penalty stream into `sluice_penalty`: its own unacknowledged entries first, then
 * those a departed admin left (idle for `claimIdleMs`), then new ones. An entry is acknowledged
 * only once its transaction has committed, and recording is idempotent on the event id, so an
 * event is never lost while PostgreSQL or the admin is down, and never recorded twice.
 */
@Injectable()
export class PenaltyRecorder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SluiceAdmin');
  private readonly waitLog: ThrottledLogger;
  private readonly consumer: string;
  private readonly claimIdleMs: number;
  private running = false;
  private loop: Promise<void> | undefined;
  private recordedCount = 0;

  constructor(
    @Inject(PENALTY_STREAM) private readonly stream: PenaltyStream,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(ADMIN_OPTIONS) options: SluiceAdminModuleOptions,
    @Inject(PolicyBus) bus: PolicyBus,
    @Inject(WebhookDispatcher) private readonly webhooks: WebhookDispatcher,
    @Inject(SLUICE_CLOCK) clock: Clock,
  ) {
    this.waitLog = new ThrottledLogger(this.logger, LOG_EVERY_MS, clock);
    this.consumer = bus.instanceId;
    this.claimIdleMs = claimIdleMs(options.penalties?.claimIdleMs);
  }

  /** Events this process has recorded since it started (duplicates not counted). */
  get recorded(): number {
    return this.recordedCount;
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.follow();
  }

  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    // The blocking read would hold the shutdown for up to READ_BLOCK_MS: closing its connection
    // ends it now. What it had been given stays pending, read again at the next start.
    await this.stream.close();
    await this.loop;
  }

  private async follow(): Promise<void> {
    let grouped = false;
    while (this.running) {
      try {
        if (!grouped) await this.stream.ensureGroup(PENALTY_GROUP);
        grouped = true;
        const entries = await this.next();
        if (entries.length > 0) await this.record(entries);
      } catch (error) {
        if (!this.running) break;
        this.waitLog.warn(`Penalty events wait in the stream: ${(error as Error).message}`);
        await sleep(RETRY_MS);
      }
    }
  }

  private async next(): Promise<PenaltyStreamEntry[]> {
    const mine = await this.stream.readPending(PENALTY_GROUP, this.consumer, BATCH);
    if (mine.length > 0) return mine;
    const left = await this.stream.claim(PENALTY_GROUP, this.consumer, this.claimIdleMs, BATCH);
    if (left.length > 0) return left;
    return this.stream.readNew(PENALTY_GROUP, this.consumer, BATCH, READ_BLOCK_MS);
  }

  private async record(entries: PenaltyStreamEntry[]): Promise<void> {
    const events = entries.flatMap((entry) => (entry.event === null ? [] : [entry.event]));
    const skipped = entries.length - events.length;
    if (skipped > 0)
      this.logger.warn(`Skipped ${skipped} stream entries that hold no penalty event`);
    const fresh: PenaltyEvent[] = await inTransaction(this.dataSource, (manager) =>
      recordEvents(manager, events),
    );
    await this.stream.ack(
      PENALTY_GROUP,
      entries.map((entry) => entry.entryId),
    );
    this.recordedCount += fresh.length;
    for (const event of fresh) this.webhooks.send(event);
  }
}
