import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PenaltyTrigger } from '@sluice/nest/internals';
import { bigintAsNumber } from './bigint.transformer.js';

/** A block's history (docs/architecture.md, a penalty event), written from the penalty event stream. */
@Entity({ name: 'sluice_penalty' })
export class PenaltyEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  /** The stream event that started the block: recording it twice is refused. */
  @Column({ name: 'event_id', type: 'text', unique: true })
  eventId!: string;

  @Column({ type: 'varchar', length: 64 })
  policy!: string;

  @Column({ name: 'policy_version', type: 'bigint', transformer: bigintAsNumber })
  policyVersion!: number;

  @Column({ name: 'key_kind', type: 'varchar', length: 80 })
  keyKind!: string;

  @Column({ type: 'varchar', length: 256 })
  identifier!: string;

  /** The stored key of an identifier cut to 256 characters; null when it is shown whole. */
  @Column({ name: 'identifier_key', type: 'varchar', length: 46, nullable: true })
  identifierKey!: string | null;

  @Column({ name: 'offence_level', type: 'integer' })
  offenceLevel!: number;

  /** Null for a manual block. */
  @Column({ type: 'json', nullable: true })
  trigger!: PenaltyTrigger | null;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'varchar', length: 8 })
  source!: 'auto' | 'manual';

  @Column({ name: 'created_by', type: 'text', nullable: true })
  createdBy!: string | null;

  /** Why a manual block was set. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  reason!: string | null;

  @Column({ name: 'lifted_at', type: 'timestamptz', nullable: true })
  liftedAt!: Date | null;

  @Column({ name: 'lifted_by', type: 'text', nullable: true })
  liftedBy!: string | null;

  @Column({ name: 'lift_reason', type: 'varchar', length: 500, nullable: true })
  liftReason!: string | null;

  @Column({ name: 'instance_id', type: 'text', nullable: true })
  instanceId!: string | null;

  @Column({ type: 'text', nullable: true })
  route!: string | null;
}
