import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { InstancesModule } from '../instances/instances.module.js';
import { EventsController } from './events.controller.js';
import { StatsController } from './stats.controller.js';
import { StatsService } from './stats.service.js';

/** Per-second statistics and the panel's event stream. */
@Module({
  imports: [AdminAuthModule, InstancesModule],
  controllers: [StatsController, EventsController],
  providers: [StatsService],
})
export class LiveModule {}
