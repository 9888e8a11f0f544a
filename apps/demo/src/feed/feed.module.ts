import { Module } from '@nestjs/common';
import { PostsModule } from '../posts/posts.module.js';
import { FeedController } from './feed.controller.js';

@Module({ imports: [PostsModule], controllers: [FeedController] })
export class FeedModule {}
