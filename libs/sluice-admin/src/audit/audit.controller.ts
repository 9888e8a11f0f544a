import { Get, Inject, UseFilters, UseGuards } from '@nestjs/common';
import type { AuditPage } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { AuditService } from './audit.service.js';
import { auditQuerySchema, type AuditQuery } from './audit-query.schema.js';
import { ValidQuery } from '../common/request-schema.pipe.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('audit')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class AuditController {
  constructor(@Inject(AuditService) private readonly audit: AuditService) {}

  /** ?actor=&action=&from=&to=&cursor=&limit= — newest first, `nextCursor` for the next page. */
  @Get()
  @RequireRole('viewer')
  page(@ValidQuery(auditQuerySchema) query: AuditQuery): Promise<AuditPage> {
    return this.audit.page(query);
  }
}
