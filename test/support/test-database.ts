// A fresh, empty PostgreSQL database per test file, dropped by the file or, at the latest, by the
// run's global teardown (which drops every database of the run, even one a crashed file left).
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { databaseUrl, dropDatabase, runDatabasePrefix, withPostgres } from './postgres-server.js';

export interface TestDatabase {
  readonly name: string;
  /** postgres:// URL of the new database, as DATABASE_URL would hold it. */
  readonly url: string;
  /** Drops the database, closing whatever connections are still open to it. */
  drop(): Promise<void>;
}

/** Creates `sluice_t_<run>_<random>` on the run's PostgreSQL. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = postgresUrl();
  const name = `${runDatabasePrefix(inject('testRunId'))}${randomBytes(5).toString('hex')}`;
  await withPostgres(server, (client) =>
    client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`),
  );
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: databaseUrl(server, name),
    drop: () => (dropped ??= withPostgres(server, (client) => dropDatabase(client, name))),
  };
}

/** The maintenance database's URL on the run's PostgreSQL; throws why it cannot be used. */
export function postgresUrl(): string {
  const problem = inject('postgresProblem');
  if (problem !== '') {
    throw new Error(`${problem}. Start PostgreSQL or point TEST_DATABASE_URL at one.`);
  }
  return inject('postgresUrl');
}
