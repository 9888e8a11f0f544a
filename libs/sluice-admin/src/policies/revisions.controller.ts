import { Get, HttpCode, Inject, Param, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { PolicyRevisionList, PolicyView } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { PolicyReader } from './policy-reader.service.js';
import { PolicyWriter } from './policy-writer.service.js';
import { changeNoteSchema, type ChangeNoteBody } from './policy-body.schema.js';
import { ValidBody } from '../common/request-schema.pipe.js';
import { AdminController } from '../common/admin-controller.decorator.js';

function revisionNumber(text: string): number {
  const version = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(version)) {
    throw new InvalidRequestException([
      { field: 'v', message: 'must be a revision number: a positive integer' },
    ]);
  }
  return version;
}

@AdminController('policies/:name/revisions')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class RevisionsController {
  constructor(
    @Inject(PolicyReader) private readonly reader: PolicyReader,
    @Inject(PolicyWriter) private readonly writer: PolicyWriter,
  ) {}

  @Get()
  @RequireRole('viewer')
  list(@Param('name') name: string): Promise<PolicyRevisionList> {
    return this.reader.revisions(name);
  }

  /** Body (optional): `{ version, comment }`, version being the policy's current one. */
  @Post(':v/restore')
  @HttpCode(200)
  @RequireRole('admin')
  async restore(
    @Param('name') name: string,
    @Param('v') v: string,
    @ValidBody(changeNoteSchema, {}) body: ChangeNoteBody,
    @CurrentActor() actor: Actor,
  ): Promise<PolicyView> {
    const policy = await this.writer.restore(name, revisionNumber(v), body, actor);
    return this.reader.view(policy);
  }
}
