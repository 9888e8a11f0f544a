import { Injectable, NotFoundException } from '@nestjs/common';
import type { NewPost, NewReply } from './posts.schemas.js';

export interface Reply {
  id: number;
  author: string;
  body: string;
  createdAt: string;
}

export interface Post {
  id: number;
  author: string;
  title: string;
  body: string;
  createdAt: string;
  likes: number;
  replies: Reply[];
}

const POST_ID = /^[1-9]\d{0,8}$/;

/**
 * The forum's posts, in this process's memory: every instance starts with the same seeded posts,
 * and what is written later stays on the instance that took it. The limits, in Redis, are shared.
 */
@Injectable()
export class PostsService {
  private readonly posts = new Map<number, Post>();
  private nextPostId = 1;
  private nextReplyId = 1;

  constructor() {
    this.create('Hermione', {
      title: 'Welcome to the forum',
      body: 'Be kind; replies are limited to five a minute.',
    });
    this.create('Ron', { title: 'Quidditch results', body: 'Gryffindor won again.' });
    this.create('Harry', { title: 'Lost: one invisibility cloak', body: 'Seen it anywhere?' });
  }

  list(): Array<Omit<Post, 'replies'> & { replyCount: number }> {
    return [...this.posts.values()]
      .reverse()
      .map(({ replies, ...post }) => ({ ...post, replyCount: replies.length }));
  }

  create(author: string, input: NewPost): Post {
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

  get(id: string): Post {
    const post = POST_ID.test(id) ? this.posts.get(Number(id)) : undefined;
    if (post === undefined) throw new NotFoundException(`There is no post ${JSON.stringify(id)}`);
    return post;
  }

  reply(postId: string, author: string, input: NewReply): Reply {
    const post = this.get(postId);
    const reply: Reply = {
      id: this.nextReplyId++,
      author,
      body: input.body,
      createdAt: new Date().toISOString(),
    };
    post.replies.push(reply);
    return reply;
  }

  like(postId: string): { postId: number; likes: number } {
    const post = this.get(postId);
    post.likes++;
    return { postId: post.id, likes: post.likes };
  }
}
