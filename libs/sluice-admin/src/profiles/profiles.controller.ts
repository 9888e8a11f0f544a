import { Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import type {
  RecommendationView,
  ReplayView,
  TrafficProfileView,
} from '../common/admin-api.types.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { AdminController } from '../common/admin-controller.decorator.js';
import { ValidBody, ValidQuery } from '../common/request-schema.pipe.js';
import {
  profileQuerySchema,
  recommendationQuerySchema,
  replayBodySchema,
  type ProfileQuery,
  type RecommendationQuery,
  type ReplayRequest,
} from './profile-query.schema.js';
import { ProfilesService } from './profiles.service.js';
import { ReplaysService } from './replays.service.js';

@AdminController('policies/:name')
@UseGuards(AdminAuthGuard)
export class ProfilesController {
  constructor(
    @Inject(ProfilesService) private readonly profiles: ProfilesService,
    @Inject(ReplaysService) private readonly replays: ReplaysService,
  ) {}

  /** ?range=hour|day|week&tier= — requests per identifier per window of the policy's period. */
  @Get('profile')
  @RequireRole('viewer')
  read(
    @Param('name') name: string,
    @ValidQuery(profileQuerySchema) query: ProfileQuery,
  ): Promise<TrafficProfileView> {
    return this.profiles.profile(name, query);
  }

  /** ?range=&tier=&percentile=&headroom= — a limit proposed from the profile; nothing applied. */
  @Get('recommendation')
  @RequireRole('viewer')
  recommend(
    @Param('name') name: string,
    @ValidQuery(recommendationQuerySchema) query: RecommendationQuery,
  ): Promise<RecommendationView> {
    return this.profiles.recommend(name, query);
  }

  /** The policy's recorded requests replayed through a rule: a read, so a viewer's; nothing applied. */
  @Post('replay')
  @HttpCode(200)
  @RequireRole('viewer')
  replay(
    @Param('name') name: string,
    @ValidBody(replayBodySchema) body: ReplayRequest,
  ): Promise<ReplayView> {
    return this.replays.replay(name, body);
  }
}
