import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { AdminDatabaseModule } from '../database/admin-database.module.js';
import { PoliciesModule } from '../policies/policies.module.js';
import { CountersController } from './counters.controller.js';
import { CountersService } from './counters.service.js';
import { EnforcementController } from './enforcement.controller.js';
import { EnforcementService } from './enforcement.service.js';
import { InspectController } from './inspect.controller.js';
import { InstancesController } from './instances.controller.js';
import { InstancesService } from './instances.service.js';
import { RoutesController } from './routes.controller.js';

/** The running instances: heartbeats, routes, counters and inspection, the enforcement switch. */
@Module({
  imports: [AdminAuthModule, AdminDatabaseModule, PoliciesModule],
  controllers: [
    EnforcementController,
    RoutesController,
    InstancesController,
    InspectController,
    CountersController,
  ],
  providers: [EnforcementService, InstancesService, CountersService],
  exports: [InstancesService],
})
export class InstancesModule {}
