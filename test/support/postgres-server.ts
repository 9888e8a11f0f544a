// The machine's PostgreSQL as the test run uses it: checked once, and cleaned of the run's databases.
import { Client } from 'pg';

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECT_TIMEOUT_MS = 3_000;
const QUERY_TIMEOUT_MS = 30_000;

/** Every test database of one run starts with this; the run's teardown drops them all. */
export function runDatabasePrefix(runId: string): string {
  return `sluice_t_${runId}_`;
}

/** Runs `work` on a short-lived connection to the maintenance database at `url`. */
export async function withPostgres<T>(
  url: string,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // Without a listener, a connection lost between queries would crash the process.
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why PostgreSQL at `url` cannot hold test databases, or null when it can. */
export async function postgresProblem(url: string): Promise<string | null> {
  try {
    const canCreate = await withPostgres(url, async (client) => {
      const { rows } = await client.query<{ allowed: boolean }>(
        'SELECT rolcreatedb OR rolsuper AS allowed FROM pg_roles WHERE rolname = current_user',
      );
      return rows[0]?.allowed === true;
    });
    return canCreate ? null : `the user of ${redacted(url)} may not create databases`;
  } catch (error) {
    return `PostgreSQL at ${redacted(url)} is unreachable: ${(error as Error).message}`;
  }
}

/** Drops every database whose name starts with `prefix`, closing its connections. */
export async function dropDatabasesStartingWith(url: string, prefix: string): Promise<string[]> {
  return withPostgres(url, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix],
    );
    for (const { datname } of rows) await dropDatabase(client, datname);
    return rows.map((row) => row.datname);
  });
}

/** How long a drop waits for a session it may not end (an autovacuum worker) to leave. */
const DROP_ATTEMPTS = 30;
const DROP_RETRY_MS = 100;

/**
 * FORCE ends the database's other sessions. A test role without pg_signal_backend may not end
 * an autovacuum worker that happens to be visiting the database (PostgreSQL answers 42501,
 * insufficient privilege), and the worker leaves by itself within moments: so try again.
 */
export async function dropDatabase(client: Client, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '42501' || attempt >= DROP_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, DROP_RETRY_MS));
    }
  }
}

/** The URL of database `name` on the server of `url`. */
export function databaseUrl(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}
