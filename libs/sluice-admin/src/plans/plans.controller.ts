import { Delete, Get, Inject, Param, Put, UseFilters, UseGuards } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import type { PlanAssignmentRequest, PlanQuery, PlanView } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { AdminController } from '../common/admin-controller.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { ValidBody, ValidQuery } from '../common/request-schema.pipe.js';
import { planAssignmentSchema, planIdentifierSchema, planQuerySchema } from './plan-body.schema.js';
import { PlansService } from './plans.service.js';

@AdminController('plans')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class PlansController {
  constructor(@Inject(PlansService) private readonly plans: PlansService) {}

  @Get(':identifier')
  @RequireRole('viewer')
  read(
    @Param('identifier') identifier: string,
    @ValidQuery(planQuerySchema) query: PlanQuery,
  ): Promise<PlanView> {
    return this.plans.read(checked(identifier), query.keyKind);
  }

  @Put(':identifier')
  @RequireRole('operator')
  assign(
    @Param('identifier') identifier: string,
    @ValidBody(planAssignmentSchema) body: PlanAssignmentRequest,
    @CurrentActor() actor: Actor,
  ): Promise<PlanView> {
    return this.plans.assign(checked(identifier), body, actor);
  }

  @Delete(':identifier')
  @RequireRole('operator')
  remove(
    @Param('identifier') identifier: string,
    @ValidQuery(planQuerySchema) query: PlanQuery,
    @CurrentActor() actor: Actor,
  ): Promise<PlanView> {
    return this.plans.remove(checked(identifier), query.keyKind, actor);
  }
}

/** The path's identifier, as an override may name it. */
function checked(identifier: string): string {
  const parsed = planIdentifierSchema.safeParse(identifier);
  if (parsed.success) return parsed.data;
  throw new InvalidRequestException([
    { field: 'identifier', message: parsed.error.issues[0]?.message ?? 'is not an identifier' },
  ]);
}
