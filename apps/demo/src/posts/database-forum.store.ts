import type { DataSource } from 'typeorm';
import type { NewPost, NewReply } from './posts.schemas.js';
import {
  LISTED_POSTS,
  type ForumStore,
  type Post,
  type PostSummary,
  type Reply,
} from './forum.store.js';
import { PostEntity } from './post.entity.js';
import { ReplyEntity } from './reply.entity.js';

interface PostRow {
  id: number;
  author: string;
  title: string;
  body: string;
  created_at: Date;
  likes: number;
}

const toReply = (row: ReplyEntity): Reply => ({
  id: row.id,
  author: row.author,
  body: row.body,
  createdAt: row.createdAt.toISOString(),
});

/** The forum in PostgreSQL: a post written through one instance is read through any other. */
export class DatabaseForumStore implements ForumStore {
  constructor(private readonly dataSource: DataSource) {}

  async list(): Promise<PostSummary[]> {
    const rows: Array<PostRow & { reply_count: number }> = await this.dataSource.query(
      `SELECT p.id, p.author, p.title, p.body, p.created_at, p.likes,
              count(r.id)::int AS reply_count
       FROM demo_post p LEFT JOIN demo_reply r ON r.post_id = p.id
       GROUP BY p.id ORDER BY p.id DESC LIMIT $1`,
      [LISTED_POSTS],
    );
    return rows.map((row) => ({
      id: row.id,
      author: row.author,
      title: row.title,
      body: row.body,
      createdAt: row.created_at.toISOString(),
      likes: row.likes,
      replyCount: row.reply_count,
    }));
  }

  async create(author: string, input: NewPost): Promise<Post> {
    const row = await this.dataSource
      .getRepository(PostEntity)
      .save({ author, title: input.title, body: input.body });
    return this.toPost(row, []);
  }

  async get(id: number): Promise<Post | undefined> {
    const row = await this.dataSource.getRepository(PostEntity).findOneBy({ id });
    if (row === null) return undefined;
    const replies = await this.dataSource
      .getRepository(ReplyEntity)
      .find({ where: { postId: id }, order: { id: 'ASC' } });
    return this.toPost(row, replies.map(toReply));
  }

  async reply(postId: number, author: string, input: NewReply): Promise<Reply | undefined> {
    // The foreign key decides whether the post exists, in the same statement as the insert.
    const rows: Array<{ id: number; created_at: Date }> = await this.dataSource.query(
      `INSERT INTO demo_reply (post_id, author, body)
       SELECT id, $2, $3 FROM demo_post WHERE id = $1
       RETURNING id, created_at`,
      [postId, author, input.body],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return { id: row.id, author, body: input.body, createdAt: row.created_at.toISOString() };
  }

  /** One statement, so concurrent likes through different instances all count. */
  async like(postId: number): Promise<number | undefined> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(PostEntity)
      .set({ likes: () => 'likes + 1' })
      .where('id = :postId', { postId })
      .returning(['likes'])
      .execute();
    return (result.raw as Array<{ likes: number }>)[0]?.likes;
  }

  private toPost(row: PostEntity, replies: Reply[]): Post {
    return {
      id: row.id,
      author: row.author,
      title: row.title,
      body: row.body,
      createdAt: row.createdAt.toISOString(),
      likes: row.likes,
      replies,
    };
  }
}
