import { Delete, Get, HttpCode, Inject, Param, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { BlockedList, BlockResult, UnblockResult } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { BlockedService } from './blocked.service.js';
import {
  blockBodySchema,
  blockedQuerySchema,
  unblockQuerySchema,
  type BlockBody,
  type BlockedQuery,
} from './penalty-requests.schema.js';
import { DescribedQuery, ValidBody, ValidQuery } from '../common/request-schema.pipe.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('blocked')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class BlockedController {
  constructor(@Inject(BlockedService) private readonly blocked: BlockedService) {}

  /** ?policy=&q=&limit= — the blocks in force, newest first, with the time each has left. */
  @Get()
  @RequireRole('viewer')
  list(@ValidQuery(blockedQuerySchema) query: BlockedQuery): Promise<BlockedList> {
    return this.blocked.list(query);
  }

  @Post()
  @HttpCode(201)
  @RequireRole('operator')
  block(
    @ValidBody(blockBodySchema) body: BlockBody,
    @CurrentActor() actor: Actor,
  ): Promise<BlockResult> {
    return this.blocked.block(body, actor);
  }

  /** ?keyKind=&reason= — lifts the block on every instance. */
  @Delete(':policy/:identifier')
  @RequireRole('operator')
  unblock(
    @Param('policy') policy: string,
    @Param('identifier') identifier: string,
    @DescribedQuery(unblockQuerySchema) query: Record<string, unknown>,
    @CurrentActor() actor: Actor,
  ): Promise<UnblockResult> {
    return this.blocked.unblock({ ...query, policy, identifier }, actor);
  }
}
