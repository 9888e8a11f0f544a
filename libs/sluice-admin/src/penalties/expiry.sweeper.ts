import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  PenaltyEventPublisher,
  PeriodicTask,
  PolicyBus,
  SLUICE_CLOCK,
  type Clock,
  type PenaltyEvent,
} from '@sluice/nest/internals';
import { DataSource } from 'typeorm';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import type { SluiceAdminModuleOptions } from '../config/sluice-admin-options.interface.js';
import { ADMIN_OPTIONS } from '../config/sluice-admin.tokens.js';
import { WebhookDispatcher } from './webhook.dispatcher.js';

const SWEEP_EVERY_MS = 5_000;
export const EXPIRED = 'expired';
/** How often ended blocks past the retention are deleted, and how many rows at most a time. */
const PURGE_EVERY_MS = 3_600_000;
const PURGE_BATCH = 10_000;
const DEFAULT_RETENTION_DAYS = 90;

/** `penalties.retentionDays`, checked; throws naming the option. */
export function retentionDays(value: unknown): number {
  if (value === undefined) return DEFAULT_RETENTION_DAYS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 3650) {
    throw new Error(
      `SluiceAdminModule options.penalties.retentionDays: must be an integer from 1 to 3650, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

interface ExpiredRow {
  id: string;
  policy: string;
  policy_version: string;
  key_kind: string;
  identifier: string;
  identifier_key: string | null;
  offence_level: number;
  started_at: Date;
  expires_at: Date;
}

/**
 * A block that runs its course ends with nobody there to see it: every 5 s the admin marks the
 * blocks whose end has passed as lifted (`expired`) and announces each as a `block.lifted` event,
 * in-process and to the webhooks. Each row is claimed by one UPDATE, so with several admins each
 * expiry is announced once.
 */
@Injectable()
export class ExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SluiceAdmin');
  private readonly sweeps = new PeriodicTask(
    () => this.markExpired().then(() => this.purgeIfDue()),
    SWEEP_EVERY_MS,
  );
  private readonly retentionDays: number;
  private lastPurge = 0;

  constructor(
    @Inject(ADMIN_OPTIONS) options: SluiceAdminModuleOptions,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(PenaltyEventPublisher) private readonly events: PenaltyEventPublisher,
    @Inject(WebhookDispatcher) private readonly webhooks: WebhookDispatcher,
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    // SluiceModule's clock (µs): when the last purge ran, so a test may move time on.
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {
    this.retentionDays = retentionDays(options.penalties?.retentionDays);
  }

  onApplicationBootstrap(): void {
    this.sweeps.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.sweeps.stop();
  }

  /** One sweep at a time; resolves once the blocks ended by now are marked and announced. */
  sweep(): Promise<void> {
    return this.sweeps.run();
  }

  /**
   * Deletes the history of blocks that ended more than retentionDays ago, a batch at a time;
   * resolves how many rows went. The history would otherwise grow for good (docs/operations.md).
   */
  async purge(): Promise<number> {
    this.lastPurge = this.nowMs();
    const [, deleted] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM sluice_penalty WHERE id IN (
         SELECT id FROM sluice_penalty
         WHERE COALESCE(lifted_at, expires_at) < now() - make_interval(days => $1)
         LIMIT $2)`,
      [this.retentionDays, PURGE_BATCH],
    );
    return deleted;
  }

  private nowMs(): number {
    return Math.floor(this.clock() / 1_000);
  }

  private async purgeIfDue(): Promise<void> {
    if (this.nowMs() - this.lastPurge < PURGE_EVERY_MS) return;
    try {
      await this.purge();
    } catch (error) {
      this.logger.warn(`Could not delete the old penalty history: ${(error as Error).message}`);
    }
  }

  private async markExpired(): Promise<void> {
    let rows: ExpiredRow[];
    try {
      [rows] = await this.dataSource.query<[ExpiredRow[], number]>(
        `UPDATE sluice_penalty SET lifted_at = expires_at, lift_reason = $1
         WHERE lifted_at IS NULL AND expires_at <= now()
         RETURNING id, policy, policy_version, key_kind, identifier, identifier_key, offence_level,
           started_at, expires_at`,
        [EXPIRED],
      );
    } catch (error) {
      this.logger.warn(`Could not mark the expired blocks: ${(error as Error).message}`);
      return;
    }
    for (const row of rows) {
      const event: PenaltyEvent = {
        id: `expired-${row.id}`,
        type: 'block.lifted',
        occurredAt: row.expires_at.getTime(),
        policy: row.policy,
        policyVersion: Number(row.policy_version),
        keyKind: row.key_kind,
        identifier: row.identifier,
        offence: row.offence_level,
        startedAt: row.started_at.getTime(),
        expiresAt: row.expires_at.getTime(),
        trigger: null,
        actor: null,
        reason: EXPIRED,
        instanceId: this.bus.instanceId,
        route: null,
        ...(row.identifier_key === null ? {} : { key: row.identifier_key }),
      };
      this.events.emitLocally(event);
      this.webhooks.send(event);
    }
  }
}
