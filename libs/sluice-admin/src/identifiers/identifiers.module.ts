import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { IdentifiersController } from './identifiers.controller.js';
import { IdentifiersService } from './identifiers.service.js';

/** GET /identifiers: the busiest identifiers of each policy. */
@Module({
  imports: [AdminAuthModule],
  controllers: [IdentifiersController],
  providers: [IdentifiersService],
})
export class IdentifiersModule {}
