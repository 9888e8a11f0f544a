import { Get, Inject, UseGuards } from '@nestjs/common';
import { RouteRegistry } from '@sluice/nest/internals';
import type { RouteList } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('routes')
@UseGuards(AdminAuthGuard)
export class RoutesController {
  constructor(@Inject(RouteRegistry) private readonly routes: RouteRegistry) {}

  /** Every @Throttle() or @SkipThrottle() handler of this application. */
  @Get()
  @RequireRole('viewer')
  list(): RouteList {
    return { routes: this.routes.all() };
  }
}
