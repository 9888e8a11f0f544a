import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { ProfilesController } from './profiles.controller.js';
import { ProfilesService } from './profiles.service.js';
import { ReplaysService } from './replays.service.js';

/** Each policy's traffic profile, the limit it recommends, and the replay of its record. */
@Module({
  imports: [AdminAuthModule],
  controllers: [ProfilesController],
  providers: [ProfilesService, ReplaysService],
})
export class ProfilesModule {}
