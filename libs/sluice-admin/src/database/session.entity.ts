import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AdminRole } from '../config/admin-auth-options.interface.js';

/** A panel session; the cookie holds a secret whose SHA-256 is the id, so the table holds no secret. */
@Entity({ name: 'sluice_admin_session' })
export class SessionEntity {
  @PrimaryColumn({ type: 'char', length: 64 })
  id!: string;

  @Column({ name: 'credential_name', type: 'varchar', length: 64 })
  credentialName!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: AdminRole;

  /** The credential's generation when the session was opened. */
  @Column({ name: 'credential_generation', type: 'integer', default: 1 })
  credentialGeneration!: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'text', nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'text', nullable: true })
  userAgent!: string | null;
}
