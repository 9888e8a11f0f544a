import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The admin's credentials (argon2id hashes only) and the panel's sessions. */
export class AdminCredentials1795341600000 implements MigrationInterface {
  readonly name = 'AdminCredentials1795341600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sluice_admin_credential (
        name varchar(64) PRIMARY KEY,
        role varchar(16) NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
        secret_hash text NOT NULL,
        source varchar(16) NOT NULL CHECK (source IN ('config', 'generated')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        disabled_at timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE sluice_admin_session (
        id char(64) PRIMARY KEY,
        credential_name varchar(64) NOT NULL
          REFERENCES sluice_admin_credential (name) ON DELETE CASCADE,
        role varchar(16) NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        ip text,
        user_agent text
      )`);
    await queryRunner.query(
      'CREATE INDEX sluice_admin_session_credential_name ON sluice_admin_session (credential_name)',
    );
    await queryRunner.query(
      'CREATE INDEX sluice_admin_session_expires_at ON sluice_admin_session (expires_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE sluice_admin_session');
    await queryRunner.query('DROP TABLE sluice_admin_credential');
  }
}
