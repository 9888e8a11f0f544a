import { Delete, Inject, Param, UseFilters, UseGuards } from '@nestjs/common';
import type { CounterResetResult } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { CountersService } from './counters.service.js';
import { AdminController } from '../common/admin-controller.decorator.js';
import { DescribedQuery } from '../common/request-schema.pipe.js';
import { resetQuerySchema } from '../penalties/penalty-requests.schema.js';

@AdminController('counters')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class CountersController {
  constructor(@Inject(CountersService) private readonly counters: CountersService) {}

  @Delete(':policy/:identifier')
  @RequireRole('operator')
  reset(
    @Param('policy') policy: string,
    @Param('identifier') identifier: string,
    @DescribedQuery(resetQuerySchema) query: Record<string, unknown>,
    @CurrentActor() actor: Actor,
  ): Promise<CounterResetResult> {
    return this.counters.reset(policy, identifier, actor, query);
  }
}
