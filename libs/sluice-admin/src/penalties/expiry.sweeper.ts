import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PenaltyEventPublisher, PolicyBus, type PenaltyEvent } from '@sluice/nest/internals';
import { DataSource } from 'typeorm';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { WebhookDispatcher } from './webhook.dispatcher.js';

const SWEEP_EVERY_MS = 5_000;
export const EXPIRED = 'expired';

interface ExpiredRow {
  id: string;
  policy: string;
  policy_version: string;
  key_kind: string;
  identifier: string;
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
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(PenaltyEventPublisher) private readonly events: PenaltyEventPublisher,
    @Inject(WebhookDispatcher) private readonly webhooks: WebhookDispatcher,
    @Inject(PolicyBus) private readonly bus: PolicyBus,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One sweep at a time; resolves once the blocks ended by now are marked and announced. */
  sweep(): Promise<void> {
    this.sweeping ??= this.markExpired().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async markExpired(): Promise<void> {
    let rows: ExpiredRow[];
    try {
      [rows] = await this.dataSource.query<[ExpiredRow[], number]>(
        `UPDATE sluice_penalty SET lifted_at = expires_at, lift_reason = $1
         WHERE lifted_at IS NULL AND expires_at <= now()
         RETURNING id, policy, policy_version, key_kind, identifier, offence_level, started_at,
           expires_at`,
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
      };
      this.events.emitLocally(event);
      this.webhooks.send(event);
    }
  }
}
