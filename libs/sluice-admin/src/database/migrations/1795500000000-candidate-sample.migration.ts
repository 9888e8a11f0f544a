import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The share of identifiers a candidate is decided for. Candidates proposed before it existed
 * were decided for every identifier, so they keep 100.
 */
export class CandidateSample1795500000000 implements MigrationInterface {
  readonly name = 'CandidateSample1795500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE sluice_policy_candidate
        ADD COLUMN sample_percent smallint NOT NULL DEFAULT 100
          CHECK (sample_percent BETWEEN 1 AND 100)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sluice_policy_candidate DROP COLUMN sample_percent');
  }
}
