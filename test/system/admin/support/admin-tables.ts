// The admin's own tables read straight from PostgreSQL, to prove that a refused write left no trace.
import { withPostgres } from '../../../support/postgres-server.js';

/** Policies, revisions, audit, settings and penalties: everything but credentials and sessions. */
const ADMIN_TABLES = /^sluice_(policy|policy_revision|admin_audit|setting|penalty)$/;

/** Every row of the admin's tables as PostgreSQL's own text, in a stable order, by table. */
export function adminTableContents(databaseUrl: string): Promise<Record<string, string[]>> {
  return withPostgres(databaseUrl, async (client) => {
    const { rows: tables } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    const contents: Record<string, string[]> = {};
    for (const { name } of tables.filter((table) => ADMIN_TABLES.test(table.name))) {
      const { rows } = await client.query<{ row: string }>(
        `SELECT t::text AS row FROM ${client.escapeIdentifier(name)} t ORDER BY 1`,
      );
      contents[name] = rows.map((row) => row.row);
    }
    return contents;
  });
}
