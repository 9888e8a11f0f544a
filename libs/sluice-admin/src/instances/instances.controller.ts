import { Get, Inject, UseGuards } from '@nestjs/common';
import type { InstanceList } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { InstancesService } from './instances.service.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('instances')
@UseGuards(AdminAuthGuard)
export class InstancesController {
  constructor(@Inject(InstancesService) private readonly instances: InstancesService) {}

  @Get()
  @RequireRole('viewer')
  list(): Promise<InstanceList> {
    return this.instances.list();
  }
}
