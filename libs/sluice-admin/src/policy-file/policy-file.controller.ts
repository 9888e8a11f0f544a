import { Get, HttpCode, Inject, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import type {
  PolicyFileApplyResult,
  PolicyFileExport,
  PolicyFilePlan,
} from '../common/policy-file.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { AdminController } from '../common/admin-controller.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { parseRequest } from '../common/invalid-request.exception.js';
import { DescribedBody, ValidQuery } from '../common/request-schema.pipe.js';
import {
  policyFileApplyEnvelope,
  policyFileApplySchema,
  policyFileDiffEnvelope,
  policyFileDiffSchema,
  policyFileQuerySchema,
  type PolicyFileQueryBody,
} from './policy-file-body.schema.js';
import { PolicyFileService } from './policy-file.service.js';

/** Policies as code: what `npx sluice export`, `diff` and `apply` call (docs/operations.md). */
@AdminController('policy-file')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class PolicyFileController {
  constructor(@Inject(PolicyFileService) private readonly files: PolicyFileService) {}

  /** Every policy and list entry as one document; `?candidates=true` adds the candidates. */
  @Get()
  @RequireRole('viewer')
  export(@ValidQuery(policyFileQuerySchema) query: PolicyFileQueryBody): Promise<PolicyFileExport> {
    return this.files.export(query.candidates === 'true');
  }

  /** What applying the document would change, and the changes since its version it would undo. */
  @Post('diff')
  @HttpCode(200)
  @RequireRole('viewer')
  diff(@DescribedBody(policyFileDiffSchema) body: unknown): Promise<PolicyFilePlan> {
    return this.files.diff(parseRequest(policyFileDiffEnvelope, body ?? {}, '(body)').document);
  }

  /** Applies the document in one versioned step; 409 over changes since its version unless forced. */
  @Post('apply')
  @HttpCode(200)
  @RequireRole('admin')
  apply(
    @DescribedBody(policyFileApplySchema) body: unknown,
    @CurrentActor() actor: Actor,
  ): Promise<PolicyFileApplyResult> {
    return this.files.apply(parseRequest(policyFileApplyEnvelope, body ?? {}, '(body)'), actor);
  }
}
