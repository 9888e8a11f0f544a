import {
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import type { ListEntryList, ListEntryRemoval, ListEntryView } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { CurrentActor } from '../auth/current-actor.decorator.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { AdminController } from '../common/admin-controller.decorator.js';
import { DatabaseUnavailableFilter } from '../common/database-unavailable.filter.js';
import { ValidBody, ValidQuery } from '../common/request-schema.pipe.js';
import {
  listEntryBodySchema,
  listEntryQuerySchema,
  listModeSchema,
  listRemovalSchema,
  type ListEntryBody,
  type ListEntryQueryInput,
  type ListModeBody,
  type ListRemovalBody,
} from './list-body.schema.js';
import { ListsService } from './lists.service.js';

@AdminController('lists')
@UseGuards(AdminAuthGuard)
@UseFilters(DatabaseUnavailableFilter)
export class ListsController {
  constructor(@Inject(ListsService) private readonly lists: ListsService) {}

  @Get()
  @RequireRole('viewer')
  list(): Promise<ListEntryList> {
    return this.lists.list();
  }

  @Post()
  @HttpCode(201)
  @RequireRole('operator')
  add(
    @ValidBody(listEntryBodySchema) body: ListEntryBody,
    @ValidQuery(listEntryQuerySchema) query: ListEntryQueryInput,
    @CurrentActor() actor: Actor,
  ): Promise<ListEntryView> {
    return this.lists.add(body, actor, query.confirm === 'broad');
  }

  @Patch(':id')
  @RequireRole('operator')
  setMode(
    @Param('id') id: string,
    @ValidBody(listModeSchema) body: ListModeBody,
    @ValidQuery(listEntryQuerySchema) query: ListEntryQueryInput,
    @CurrentActor() actor: Actor,
  ): Promise<ListEntryView> {
    return this.lists.setMode(id, body, actor, query.confirm === 'broad');
  }

  @Delete(':id')
  @RequireRole('operator')
  remove(
    @Param('id') id: string,
    @ValidBody(listRemovalSchema, {}) body: ListRemovalBody,
    @CurrentActor() actor: Actor,
  ): Promise<ListEntryRemoval> {
    return this.lists.remove(id, body, actor);
  }
}
