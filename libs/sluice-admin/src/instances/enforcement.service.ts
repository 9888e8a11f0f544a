import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { EnforcementState } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { SettingEntity } from '../database/setting.entity.js';
import { readSetting, SETTING_ID } from '../database/snapshot.reader.js';
import { VersionedWrites } from '../database/versioned-writes.service.js';
import { SnapshotPublisher } from '../policies/snapshot.publisher.js';
import { recordAudit } from '../database/audit.recorder.js';
import type { EnforcementBody } from './enforcement-body.schema.js';

/** The global switch (docs/architecture.md, choices worth knowing): audited and versioned like any policy change. */
@Injectable()
export class EnforcementService {
  constructor(
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(VersionedWrites) private readonly writes: VersionedWrites,
    @Inject(SnapshotPublisher) private readonly publisher: SnapshotPublisher,
  ) {}

  async get(): Promise<EnforcementState> {
    const setting = await readSetting(this.dataSource.manager);
    return { enabled: setting.enforcement, version: setting.version };
  }

  async set(request: EnforcementBody, actor: Actor): Promise<EnforcementState> {
    const { result, snapshot } = await this.writes.write(actor, async (manager, version) => {
      const before = await readSetting(manager);
      await manager.update(SettingEntity, { id: SETTING_ID }, { enforcement: request.enabled });
      await recordAudit(manager, {
        actor,
        action: 'enforcement.set',
        target: 'enforcement',
        before: { enabled: before.enforcement },
        after: { enabled: request.enabled },
        comment: request.comment ?? null,
        version,
      });
      return { enabled: request.enabled, version };
    });
    await this.publisher.publish(snapshot, null);
    return result;
  }
}
