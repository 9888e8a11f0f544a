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

export type PostSummary = Omit<Post, 'replies'> & { replyCount: number };

/** Where the forum keeps its posts: PostgreSQL when the demo has a database, else memory. */
/** How many of the newest posts GET /posts lists. */
export const LISTED_POSTS = 100;

export interface ForumStore {
  /** The newest LISTED_POSTS, newest first. */
  list(): Promise<PostSummary[]>;
  create(author: string, input: NewPost): Promise<Post>;
  /** Undefined when there is no such post. */
  get(id: number): Promise<Post | undefined>;
  reply(postId: number, author: string, input: NewReply): Promise<Reply | undefined>;
  like(postId: number): Promise<number | undefined>;
}

export const FORUM_STORE = Symbol('FORUM_STORE');

/** The seeded posts, in the order they were written: the database's migration writes the same. */
export const SEED_POSTS: ReadonlyArray<{ author: string } & NewPost> = [
  {
    author: 'Hermione',
    title: 'Welcome to the forum',
    body: 'Be kind; replies are limited to five a minute.',
  },
  { author: 'Ron', title: 'Quidditch results', body: 'Gryffindor won again.' },
  { author: 'Harry', title: 'Lost: one invisibility cloak', body: 'Seen it anywhere?' },
];
