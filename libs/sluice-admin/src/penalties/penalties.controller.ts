import { Get, Headers, Inject, StreamableFile, UseFilters, UseGuards } from '@nestjs/common';
import type { PenaltyPage } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { PenaltyHistoryService } from './penalty-history.service.js';
import { penaltyQuerySchema, type PenaltyQuery } from './penalty-requests.schema.js';
import { ValidQuery } from '../common/request-schema.pipe.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('penalties')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class PenaltiesController {
  constructor(@Inject(PenaltyHistoryService) private readonly history: PenaltyHistoryService) {}

  /**
   * ?identifier=&policy=&from=&to=&cursor=&limit= — newest first, `nextCursor` for the next page;
   * with `Accept: text/csv`, every match (up to 100 000) as a CSV download.
   */
  @Get()
  @RequireRole('viewer')
  list(
    @ValidQuery(penaltyQuerySchema) query: PenaltyQuery,
    @Headers('accept') accept: string | undefined,
  ): Promise<PenaltyPage> | StreamableFile {
    if (accept?.includes('text/csv') !== true) return this.history.page(query);
    return new StreamableFile(this.history.csv(query), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="penalties.csv"',
    });
  }
}
