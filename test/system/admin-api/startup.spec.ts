import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { adminApp } from './app.module.js';

describe('admin instances starting together against a new database', () => {
  const apps: RunningApp[] = [];
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await database?.drop();
  });

  it('all start: migrations run once, each code default is seeded once', async () => {
    database = await createTestDatabase();
    const prefix = uniquePrefix('admin-start');
    const options = { redisUrl: inject('redisUrl'), prefix, databaseUrl: database.url };
    const started = await Promise.allSettled(
      (['express', 'fastify', 'express'] as const).map((adapter) =>
        startApp(adapter, adminApp(options)),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') apps.push(result.value);
    expect(started.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const migrations = await client.query<{ name: string; runs: string }>(
        'SELECT name, count(*) AS runs FROM sluice_migrations GROUP BY name',
      );
      expect(migrations.rows.length).toBeGreaterThan(0);
      expect(migrations.rows.every((row) => row.runs === '1')).toBe(true);
      const seeds = await client.query<{ target: string; seeded: string }>(
        "SELECT target, count(*) AS seeded FROM sluice_admin_audit WHERE action = 'policy.seed' GROUP BY target",
      );
      expect(seeds.rows.length).toBeGreaterThan(0);
      expect(seeds.rows.every((row) => row.seeded === '1')).toBe(true);
    } finally {
      await client.end();
    }
  });
});
