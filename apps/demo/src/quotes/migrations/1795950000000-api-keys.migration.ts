import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEED_KEYS } from '../api-key.store.js';

/** The API keys the quote API accepts, each on a plan, seeded with the demo's three. */
export class ApiKeys1795950000000 implements MigrationInterface {
  readonly name = 'ApiKeys1795950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE demo_api_key (
        key text PRIMARY KEY,
        plan text NOT NULL CHECK (plan IN ('free', 'pro'))
      )`);
    for (const { key, plan } of SEED_KEYS) {
      await queryRunner.query('INSERT INTO demo_api_key (key, plan) VALUES ($1, $2)', [key, plan]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE demo_api_key');
  }
}
