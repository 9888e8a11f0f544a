import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import type { IdentifierList } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { IdentifiersService } from './identifiers.service.js';
import { identifiersQuerySchema } from '../penalties/penalty-requests.schema.js';

@Controller('identifiers')
@UseGuards(AdminAuthGuard)
export class IdentifiersController {
  constructor(@Inject(IdentifiersService) private readonly identifiers: IdentifiersService) {}

  /** ?policy=&q=&limit= — passes and rejections over the last day, last seen, state now. */
  @Get()
  @RequireRole('viewer')
  list(@Query({ schema: identifiersQuerySchema }) query: unknown): Promise<IdentifierList> {
    return this.identifiers.list(query);
  }
}
