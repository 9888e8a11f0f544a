import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { EnforcementState } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { SettingEntity } from '../database/setting.entity.js';
import { readSetting, SETTING_ID } from '../database/snapshot.reader.js';
import { PolicyCommits } from '../policies/policy-commits.service.js';
import { recordAudit } from '../database/audit.recorder.js';
import type { EnforcementBody } from './enforcement-body.schema.js';

/** The global switch (docs/architecture.md, choices worth knowing): audited and versioned like any policy change. */
@Injectable()
export class EnforcementService {
  constructor(
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(PolicyCommits) private readonly commits: PolicyCommits,
  ) {}

  async get(): Promise<EnforcementState> {
    const setting = await readSetting(this.dataSource.manager);
    return { enabled: setting.enforcement, version: setting.version };
  }

  async set(request: EnforcementBody, actor: Actor): Promise<EnforcementState> {
    return this.commits.commit(actor, { changed: null }, async (manager, version) => {
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
  }
}
