import { Get, Inject, Param, UseGuards } from '@nestjs/common';
import type { TrafficProfileView } from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { AdminController } from '../common/admin-controller.decorator.js';
import { ValidQuery } from '../common/request-schema.pipe.js';
import { profileQuerySchema, type ProfileQuery } from './profile-query.schema.js';
import { ProfilesService } from './profiles.service.js';

@AdminController('policies/:name/profile')
@UseGuards(AdminAuthGuard)
export class ProfilesController {
  constructor(@Inject(ProfilesService) private readonly profiles: ProfilesService) {}

  /** ?range=hour|day|week&tier= — requests per identifier per window of the policy's period. */
  @Get()
  @RequireRole('viewer')
  read(
    @Param('name') name: string,
    @ValidQuery(profileQuerySchema) query: ProfileQuery,
  ): Promise<TrafficProfileView> {
    return this.profiles.profile(name, query);
  }
}
