import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { NewPost, NewReply } from './posts.schemas.js';
import {
  FORUM_STORE,
  type ForumStore,
  type Post,
  type PostSummary,
  type Reply,
} from './forum.store.js';

export type { Post, Reply } from './forum.store.js';

const POST_ID = /^[1-9]\d{0,8}$/;

/** The forum's posts, kept where FORUM_STORE says (forum.database.ts chooses). */
@Injectable()
export class PostsService {
  constructor(@Inject(FORUM_STORE) private readonly store: ForumStore) {}

  list(): Promise<PostSummary[]> {
    return this.store.list();
  }

  create(author: string, input: NewPost): Promise<Post> {
    return this.store.create(author, input);
  }

  async get(id: string): Promise<Post> {
    const post = await this.store.get(this.postId(id));
    if (post === undefined) throw this.missing(id);
    return post;
  }

  async reply(postId: string, author: string, input: NewReply): Promise<Reply> {
    const reply = await this.store.reply(this.postId(postId), author, input);
    if (reply === undefined) throw this.missing(postId);
    return reply;
  }

  async like(postId: string): Promise<{ postId: number; likes: number }> {
    const id = this.postId(postId);
    const likes = await this.store.like(id);
    if (likes === undefined) throw this.missing(postId);
    return { postId: id, likes };
  }

  /** A post id as the path gives it; 0 (no post has it) when it is not one. */
  private postId(text: string): number {
    return POST_ID.test(text) ? Number(text) : 0;
  }

  private missing(id: string): NotFoundException {
    return new NotFoundException(`There is no post ${JSON.stringify(id)}`);
  }
}
