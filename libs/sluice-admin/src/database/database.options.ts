import { z } from 'zod';
import type { AdminDatabaseOptions } from '../config/sluice-admin-options.interface.js';

const OPTION = 'SluiceAdminModule options.database';
const URL_RULE = 'must be a postgres:// or postgresql:// URL';

const postgresUrl = z
  .string({ error: URL_RULE })
  .refine((url) => /^postgres(ql)?:\/\//i.test(url) && URL.canParse(url), { error: URL_RULE });

const integer = (min: number, max: number) =>
  z
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int({ error: `must be an integer from ${min} to ${max}` })
    .min(min, { error: `must be an integer from ${min} to ${max}` })
    .max(max, { error: `must be an integer from ${min} to ${max}` });

/** A plain PostgreSQL identifier: it is quoted into DDL and the connection's search_path. */
const SCHEMA_RULE =
  'must be a PostgreSQL schema name: a letter or _, then letters, digits or _, at most 63, not pg_*';
const schemaName = z
  .string({ error: SCHEMA_RULE })
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { error: SCHEMA_RULE })
  .refine((name) => !/^pg_/i.test(name), { error: SCHEMA_RULE });

const databaseSchema = z.strictObject({
  url: postgresUrl,
  schema: schemaName.default('public'),
  poolSize: integer(1, 100).default(5),
  connectTimeoutMs: integer(100, 60_000).default(2_000),
  queryTimeoutMs: integer(100, 600_000).default(5_000),
});

export type ResolvedDatabaseOptions = Required<AdminDatabaseOptions>;

/** Validates `database` and fills in its defaults; the error names every bad field, never the password. */
export function resolveDatabaseOptions(database: unknown): ResolvedDatabaseOptions {
  const input = typeof database === 'string' ? { url: database } : database;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new Error(
      `${OPTION}: required, a postgres:// URL or { url, schema?, poolSize?, connectTimeoutMs?, queryTimeoutMs? }`,
    );
  }
  const parsed = databaseSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.flatMap((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [''];
    return keys.map((key) => {
      const path = [...issue.path.map(String), ...(key ? [key] : [])];
      const field = typeof database === 'string' ? OPTION : [OPTION, ...path].join('.');
      return `${field}: ${key ? 'is not an option' : issue.message}`;
    });
  });
  throw new Error(problems.join('; '));
}

/** The URL without its password, for messages. */
export function describeDatabase(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}
