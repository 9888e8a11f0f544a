import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The keys of recent grants, so a retried grant is made once (docs/guide.md, "Credits"). */
export class GrantKeys1796200000000 implements MigrationInterface {
  readonly name = 'GrantKeys1796200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sluice_grant_key (
        key varchar(100) PRIMARY KEY,
        policy text NOT NULL,
        identifier text NOT NULL,
        amount integer NOT NULL,
        audit_id bigint NOT NULL,
        made_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Keys older than a day are dropped by the next grant.
    await queryRunner.query('CREATE INDEX sluice_grant_key_made_at ON sluice_grant_key (made_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE sluice_grant_key');
  }
}
