import type { Policy } from '@sluice/nest/internals';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './bigint.transformer.js';

/**
 * A policy file as applied (docs/operations.md, "Policies as code"): the panel marks the policies
 * that have drifted from the latest one.
 */
@Entity({ name: 'sluice_policy_file' })
export class AppliedPolicyFileEntity {
  /** The global version its apply made. */
  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber })
  version!: number;

  /** Every policy of the file by name, parsed with its defaults. */
  @Column({ type: 'json' })
  policies!: Record<string, Policy>;

  @Column({ name: 'applied_by', type: 'text' })
  appliedBy!: string;

  @Column({ name: 'applied_at', type: 'timestamptz' })
  appliedAt!: Date;

  @Column({ type: 'varchar', length: 500, nullable: true })
  comment!: string | null;
}
