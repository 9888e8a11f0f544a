import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AdminRole } from '../config/admin-auth-options.interface.js';

/** Where a credential came from: the module's options, or the one-time development token. */
export type CredentialSource = 'config' | 'generated';

/** A credential as the last start-up configured it; the secret only as a salted digest. */
@Entity({ name: 'sluice_admin_credential' })
export class CredentialEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: AdminRole;

  @Column({ name: 'secret_hash', type: 'text' })
  secretHash!: string;

  @Column({ type: 'varchar', length: 16 })
  source!: CredentialSource;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  /** Bumped when the token or role changes: sessions of an earlier generation are refused. */
  @Column({ type: 'integer', default: 1 })
  generation!: number;

  /** Set when a start-up no longer configures this credential; its sessions are gone. */
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;
}
