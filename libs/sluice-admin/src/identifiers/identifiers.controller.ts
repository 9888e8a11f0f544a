import { Get, Inject, UseGuards } from '@nestjs/common';
import type { IdentifierList } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { IdentifiersService } from './identifiers.service.js';
import {
  identifiersQuerySchema,
  type IdentifiersQuery,
} from '../penalties/penalty-requests.schema.js';
import { ValidQuery } from '../common/request-schema.pipe.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('identifiers')
@UseGuards(AdminAuthGuard)
export class IdentifiersController {
  constructor(@Inject(IdentifiersService) private readonly identifiers: IdentifiersService) {}

  /** ?policy=&q=&limit= — passes and rejections over the last day, last seen, state now. */
  @Get()
  @RequireRole('viewer')
  list(@ValidQuery(identifiersQuerySchema) query: IdentifiersQuery): Promise<IdentifierList> {
    return this.identifiers.list(query);
  }
}
