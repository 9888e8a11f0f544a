import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A credential's generation, bumped whenever its token or role changes, and the generation each
 * session was opened under: a session opened with an old token on an instance that had not yet
 * restarted is refused once the instance checking it knows the newer one (docs/security.md).
 * Sessions that exist already belong to generation 1, as their credentials do.
 */
export class CredentialGeneration1795800000000 implements MigrationInterface {
  readonly name = 'CredentialGeneration1795800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE sluice_admin_credential
        ADD COLUMN generation integer NOT NULL DEFAULT 1 CHECK (generation >= 1)`);
    await queryRunner.query(`
      ALTER TABLE sluice_admin_session
        ADD COLUMN credential_generation integer NOT NULL DEFAULT 1
          CHECK (credential_generation >= 1)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sluice_admin_session DROP COLUMN credential_generation');
    await queryRunner.query('ALTER TABLE sluice_admin_credential DROP COLUMN generation');
  }
}
