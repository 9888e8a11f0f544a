import { Body, Controller, Get, Param, Post, Req } from '@nestjs/common';
import { Throttle } from '@sluice/nest/internals';
import type { ForumRequest } from '../common/x-user.middleware.js';
import { ZodBodyPipe } from '../common/zod-body.pipe.js';
import { NewPostSchema, NewReplySchema, type NewPost, type NewReply } from './posts.schemas.js';
import { PostsService, type Post as ForumPost, type Reply } from './posts.service.js';

const ANONYMOUS = 'anonymous';

@Controller('posts')
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Get()
  list(): ReturnType<PostsService['list']> {
    return this.posts.list();
  }

  @Get(':id')
  get(@Param('id') id: string): Promise<ForumPost> {
    return this.posts.get(id);
  }

  @Post()
  create(
    @Req() request: ForumRequest,
    @Body(new ZodBodyPipe(NewPostSchema)) input: NewPost,
  ): Promise<ForumPost> {
    return this.posts.create(request.user?.id ?? ANONYMOUS, input);
  }

  @Throttle('reply')
  @Post(':id/replies')
  reply(
    @Req() request: ForumRequest,
    @Param('id') id: string,
    @Body(new ZodBodyPipe(NewReplySchema)) input: NewReply,
  ): Promise<Reply> {
    return this.posts.reply(id, request.user?.id ?? ANONYMOUS, input);
  }

  @Throttle('like')
  @Post(':id/likes')
  like(@Param('id') id: string): Promise<{ postId: number; likes: number }> {
    return this.posts.like(id);
  }
}
