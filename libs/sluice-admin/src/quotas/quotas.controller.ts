import { Get, HttpCode, Inject, Param, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { QuotaGrantAnswer, QuotaGrantRequest, QuotaState } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { AdminController } from '../common/admin-controller.decorator.js';
import { DescribedQuery, ValidBody } from '../common/request-schema.pipe.js';
import { QuotasService } from './quotas.service.js';
import { quotaGrantSchema, quotaQuerySchema } from './quota-requests.schema.js';

@AdminController('quotas')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class QuotasController {
  constructor(@Inject(QuotasService) private readonly quotas: QuotasService) {}

  @Get(':policy/:identifier')
  @RequireRole('viewer')
  read(
    @Param('policy') policy: string,
    @Param('identifier') identifier: string,
    @DescribedQuery(quotaQuerySchema) query: { tier?: string },
  ): Promise<QuotaState> {
    return this.quotas.read(policy, identifier, query);
  }

  @Post(':policy/:identifier/grant')
  @HttpCode(200)
  @RequireRole('operator')
  grant(
    @Param('policy') policy: string,
    @Param('identifier') identifier: string,
    @ValidBody(quotaGrantSchema) body: QuotaGrantRequest,
    @CurrentActor() actor: Actor,
  ): Promise<QuotaGrantAnswer> {
    return this.quotas.grant(policy, identifier, body, actor);
  }
}
