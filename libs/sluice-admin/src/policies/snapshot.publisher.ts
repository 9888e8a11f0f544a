import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  epochMs,
  PeriodicTask,
  PolicyBus,
  SLUICE_CLOCK,
  type Clock,
  type PolicySnapshot,
} from '@sluice/nest/internals';
import { DataSource } from 'typeorm';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { readSetting, readSnapshot, SETTING_ID } from '../database/snapshot.reader.js';
import { SettingEntity } from '../database/setting.entity.js';
import { SYSTEM_ACTOR } from '../common/system.actor.js';
import { inTransaction } from '../database/transaction.js';

const CHECK_EVERY_MS = 5_000;

/**
 * Gets committed changes into Redis: right after each commit, and every 5 s when Redis is behind
 * the database (a publish failed while Redis was down, or Redis lost its data).
 */
@Injectable()
export class SnapshotPublisher implements OnApplicationShutdown {
  private readonly logger = new Logger('SluiceAdmin');
  private readonly checks = new PeriodicTask(() => this.republishIfBehind(), CHECK_EVERY_MS);
  private failing = false;
  private warnedAhead = false;

  constructor(
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  /** Publishes a committed snapshot; false (and a warning) when Redis did not take it. */
  async publish(snapshot: PolicySnapshot, changed: string | null): Promise<boolean> {
    try {
      await this.bus.publish(snapshot, changed);
      if (this.failing) this.logger.log(`Policy version ${snapshot.version} published`);
      this.failing = false;
      return true;
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(
          `Policy version ${snapshot.version} is committed but could not be published (${(error as Error).message}); trying again every ${CHECK_EVERY_MS / 1000} s`,
        );
      }
      this.failing = true;
      return false;
    }
  }

  /** Publishes the database's snapshot once, then keeps Redis in step. */
  async start(): Promise<void> {
    await this.passRedisVersion();
    const snapshot = await inTransaction(
      this.dataSource,
      (manager) => readSnapshot(manager, epochMs(this.clock)),
      'REPEATABLE READ',
    );
    if (snapshot.version > 0) await this.publish(snapshot, null);
    this.checks.start();
  }

  /** One comparison at a time; resolves when Redis holds the database's version or cannot. */
  check(): Promise<void> {
    return this.checks.run();
  }

  onApplicationShutdown(): Promise<void> {
    return this.checks.stop();
  }

  private async republishIfBehind(): Promise<void> {
    try {
      const [stored, setting] = await Promise.all([
        this.bus.storedVersion(),
        readSetting(this.dataSource.manager),
      ]);
      if (setting.version === 0) return;
      if (stored !== null && stored >= setting.version) {
        this.warnIfAhead(stored, setting.version);
        return;
      }
      const snapshot = await inTransaction(
        this.dataSource,
        (manager) => readSnapshot(manager, epochMs(this.clock)),
        'REPEATABLE READ',
      );
      await this.publish(snapshot, null);
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(`Could not compare the published policies: ${(error as Error).message}`);
      }
      this.failing = true;
    }
  }

  /**
   * A policy database replaced, or restored from a backup, has a version below the one Redis
   * holds, and every instance would ignore its snapshots until it passed that version. So at
   * start the database's version moves one past Redis's, in one conditional update (of admins
   * starting together, one moves it), and the snapshot published next is applied everywhere.
   */
  private async passRedisVersion(): Promise<void> {
    const stored = await this.bus.storedVersion().catch(() => null);
    if (stored === null) return;
    const moved = await this.dataSource
      .createQueryBuilder()
      .update(SettingEntity)
      .set({ version: stored + 1, updatedAt: () => 'now()', updatedBy: SYSTEM_ACTOR.name })
      .where('id = :id AND version < :stored', { id: SETTING_ID, stored })
      .execute();
    if ((moved.affected ?? 0) > 0) {
      this.logger.warn(
        `The policy database's version was below version ${stored}, which Redis holds (the database was replaced or restored): it is now ${stored + 1}, so every instance applies its policies`,
      );
    }
  }

  private warnIfAhead(stored: number, current: number): void {
    if (stored === current || this.warnedAhead) return;
    this.warnedAhead = true;
    this.logger.warn(
      `Redis holds policy version ${stored}, newer than the database's ${current}: another policy database publishes under this prefix, or this one was replaced. Instances keep version ${stored} until the database passes it.`,
    );
  }
}
