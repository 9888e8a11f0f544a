import { Delete, Get, Inject, Param, Put, Res, UseFilters, UseGuards } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type {
  PolicyList,
  PolicyRemovalResult,
  PolicyView,
  PolicyWriteQuery,
} from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import {
  changeNoteSchema,
  policyWriteQuerySchema,
  policyWriteSchema,
  type ChangeNoteBody,
} from './policy-body.schema.js';
import { DescribedBody, ValidBody, ValidQuery } from '../common/request-schema.pipe.js';
import { PolicyReader } from './policy-reader.service.js';
import { PolicyWriter } from './policy-writer.service.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('policies')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class PoliciesController {
  constructor(
    @Inject(PolicyReader) private readonly reader: PolicyReader,
    @Inject(PolicyWriter) private readonly writer: PolicyWriter,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Get()
  @RequireRole('viewer')
  list(): Promise<PolicyList> {
    return this.reader.list();
  }

  @Get(':name')
  @RequireRole('viewer')
  get(@Param('name') name: string): Promise<PolicyView> {
    return this.reader.get(name);
  }

  /** 201 when it created the policy, 200 when it replaced one; operators only within their remit. */
  @Put(':name')
  @RequireRole('operator')
  async put(
    @Param('name') name: string,
    // Checked by PolicyWriter.put, which needs the path's name and the registered trackers too.
    @DescribedBody(policyWriteSchema) body: unknown,
    @ValidQuery(policyWriteQuerySchema) query: PolicyWriteQuery,
    @CurrentActor() actor: Actor,
    @Res() response: unknown,
  ): Promise<void> {
    const confirmed = query.confirm === 'reset';
    const { created, policy } = await this.writer.put(name, body, actor, confirmed);
    this.adapterHost.httpAdapter.reply(
      response,
      await this.reader.view(policy),
      created ? 201 : 200,
    );
  }

  @Delete(':name')
  @RequireRole('admin')
  async remove(
    @Param('name') name: string,
    @ValidBody(changeNoteSchema, {}) body: ChangeNoteBody,
    @CurrentActor() actor: Actor,
  ): Promise<PolicyRemovalResult> {
    const { version, policy } = await this.writer.remove(name, body, actor);
    return { version, policy: policy === null ? null : await this.reader.view(policy) };
  }
}
