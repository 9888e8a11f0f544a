import type { Policy } from '@sluice/nest/internals';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './bigint.transformer.js';

@Entity({ name: 'sluice_policy' })
export class PolicyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  /** The whole policy as published, metadata included; `json` keeps its key order. */
  @Column({ type: 'json' })
  body!: Policy;

  @Column({ type: 'varchar', length: 8 })
  source!: 'code' | 'admin';

  /** The global version of the change that last wrote this row. */
  @Column({ type: 'bigint', transformer: bigintAsNumber })
  version!: number;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'updated_by', type: 'text', nullable: true })
  updatedBy!: string | null;
}
