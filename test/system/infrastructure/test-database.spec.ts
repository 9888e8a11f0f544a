import { Client } from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { withPostgres } from '../../support/postgres-server.js';
import { createTestDatabase, postgresUrl } from '../../support/test-database.js';

async function databaseExists(name: string): Promise<boolean> {
  return withPostgres(postgresUrl(), async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rowCount === 1;
  });
}

describe('createTestDatabase', () => {
  it("creates an empty database named after the run, and drop() removes it even while it's in use", async () => {
    const database = await createTestDatabase();
    expect(database.name).toMatch(new RegExp(`^sluice_t_${inject('testRunId')}_[0-9a-f]{10}$`));
    expect(new URL(database.url).pathname).toBe(`/${database.name}`);

    const user = new Client({ connectionString: database.url });
    user.on('error', () => {});
    await user.connect();
    const { rows } = await user.query<{ tables: string }>(
      "SELECT count(*) AS tables FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(rows[0]!.tables).toBe('0');

    await database.drop();
    await user.end().catch(() => {});

    expect(await databaseExists(database.name)).toBe(false);
  });

  it('gives every call a database of its own', async () => {
    const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(first.name).not.toBe(second.name);
      expect(await databaseExists(first.name)).toBe(true);
      expect(await databaseExists(second.name)).toBe(true);
    } finally {
      await Promise.all([first.drop(), second.drop()]);
    }
  });
});
