import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { epochMs, SLUICE_CLOCK, type Clock, type PolicySnapshot } from '@sluice/nest/internals';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../common/actor.js';
import { ADMIN_DATA_SOURCE } from './admin.persistence.js';
import { SettingEntity } from './setting.entity.js';
import { readSnapshot, SETTING_ID } from './snapshot.reader.js';
import { inTransaction } from './transaction.js';

export interface Committed<T> {
  result: T;
  /** Everything at the new version, to publish once the transaction has committed. */
  snapshot: PolicySnapshot;
}

/** Runs each change as one transaction that also bumps the global version. */
@Injectable()
export class VersionedWrites {
  constructor(
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The bump comes first: its row lock makes concurrent writers wait their turn, so each one reads
   * what the previous one committed. `work` throwing rolls everything back, the bump included.
   */
  write<T>(
    actor: Actor,
    work: (manager: EntityManager, version: number) => Promise<T>,
  ): Promise<Committed<T>> {
    return inTransaction(this.dataSource, async (manager) => {
      const bumped = await manager
        .createQueryBuilder()
        .update(SettingEntity)
        .set({ version: () => 'version + 1', updatedAt: () => 'now()', updatedBy: actor.name })
        .where('id = :id', { id: SETTING_ID })
        .returning(['version'])
        .execute();
      const version = Number((bumped.raw as Array<{ version: string }>)[0]?.version);
      const result = await work(manager, version);
      return { result, snapshot: await readSnapshot(manager, epochMs(this.clock)) };
    });
  }
}
