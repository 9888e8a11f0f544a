import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The policy files applied (docs/operations.md, "Policies as code"), and the audit by version. */
export class PolicyFiles1796100000000 implements MigrationInterface {
  readonly name = 'PolicyFiles1796100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sluice_policy_file (
        version bigint PRIMARY KEY,
        policies json NOT NULL,
        applied_by text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        comment varchar(500)
      )`);
    // An apply looks for the changes made since the file's version.
    await queryRunner.query(
      'CREATE INDEX sluice_admin_audit_version ON sluice_admin_audit (version)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX sluice_admin_audit_version');
    await queryRunner.query('DROP TABLE sluice_policy_file');
  }
}
