import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { ProfilesController } from './profiles.controller.js';
import { ProfilesService } from './profiles.service.js';

/** GET /policies/:name/profile: each policy's traffic profile. */
@Module({
  imports: [AdminAuthModule],
  controllers: [ProfilesController],
  providers: [ProfilesService],
})
export class ProfilesModule {}
