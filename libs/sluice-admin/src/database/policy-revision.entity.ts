import type { Policy } from '@sluice/nest/internals';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber } from './bigint.transformer.js';

/** One version of one policy; a delete is recorded with a null body. */
@Entity({ name: 'sluice_policy_revision' })
export class PolicyRevisionEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'policy_name', type: 'varchar', length: 64 })
  policyName!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  version!: number;

  @Column({ type: 'varchar', length: 32 })
  action!: string;

  @Column({ type: 'json', nullable: true })
  body!: Policy | null;

  @Column({ type: 'text' })
  actor!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ type: 'varchar', length: 500, nullable: true })
  comment!: string | null;
}
