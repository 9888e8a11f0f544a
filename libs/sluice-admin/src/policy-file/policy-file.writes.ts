import type { ListEntryInput } from '@sluice/nest/internals';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../common/actor.js';
import { recordAudit } from '../database/audit.recorder.js';
import { ListEntryEntity } from '../database/list-entry.entity.js';
import { PolicyCandidateEntity } from '../database/policy-candidate.entity.js';
import { listEntryOf } from '../database/snapshot.reader.js';
import { writePolicyChange } from '../policies/policy-change.js';
import { stamped } from '../policies/policy-rules.js';
import type { PlannedWrite } from './policy-file.planner.js';
import { candidateFields } from './policy-file.rules.js';

/** What every write of one apply shares: its transaction, version, actor, note and time. */
export interface ApplyContext {
  manager: EntityManager;
  version: number;
  actor: Actor;
  comment: string | null;
  now: number;
}

/**
 * Makes one planned write inside the apply's transaction, audited like the same change made by
 * hand (policy.create, list.add, candidate.propose …) with the apply's note. `versions`: each
 * policy's version once the apply is done, for a candidate's base.
 */
export async function applyWrite(
  write: PlannedWrite,
  context: ApplyContext,
  versions: Map<string, number>,
): Promise<void> {
  const { manager, version, actor, comment, now } = context;
  switch (write.type) {
    case 'policy.put':
      return writePolicyChange(manager, {
        name: write.name,
        action: write.before === null ? 'policy.create' : 'policy.replace',
        before: write.before,
        after: stamped(write.policy, 'admin', version, actor),
        actor,
        comment,
        version,
      });
    case 'policy.revert':
      return writePolicyChange(manager, {
        name: write.name,
        action: 'policy.revert',
        before: write.before,
        after: stamped(write.policy, 'code', version, actor),
        actor,
        comment,
        version,
      });
    case 'policy.delete':
      return writePolicyChange(manager, {
        name: write.name,
        action: 'policy.delete',
        before: write.before,
        after: null,
        actor,
        comment,
        version,
      });
    case 'list.add': {
      const row = manager.create(ListEntryEntity, {
        id: randomUUID(),
        ...listColumns(write.entry),
        createdBy: actor.name,
        createdAt: new Date(now),
      });
      await manager.insert(ListEntryEntity, row);
      await recordAudit(manager, {
        actor,
        action: 'list.add',
        target: `${row.list}:${row.value}`,
        before: null,
        after: listEntryOf(row),
        comment: comment ?? row.reason,
        version,
      });
      return;
    }
    case 'list.replace': {
      await manager.update(ListEntryEntity, { id: write.id }, listColumns(write.entry));
      const row = await manager.findOneByOrFail(ListEntryEntity, { id: write.id });
      await recordAudit(manager, {
        actor,
        action: 'list.replace',
        target: `${row.list}:${row.value}`,
        before: write.before,
        after: listEntryOf(row),
        comment,
        version,
      });
      return;
    }
    case 'list.remove':
      await manager.delete(ListEntryEntity, { id: write.id });
      await recordAudit(manager, {
        actor,
        action: 'list.remove',
        target: `${write.before.list}:${write.before.value}`,
        before: write.before,
        after: null,
        comment,
        version,
      });
      return;
    case 'candidate.propose': {
      const candidate = manager.create(PolicyCandidateEntity, {
        policyName: write.name,
        body: write.candidate.policy,
        baseVersion: versions.get(write.name) ?? version,
        proposedBy: actor.name,
        proposedAt: new Date(now),
        expiresAt: new Date(write.candidate.expiresAt),
        comment,
        samplePercent: write.candidate.samplePercent,
      });
      await manager.save(candidate);
      await recordAudit(manager, {
        actor,
        action: 'candidate.propose',
        target: write.name,
        before: write.before === null ? null : candidateFields(write.before),
        after: candidateFields(write.candidate),
        comment,
        version,
      });
      return;
    }
    case 'candidate.discard':
      await manager.delete(PolicyCandidateEntity, { policyName: write.name });
      await recordAudit(manager, {
        actor,
        action: 'candidate.discard',
        target: write.name,
        before: candidateFields(write.before),
        after: null,
        comment,
        version,
      });
      return;
  }
}

function listColumns(entry: ListEntryInput) {
  return {
    list: entry.list,
    kind: entry.kind,
    value: entry.value,
    keyKind: entry.kind === 'identifier' ? (entry.keyKind ?? null) : null,
    prefix: entry.prefix ?? false,
    policies: entry.policies ?? null,
    mode: entry.mode ?? 'enforce',
    reason: entry.reason,
    expiresAt: entry.expiresAt == null ? null : new Date(entry.expiresAt),
  };
}
