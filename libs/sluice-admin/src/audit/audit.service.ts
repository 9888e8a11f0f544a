import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuditEntry, AuditPage } from '../common/admin-api.types.js';
import { AdminAuditEntity } from '../database/admin-audit.entity.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import type { AuditQuery } from './audit-query.schema.js';

const DEFAULT_PAGE_SIZE = 50;

function toEntry(row: AdminAuditEntity): AuditEntry {
  return {
    id: Number(row.id),
    occurredAt: row.occurredAt.toISOString(),
    actor: row.actor,
    ip: row.ip,
    userAgent: row.userAgent,
    action: row.action,
    target: row.target,
    before: row.before,
    after: row.after,
    comment: row.comment,
    version: row.version,
  };
}

/** The admin audit, newest first, a page at a time. */
@Injectable()
export class AuditService {
  constructor(@InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource) {}

  async page(query: AuditQuery): Promise<AuditPage> {
    const { actor, action, from, to, cursor, limit = DEFAULT_PAGE_SIZE } = query;
    const select = this.dataSource.manager
      .createQueryBuilder(AdminAuditEntity, 'audit')
      .orderBy('audit.id', 'DESC')
      .limit(limit + 1);
    if (actor !== undefined) select.andWhere('audit.actor = :actor', { actor });
    if (action !== undefined) select.andWhere('audit.action = :action', { action });
    if (from !== undefined) select.andWhere('audit.occurredAt >= :from', { from });
    if (to !== undefined) select.andWhere('audit.occurredAt < :to', { to });
    if (cursor !== undefined) select.andWhere('audit.id < :cursor', { cursor });
    const rows = await select.getMany();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      entries: page.map(toEntry),
      nextCursor: rows.length > limit && last !== undefined ? last.id : null,
    };
  }
}
