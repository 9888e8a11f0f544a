import type { Policy } from '@sluice/nest/internals';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './bigint.transformer.js';

/** A policy's shadow candidate: at most one per policy (docs/architecture.md). */
@Entity({ name: 'sluice_policy_candidate' })
export class PolicyCandidateEntity {
  @PrimaryColumn({ name: 'policy_name', type: 'varchar', length: 64 })
  policyName!: string;

  /** The proposed revision, validated, named as its policy. */
  @Column({ type: 'json' })
  body!: Policy;

  /** The policy's version when it was proposed: promoting after a later change asks to confirm. */
  @Column({ name: 'base_version', type: 'bigint', transformer: bigintAsNumber })
  baseVersion!: number;

  @Column({ name: 'proposed_by', type: 'text', nullable: true })
  proposedBy!: string | null;

  @Column({ name: 'proposed_at', type: 'timestamptz' })
  proposedAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'text', nullable: true })
  comment!: string | null;

  /** The share of identifiers, 1–100 percent, it is decided for. */
  @Column({ name: 'sample_percent', type: 'smallint' })
  samplePercent!: number;
}
