import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A reply to a post; its post's id is checked by a foreign key. */
@Entity({ name: 'demo_reply' })
@Index(['postId', 'id'])
export class ReplyEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'post_id', type: 'integer' })
  postId!: number;

  @Column({ type: 'text' })
  author!: string;

  @Column({ type: 'text' })
  body!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
