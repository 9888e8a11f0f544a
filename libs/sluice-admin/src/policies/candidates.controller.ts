import { Delete, Get, HttpCode, Inject, Param, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { CandidateComparison, CandidateView, PolicyView } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { DescribedBody, ValidBody } from '../common/request-schema.pipe.js';
import { candidatePromotionSchema, type CandidatePromotionBody } from './candidate-body.schema.js';
import { CandidateService } from './candidate.service.js';
import { changeNoteSchema, policyWriteSchema, type ChangeNoteBody } from './policy-body.schema.js';
import { PolicyReader } from './policy-reader.service.js';
import { AdminController } from '../common/admin-controller.decorator.js';

/**
 * A policy's shadow candidate: proposed by whoever may make that change to the policy, decided
 * beside it by every instance, then promoted or discarded (docs/operations.md).
 */
@AdminController('policies/:name/candidate')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class CandidatesController {
  constructor(
    @Inject(CandidateService) private readonly candidates: CandidateService,
    @Inject(PolicyReader) private readonly reader: PolicyReader,
  ) {}

  /** The body PUT /policies/:name takes (`version`: the live version read), and `expiresInMs`. */
  @Post()
  @RequireRole('operator')
  propose(
    @Param('name') name: string,
    // Checked by CandidateService.propose, which needs the path's name and the trackers too.
    @DescribedBody(policyWriteSchema) body: unknown,
    @CurrentActor() actor: Actor,
  ): Promise<CandidateView> {
    return this.candidates.propose(name, body, actor);
  }

  @Get()
  @RequireRole('viewer')
  compare(@Param('name') name: string): Promise<CandidateComparison> {
    return this.candidates.compare(name);
  }

  @Delete()
  @RequireRole('operator')
  discard(
    @Param('name') name: string,
    @ValidBody(changeNoteSchema, {}) body: ChangeNoteBody,
    @CurrentActor() actor: Actor,
  ): Promise<{ discarded: true }> {
    return this.candidates.discard(name, body, actor);
  }

  @Post('promote')
  @HttpCode(200)
  @RequireRole('operator')
  async promote(
    @Param('name') name: string,
    @ValidBody(candidatePromotionSchema, {}) body: CandidatePromotionBody,
    @CurrentActor() actor: Actor,
  ): Promise<PolicyView> {
    return this.reader.view(await this.candidates.promote(name, body, actor));
  }
}
