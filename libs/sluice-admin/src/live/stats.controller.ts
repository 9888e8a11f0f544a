import { Get, Inject, UseGuards } from '@nestjs/common';
import type { StatsSeries } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { StatsService } from './stats.service.js';
import { statsQuerySchema, type StatsQuery } from './stats-query.schema.js';
import { ValidQuery } from '../common/request-schema.pipe.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('stats')
@UseGuards(AdminAuthGuard)
export class StatsController {
  constructor(@Inject(StatsService) private readonly stats: StatsService) {}

  /** ?seconds=N (default 60, at most 300), ?minutes=N (at most 180) or ?hours=N (at most 168), and &policy= — oldest first. */
  @Get()
  @RequireRole('viewer')
  series(@ValidQuery(statsQuerySchema) query: StatsQuery): Promise<StatsSeries> {
    return this.stats.series(query);
  }
}
