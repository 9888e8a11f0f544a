import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PolicyBus, type Policy } from '@sluice/nest/internals';
import { DataSource } from 'typeorm';
import { SYSTEM_ACTOR } from '../common/system.actor.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import type { PolicyEntity } from '../database/policy.entity.js';
import { PolicyCommits } from './policy-commits.service.js';
import { findPolicyRow, writePolicyChange } from './policy-change.js';
import { changedRuleFields, stamped } from './policy-rules.js';

/** Rolls back a seeding transaction that found another instance had seeded the same default. */
class AlreadySeeded extends Error {}

/** A row to write for a code default: none yet, or a code row whose default changed since. */
function needsSeeding(row: PolicyEntity | null, codeDefault: Policy): boolean {
  return (
    row === null || (row.source === 'code' && changedRuleFields(row.body, codeDefault).length > 0)
  );
}

/** Stores the code's default policies; rows an operator edited (source 'admin') are left alone. */
@Injectable()
export class CodeDefaultsSeeder {
  constructor(
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @Inject(PolicyCommits) private readonly commits: PolicyCommits,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  /** Seeds each default in a transaction of its own; resolves the names written. */
  async seed(): Promise<string[]> {
    const written: string[] = [];
    for (const codeDefault of this.bus.codeDefaults()) {
      if (await this.seedOne(codeDefault)) written.push(codeDefault.name);
    }
    return written;
  }

  private async seedOne(codeDefault: Policy): Promise<boolean> {
    const row = await findPolicyRow(this.dataSource.manager, codeDefault.name);
    if (!needsSeeding(row, codeDefault)) return false;
    try {
      // AdminStartup publishes once, after every default is seeded.
      const later = { changed: codeDefault.name, publish: () => false };
      await this.commits.commit(SYSTEM_ACTOR, later, async (manager, version) => {
        const current = await findPolicyRow(manager, codeDefault.name);
        if (!needsSeeding(current, codeDefault)) throw new AlreadySeeded();
        await writePolicyChange(manager, {
          name: codeDefault.name,
          action: 'policy.seed',
          before: current?.body ?? null,
          after: stamped(codeDefault, 'code', version, SYSTEM_ACTOR),
          actor: SYSTEM_ACTOR,
          comment: current === null ? 'default defined in code' : 'default changed in code',
          version,
        });
      });
      return true;
    } catch (error) {
      if (error instanceof AlreadySeeded) return false;
      throw error;
    }
  }
}
