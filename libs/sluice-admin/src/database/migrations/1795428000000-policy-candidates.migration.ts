import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Shadow candidates: one proposed revision per policy, decided beside it until it expires. */
export class PolicyCandidates1795428000000 implements MigrationInterface {
  readonly name = 'PolicyCandidates1795428000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sluice_policy_candidate (
        policy_name varchar(64) PRIMARY KEY
          REFERENCES sluice_policy (name) ON DELETE CASCADE,
        body json NOT NULL,
        base_version bigint NOT NULL,
        proposed_by text,
        proposed_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        comment text
      )`);
    await queryRunner.query(
      'CREATE INDEX sluice_policy_candidate_expires_at ON sluice_policy_candidate (expires_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE sluice_policy_candidate');
  }
}
