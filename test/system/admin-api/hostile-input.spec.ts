// Every admin route, as the API's own OpenAPI description lists it (built from the router and the
// schemas the handlers validate with), with hostile values in each of its path, query and body
// fields, as each role, on both adapters: never a 5xx; a 400 names the fields at fault; a refused
// write leaves what it would have written in PostgreSQL and Redis as it was.
import { setupSluiceAdminDocs } from '@sluice/admin';
import { type PolicyView } from '@sluice/admin/api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ADAPTERS, startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import type { Redis } from 'ioredis';
import { Client } from 'pg';
import { adminClient, type Role } from './admin.client.js';
import { adminApp, TOKENS } from './app.module.js';
import { asBody, quota } from './policy.bodies.js';

afterAll(closeAll);

/** Hostile text, for every kind of field. */
const TEXT = [
  '\u0000',
  'a\r\nb',
  'x'.repeat(10_240),
  '😀',
  '\ud800',
  '{}',
  "' OR 1=1; --",
  '=HYPERLINK("http://evil.example/","x")',
  '__proto__',
  'constructor',
];
/**
 * For path and query fields: all but the lone surrogate, which no well-formed URL can carry (its
 * bytes are refused by the HTTP framework, before any route).
 */
const URL_TEXT = TEXT.filter((text) => text !== '\ud800');
/** Hostile JSON values beside the text, for body fields. */
const VALUES: unknown[] = [
  ...TEXT,
  {},
  [],
  null,
  -1,
  1.5,
  1e300,
  true,
  { ['__proto__']: { x: 1 } },
];
const ROLES: Role[] = ['viewer', 'operator', 'admin'];
const WRITES = new Set(['post', 'put', 'delete', 'patch']);

interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: 'path' | 'query' }>;
  bodyFields: string[];
}

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ name: string; in: string }>;
        requestBody?: { content?: Record<string, { schema?: { properties?: object } }> };
      }
    >
  >;
}

/** Percent-encoded; a lone surrogate, which has no UTF-8 form, goes as the bytes a client sends. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text
      .split('')
      .map((unit) => (/[\ud800-\udfff]/.test(unit) ? '%ED%A0%80' : encodeURIComponent(unit)))
      .join('');
  }
}

/** A value each path parameter takes when it is not the one under test: names that exist. */
const PATH_VALUES: Record<string, string> = {
  name: 'fuzzed',
  v: '1',
  policy: 'reply',
  identifier: 'ann',
};

/**
 * Fastify's JSON parser refuses a body with a `__proto__` key before any route runs (against
 * prototype poisoning), with a 400 of its own that names no field; nothing reaches the admin.
 */
function refusedByParser(body: unknown): boolean {
  const message = (body as { message?: unknown } | null)?.message;
  return message === "Body is not valid JSON but content-type is set to 'application/json'";
}

