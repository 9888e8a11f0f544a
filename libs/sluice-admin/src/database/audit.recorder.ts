import type { EntityManager } from 'typeorm';
import type { Actor } from '../common/actor.js';
import { AdminAuditEntity } from './admin-audit.entity.js';

export interface AuditRecord {
  actor: Actor;
  action: string;
  target: string;
  before: object | null;
  after: object | null;
  comment: string | null;
  /** The global version after the change. */
  version: number;
}

/**
 * Appends an audit entry inside the caller's transaction, so it commits or rolls back with the
 * change; answers the entry's id.
 */
export async function recordAudit(manager: EntityManager, record: AuditRecord): Promise<string> {
  const inserted = await manager.insert(AdminAuditEntity, {
    actor: record.actor.name,
    ip: record.actor.ip,
    userAgent: record.actor.userAgent,
    action: record.action,
    target: record.target,
    before: record.before,
    after: record.after,
    comment: record.comment,
    version: record.version,
  });
  return String((inserted.identifiers[0] as { id: string | number }).id);
}
