import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './bigint.transformer.js';

/** The one row (id 1) holding the global policy version and the enforcement switch. */
@Entity({ name: 'sluice_setting' })
export class SettingEntity {
  @PrimaryColumn({ type: 'smallint' })
  id!: number;

  /** Bumped by every change; its row lock serialises concurrent writers. */
  @Column({ type: 'bigint', transformer: bigintAsNumber })
  version!: number;

  @Column({ type: 'boolean' })
  enforcement!: boolean;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'updated_by', type: 'text', nullable: true })
  updatedBy!: string | null;
}
