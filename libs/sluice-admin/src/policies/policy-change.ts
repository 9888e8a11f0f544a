import type { Policy } from '@sluice/nest/internals';
import type { EntityManager } from 'typeorm';
import { recordAudit } from '../database/audit.recorder.js';
import { apiPolicy } from './api-policy.js';
import type { Actor } from '../common/actor.js';
import { PolicyRevisionEntity } from '../database/policy-revision.entity.js';
import { PolicyEntity } from '../database/policy.entity.js';

export type PolicyAction =
  | 'policy.create'
  | 'policy.replace'
  | 'policy.delete'
  | 'policy.revert'
  | 'policy.restore'
  | 'policy.promote'
  | 'policy.seed';

export interface PolicyChange {
  name: string;
  action: PolicyAction;
  before: Policy | null;
  /** The policy as stored at `version`; null deletes the row. */
  after: Policy | null;
  actor: Actor;
  comment: string | null;
  version: number;
  /** False: the caller records one audit entry for several policies (a plan). Default true. */
  audited?: boolean;
}

export function findPolicyRow(manager: EntityManager, name: string): Promise<PolicyEntity | null> {
  return manager.findOneBy(PolicyEntity, { name });
}

/** Writes the row, its revision and the audit entry inside the caller's transaction. */
export async function writePolicyChange(
  manager: EntityManager,
  change: PolicyChange,
): Promise<void> {
  const { name, after, version, actor, comment } = change;
  if (after === null) {
    await manager.delete(PolicyEntity, { name });
  } else {
    await manager.upsert(
      PolicyEntity,
      {
        name,
        body: after,
        source: after.source,
        version,
        updatedAt: new Date(after.updatedAt ?? Date.now()),
        updatedBy: after.updatedBy,
      },
      ['name'],
    );
  }
  await manager.insert(PolicyRevisionEntity, {
    policyName: name,
    version,
    action: change.action,
    body: after,
    actor: actor.name,
    comment,
  });
  if (change.audited === false) return;
  await recordAudit(manager, {
    actor,
    action: change.action,
    target: name,
    // The audit answers through the API, so it keeps the policies as the API writes them.
    before: change.before === null ? null : apiPolicy(change.before),
    after: after === null ? null : apiPolicy(after),
    comment,
    version,
  });
}
