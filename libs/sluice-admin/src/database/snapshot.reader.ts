import type { ListEntry, PolicyCandidateInput, PolicySnapshot } from '@sluice/nest/internals';
import { ListEntryEntity } from './list-entry.entity.js';
import type { EntityManager } from 'typeorm';
import { PolicyCandidateEntity } from './policy-candidate.entity.js';
import { PolicyEntity } from './policy.entity.js';
import { SettingEntity } from './setting.entity.js';

export const SETTING_ID = 1;

/** The global version and switch; the row exists from the first migration on. */
export function readSetting(manager: EntityManager): Promise<SettingEntity> {
  return manager.findOneByOrFail(SettingEntity, { id: SETTING_ID });
}

/**
 * Every policy row, each with its shadow candidate, the list entries in force at `nowMs` (epoch
 * ms; an expired entry is published no more), and the switch at the current version; read it
 * inside one transaction.
 */
export async function readSnapshot(manager: EntityManager, nowMs: number): Promise<PolicySnapshot> {
  const setting = await readSetting(manager);
  const rows = await manager.find(PolicyEntity, { order: { name: 'ASC' } });
  const candidates = new Map(
    (await manager.find(PolicyCandidateEntity)).map((row) => [row.policyName, row]),
  );
  const lists = (await manager.find(ListEntryEntity, { order: { createdAt: 'ASC', id: 'ASC' } }))
    .filter((row) => row.expiresAt === null || row.expiresAt.getTime() > nowMs)
    .map(listEntryOf);
  return {
    version: setting.version,
    enforcement: setting.enforcement,
    ...(lists.length === 0 ? {} : { lists }),
    policies: rows.map((row) => {
      const candidate = candidates.get(row.name);
      return candidate === undefined
        ? row.body
        : { ...row.body, candidate: candidateInput(candidate) };
    }),
  };
}

/** A policy's fields that are not rules: a candidate's rules leave them out. */
const BOOKKEEPING = ['name', 'version', 'source', 'updatedAt', 'updatedBy', 'candidate'] as const;

/** What the snapshot carries of a candidate: its rules, without the policy's bookkeeping. */
export function candidateInput(row: PolicyCandidateEntity): PolicyCandidateInput {
  const rules: Record<string, unknown> = { ...row.body };
  for (const field of BOOKKEEPING) delete rules[field];
  return {
    rules: rules as PolicyCandidateInput['rules'],
    expiresAt: row.expiresAt.getTime(),
    proposedBy: row.proposedBy,
    proposedAt: row.proposedAt.toISOString(),
    baseVersion: row.baseVersion,
    samplePercent: row.samplePercent,
  };
}

/** A list entry as the snapshot carries it and the API shows it. */
export function listEntryOf(row: ListEntryEntity): ListEntry {
  return {
    id: row.id,
    list: row.list,
    kind: row.kind,
    value: row.value,
    keyKind: row.keyKind,
    prefix: row.prefix,
    policies: row.policies,
    mode: row.mode,
    reason: row.reason,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}
