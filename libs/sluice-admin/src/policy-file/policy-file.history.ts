import type { EntityManager } from 'typeorm';
import type { PolicyFileConflict } from '../common/policy-file.types.js';
import { AdminAuditEntity } from '../database/admin-audit.entity.js';
import { AppliedPolicyFileEntity } from '../database/applied-policy-file.entity.js';
import { sameRules } from './policy-file.rules.js';
import type { ParsedPolicyFile } from './policy-file.schema.js';

// What the audit and the applied files say about a policy file's base: whether it was applied
// already, and which changes since its version applying it would undo.

/** The audit action of an apply: the changes it made share its version. */
export const APPLY_ACTION = 'policy-file.apply';
const CONFLICTS_SHOWN = 100;

/** Whether the latest applied file holds exactly these policies. */
export async function recordsSameFile(
  manager: EntityManager,
  file: ParsedPolicyFile,
): Promise<boolean> {
  const [latest] = await manager.find(AppliedPolicyFileEntity, {
    order: { version: 'DESC' },
    take: 1,
  });
  if (latest === undefined) return false;
  const names = Object.keys(latest.policies);
  return (
    names.length === file.policies.size &&
    names.every((name) => {
      const wanted = file.policies.get(name);
      return wanted !== undefined && sameRules(latest.policies[name]!, wanted);
    })
  );
}

/**
 * The changes after the file's version that applying would undo: to policies, and to lists or
 * candidates when the file manages them; an apply's own changes and candidates' expiries aside.
 */
export async function conflictsSince(
  manager: EntityManager,
  file: ParsedPolicyFile,
): Promise<PolicyFileConflict[]> {
  const kinds = ["a.action LIKE 'policy.%'"];
  if (file.lists !== null) kinds.push("a.action LIKE 'list.%'");
  if (file.candidates !== null)
    kinds.push("(a.action LIKE 'candidate.%' AND a.action <> 'candidate.expire')");
  const rows = await manager
    .createQueryBuilder(AdminAuditEntity, 'a')
    .where('a.version > :base', { base: file.version })
    .andWhere(`(${kinds.join(' OR ')})`)
    .andWhere(
      `NOT EXISTS (SELECT 1 FROM sluice_admin_audit b WHERE b.version = a.version AND b.action = :apply)`,
      { apply: APPLY_ACTION },
    )
    .orderBy('a.id', 'ASC')
    .take(CONFLICTS_SHOWN)
    .getMany();
  return rows.map((row) => ({
    action: row.action,
    target: row.target,
    actor: row.actor,
    version: row.version,
    at: row.occurredAt.toISOString(),
  }));
}
