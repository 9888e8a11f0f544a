import { Module } from '@nestjs/common';
import { FeedController } from './feed.controller.js';

/** The feed reads the posts PostsModule (global) serves. */
@Module({ controllers: [FeedController] })
export class FeedModule {}
