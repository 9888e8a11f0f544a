import type { NewPost, NewReply } from './posts.schemas.js';
import {
  LISTED_POSTS,
  SEED_POSTS,
  type ForumStore,
  type Post,
  type PostSummary,
  type Reply,
} from './forum.store.js';

/**
 * The forum in this process's memory, for a demo without a database: every instance starts with
 * the seeded posts, and what is written later stays on the instance that took it.
 */
export class MemoryForumStore implements ForumStore {
  private readonly posts = new Map<number, Post>();
  private nextPostId = 1;
  private nextReplyId = 1;

  constructor() {
    for (const { author, ...input } of SEED_POSTS) this.add(author, input);
  }

  list(): Promise<PostSummary[]> {
    return Promise.resolve(
      [...this.posts.values()]
        .reverse()
        .slice(0, LISTED_POSTS)
        .map(({ replies, ...post }) => ({ ...post, replyCount: replies.length })),
    );
  }

  create(author: string, input: NewPost): Promise<Post> {
    return Promise.resolve(this.add(author, input));
  }

  get(id: number): Promise<Post | undefined> {
    return Promise.resolve(this.posts.get(id));
  }

  reply(postId: number, author: string, input: NewReply): Promise<Reply | undefined> {
    const post = this.posts.get(postId);
    if (post === undefined) return Promise.resolve(undefined);
    const reply: Reply = {
      id: this.nextReplyId++,
      author,
      body: input.body,
      createdAt: new Date().toISOString(),
    };
    post.replies.push(reply);
    return Promise.resolve(reply);
  }

  like(postId: number): Promise<number | undefined> {
    const post = this.posts.get(postId);
    if (post !== undefined) post.likes++;
    return Promise.resolve(post?.likes);
  }

  private add(author: string, input: NewPost): Post {
    const post: Post = {
      id: this.nextPostId++,
      author,
      title: input.title,
      body: input.body,
      createdAt: new Date().toISOString(),
      likes: 0,
      replies: [],
    };
    this.posts.set(post.id, post);
    return post;
  }
}
