import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { BlockedController } from './blocked.controller.js';
import { BlockedService } from './blocked.service.js';
import { ExpirySweeper } from './expiry.sweeper.js';
import { PenaltiesController } from './penalties.controller.js';
import { PenaltyHistoryService } from './penalty-history.service.js';
import { PenaltyRecorder } from './penalty.recorder.js';
import { WebhookDispatcher } from './webhook.dispatcher.js';

/** Blocks in force, the penalty history recorded from the stream, expiry and webhooks. */
@Module({
  imports: [AdminAuthModule],
  controllers: [BlockedController, PenaltiesController],
  providers: [
    BlockedService,
    PenaltyHistoryService,
    PenaltyRecorder,
    WebhookDispatcher,
    ExpirySweeper,
  ],
})
export class PenaltiesModule {}
