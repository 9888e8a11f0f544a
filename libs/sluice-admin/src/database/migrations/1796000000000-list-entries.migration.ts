import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The allow and deny lists' entries (docs/guide.md, allow and deny lists). */
export class ListEntries1796000000000 implements MigrationInterface {
  readonly name = 'ListEntries1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sluice_list_entry (
        id uuid PRIMARY KEY,
        list varchar(5) NOT NULL CHECK (list IN ('allow', 'deny')),
        kind varchar(10) NOT NULL CHECK (kind IN ('address', 'userAgent', 'identifier')),
        value text NOT NULL,
        key_kind varchar(72),
        prefix boolean NOT NULL DEFAULT false,
        policies json,
        mode varchar(7) NOT NULL CHECK (mode IN ('enforce', 'shadow')),
        reason text NOT NULL,
        expires_at timestamptz,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE sluice_list_entry');
  }
}
