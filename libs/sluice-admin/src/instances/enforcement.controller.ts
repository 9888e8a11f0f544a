import { Get, Inject, Put, UseFilters, UseGuards } from '@nestjs/common';
import type { EnforcementState } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { EnforcementService } from './enforcement.service.js';
import { enforcementBodySchema, type EnforcementBody } from './enforcement-body.schema.js';
import { ValidBody } from '../common/request-schema.pipe.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('enforcement')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class EnforcementController {
  constructor(@Inject(EnforcementService) private readonly enforcement: EnforcementService) {}

  @Get()
  @RequireRole('viewer')
  get(): Promise<EnforcementState> {
    return this.enforcement.get();
  }

  @Put()
  @RequireRole('admin')
  set(
    @ValidBody(enforcementBodySchema) body: EnforcementBody,
    @CurrentActor() actor: Actor,
  ): Promise<EnforcementState> {
    return this.enforcement.set(body, actor);
  }
}
