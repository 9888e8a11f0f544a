import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A block's stored key for an identifier cut to 256 characters (docs/operations.md, "Identifiers
 * too long to show"): two such identifiers that begin alike are two keys, and a block is lifted by
 * the key rather than by the cut text, which names another. Null for every identifier shown
 * whole, as all rows written so far are taken to be.
 */
export class PenaltyIdentifierKey1795900000000 implements MigrationInterface {
  readonly name = 'PenaltyIdentifierKey1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sluice_penalty ADD COLUMN identifier_key varchar(46)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sluice_penalty DROP COLUMN identifier_key');
  }
}
