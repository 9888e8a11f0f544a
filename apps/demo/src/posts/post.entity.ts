import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A forum post, shared by every instance through PostgreSQL. */
@Entity({ name: 'demo_post' })
export class PostEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  author!: string;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  body!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ type: 'integer', default: 0 })
  likes!: number;
}
