import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber } from './bigint.transformer.js';

/** Who changed what (docs/architecture.md, a policy change); the table refuses UPDATE, DELETE and TRUNCATE. */
@Entity({ name: 'sluice_admin_audit' })
export class AdminAuditEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'occurred_at', type: 'timestamptz', default: () => 'now()' })
  occurredAt!: Date;

  @Column({ type: 'text' })
  actor!: string;

  @Column({ type: 'text', nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'text', nullable: true })
  userAgent!: string | null;

  @Column({ type: 'varchar', length: 64 })
  action!: string;

  @Column({ type: 'text' })
  target!: string;

  @Column({ type: 'json', nullable: true })
  before!: object | null;

  @Column({ type: 'json', nullable: true })
  after!: object | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  comment!: string | null;

  /** The global version after the change. */
  @Column({ type: 'bigint', transformer: bigintAsNumber })
  version!: number;
}
