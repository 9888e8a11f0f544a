import type { AdminErrorBody } from '@sluice/admin/api';
import type { PolicySnapshot } from '@sluice/nest/internals';
import type { Redis } from 'ioredis';
import { Client } from 'pg';
import { TOKENS } from './app.module.js';

export type Role = keyof typeof TOKENS;

export interface Reply<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** What a refusal carries beyond AdminErrorBody: the fields an operator may not change. */
export type ErrorReply = AdminErrorBody & { fields?: string[] };

/**
 * Calls the admin API under `base` (e.g. http://127.0.0.1:1234/sluice/api) as a role, admin by
 * default; `T` is the body the test expects, an error body unless told otherwise.
 */
export function adminClient(base: string) {
  return async <T = ErrorReply>(
    method: string,
    path: string,
    options: { as?: Role; body?: unknown } = {},
  ): Promise<Reply<T>> => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${TOKENS[options.as ?? 'admin']}`,
      'user-agent': 'admin-api-test',
    };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : null) as T,
    };
  };
}

/** Runs one query on the test database, as an auditor or a saboteur would. */
export async function query<T = Record<string, unknown>>(
  databaseUrl: string,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, parameters)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The snapshot the admin published under `prefix`, decoded enough to read versions and limits. */
export async function publishedSnapshot(redis: Redis, prefix: string): Promise<PolicySnapshot> {
  const fields = await redis.hgetall(`${prefix}:policies`);
  const policies = Object.entries(fields)
    .filter(([field]) => !field.startsWith('@'))
    .map(([, text]) => JSON.parse(text) as unknown);
  return {
    version: Number(fields['@version']),
    enforcement: fields['@enforcement'] === 'on',
    policies,
  };
}

/** Polls every 50 ms until `probe` holds; fails after `withinMs`. */
export async function eventually(
  probe: () => boolean | Promise<boolean>,
  withinMs: number,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