describe.each(ADAPTERS)('hostile input to every admin route on %s', (adapter) => {
  let database: TestDatabase;
  let app: RunningApp;
  let api: ReturnType<typeof adminClient>;
  const prefix = uniquePrefix('hostile');
  let redis: Redis | undefined;
  let operations: Operation[] = [];
  let pg: Client | undefined;
  let connected = false;
  const bodies: Record<string, Record<string, unknown>> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startApp(
      adapter,
      adminApp({
        redisUrl: inject('redisUrl'),
        prefix,
        databaseUrl: database.url,
      }),
      (nest) => setupSluiceAdminDocs(nest),
    );
    api = adminClient(`${app.url}/sluice/api`);
    const docs = (await api<OpenApi>('GET', '/docs', { as: 'viewer' })).body;
    operations = Object.entries(docs.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method,
        path: path.replace(/^\/sluice\/api/, ''),
        params: (operation.parameters ?? []).map((param) => ({
          name: param.name,
          in: param.in as 'path' | 'query',
        })),
        bodyFields: Object.keys(
          operation.requestBody?.content?.['application/json']?.schema?.properties ?? {},
        ),
      })),
    );
    const created = await api<PolicyView>('PUT', '/policies/fuzzed', { body: quota(10) });
    expect(created.status).toBe(201);
    bodies['put /policies/{name}'] = { ...asBody(created.body), version: created.body.version };
    bodies['post /blocked'] = { policy: 'reply', identifier: 'ann', durationMs: 60_000 };
    bodies['put /enforcement'] = { enabled: true };
    bodies['post /session'] = { name: 'nobody', password: 'not-a-password' };
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await app?.close();
    await database?.drop();
  });

  /**
   * What a refused write could have changed, in PostgreSQL over one connection of the test's (the
   * rows a write commits with its request) and in Redis. (The penalty history follows blocks from Redis's event
   * stream, later and apart from any request; admin-penalties and the sign-in tests cover it.)
   */
  async function tables(): Promise<string> {
    pg ??= new Client({ connectionString: database.url });
    if (!connected) {
      await pg.connect();
      connected = true;
    }
    const { rows: counts } = await pg.query(
      `SELECT (SELECT count(*) FROM sluice_admin_audit) AS audit,
              (SELECT count(*) FROM sluice_policy_revision) AS revisions,
              (SELECT count(*) FROM sluice_admin_session) AS sessions,
              (SELECT max(version) FROM sluice_setting) AS version`,
    );
    return JSON.stringify([counts[0], await redisState()]);
  }

  /**
   * What a request writes to Redis itself: the published policy version and the penalty state of
   * each identifier it blocked (the counts and heartbeats that run beside it are left out).
   */
  async function redisState(): Promise<[string | null, number]> {
    redis ??= connectRedis();
    let penaltyKeys = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:{*}:*:p`, 'COUNT', 1000);
      penaltyKeys += keys.length;
      cursor = next;
    } while (cursor !== '0');
    return [await redis.get(`${prefix}:policies:version`), penaltyKeys];
  }

  /** Sends one request; the route path's parameters take `path`, the rest are as given. */
  async function send(
    operation: Operation,
    as: Role,
    field: { in: 'path' | 'query' | 'body'; name: string; value: unknown } | undefined,
  ): Promise<{ status: number; body: unknown }> {
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encode(
        field?.in === 'path' && field.name === name
          ? String(field.value)
          : (PATH_VALUES[name] ?? 'x'),
      ),
    );
    const search =
      field?.in === 'query' ? `?${encode(field.name)}=${encode(String(field.value))}` : '';
    const base = bodies[`${operation.method} ${operation.path}`];
    const body =
      field?.in === 'body'
        ? { ...base, [field.name]: field.value }
        : operation.bodyFields.length > 0
          ? (base ?? {})
          : undefined;
    if (operation.path === '/events') {
      // A stream: its status is all there is to check, then it is dropped.
      const abort = new AbortController();
      const response = await fetch(`${app.url}/sluice/api${path}${search}`, {
        headers: { authorization: `Bearer ${TOKENS[as]}` },
        signal: abort.signal,
      });
      abort.abort();
      return { status: response.status, body: null };
    }
    const answer = await api(operation.method.toUpperCase(), `${path}${search}`, { as, body });
    return { status: answer.status, body: answer.body };
  }

  it('answers every hostile value without a 5xx, names the fields it refuses, writes nothing on a refusal', async () => {
    expect(operations.length).toBeGreaterThan(20);
    const problems: string[] = [];
    // The sign-in comes last: its failures count against this client's sign-in limit.
    const ordered = [
      ...operations.filter((operation) => operation.path !== '/session'),
      ...operations.filter((operation) => operation.path === '/session'),
    ];
    let requests = 0;
    for (const operation of ordered) {
      const fields = [
        ...operation.params.map((param) => ({ in: param.in, name: param.name })),
        ...operation.bodyFields.map((name) => ({ in: 'body' as const, name })),
      ];
      const cases = [
        undefined,
        ...fields.flatMap((field) =>
          (field.in === 'body' ? VALUES : URL_TEXT).map((value) => ({ ...field, value })),
        ),
      ];
      for (const as of ROLES) {
        for (const field of cases) {
          const write = WRITES.has(operation.method);
          const before = write ? await tables() : '';
          const answer = await send(operation, as, field);
          requests++;
          const label = `${operation.method.toUpperCase()} ${operation.path} as ${as} with ${field === undefined ? 'nothing' : `${field.in} ${field.name}=${JSON.stringify(field.value)?.slice(0, 40)}`}`;
          if (answer.status >= 500) problems.push(`${label}: ${answer.status}`);
          if (answer.status === 400 && !refusedByParser(answer.body)) {
            const issues = (answer.body as { issues?: Array<{ field?: unknown }> }).issues ?? [];
            if (issues.length === 0 || issues.some((issue) => typeof issue.field !== 'string')) {
              problems.push(`${label}: 400 without the fields at fault`);
            }
          }
          // A 429 is the sign-in limit taking effect: the block it starts is the one thing a
          // refused attempt writes, by design (docs/security.md).
          if (write && answer.status >= 400 && answer.status !== 429) {
            if ((await tables()) !== before) {
              problems.push(`${label}: ${answer.status}, and PostgreSQL or Redis changed`);
            }
          }
          // A write that succeeded has committed all it writes by its answer.
        }
      }
    }
    console.log(`hostile input on ${adapter}: ${requests} requests to ${operations.length} routes`);
    expect(problems).toEqual([]);
  }, 300_000);
});
