import { Get, Inject, Param, UseGuards } from '@nestjs/common';
import type { InspectResult } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { CountersService } from './counters.service.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('inspect')
@UseGuards(AdminAuthGuard)
export class InspectController {
  constructor(@Inject(CountersService) private readonly counters: CountersService) {}

  /** The engine's peek: what the identifier's next request would get, nothing charged. */
  @Get(':policy/:identifier')
  @RequireRole('viewer')
  inspect(
    @Param('policy') policy: string,
    @Param('identifier') identifier: string,
  ): Promise<InspectResult> {
    return this.counters.inspect(policy, identifier);
  }
}
