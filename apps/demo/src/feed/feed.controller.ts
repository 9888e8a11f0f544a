import { Controller, Get } from '@nestjs/common';
import { Throttle } from '@sluice/nest/internals';
import { PostsService } from '../posts/posts.service.js';

const FEED_LENGTH = 10;

@Controller('feed')
export class FeedController {
  constructor(private readonly posts: PostsService) {}

  /**
   * Shaped, not refused: a burst waits in the guard and reaches this handler at 10 per second.
   * `servedAt` says when it did.
   */
  @Throttle('feed')
  @Get()
  async feed(): Promise<{ servedAt: number; posts: Array<{ id: number; title: string }> }> {
    // When the guard let the request in, before the posts are read.
    const servedAt = Date.now();
    const posts = (await this.posts.list())
      .slice(0, FEED_LENGTH)
      .map(({ id, title }) => ({ id, title }));
    return { servedAt, posts };
  }
}
