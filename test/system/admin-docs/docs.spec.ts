import { setupSluiceAdminDocs } from '@sluice/admin';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TOKENS, adminApp } from '../admin-api/app.module.js';
import { ADAPTERS, startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll } from '../../support/redis.clients.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

afterAll(closeAll);

interface OpenApi {
  openapi: string;
  paths: Record<
    string,
    Record<string, { requestBody?: unknown; parameters?: Array<{ name: string; in: string }> }>
  >;
  components: { securitySchemes: Record<string, unknown> };
}

describe.each(ADAPTERS)('the admin API description on %s', (adapter) => {
  let database: TestDatabase;
  let app: RunningApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startApp(
      adapter,
      adminApp({
        redisUrl: inject('redisUrl'),
        prefix: uniquePrefix('docs'),
        databaseUrl: database.url,
      }),
      (nest) => setupSluiceAdminDocs(nest),
    );
  });

  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const docs = (token?: string) =>
    fetch(`${app.url}/sluice/api/docs`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  it('needs credentials', async () => {
    expect((await docs()).status).toBe(401);
  });

  it('describes every admin route with the schemas the handlers check', async () => {
    const response = await docs(TOKENS.viewer);
    expect(response.status).toBe(200);
    const api = (await response.json()) as OpenApi;
    expect(api.openapi).toMatch(/^3\./);
    expect(Object.keys(api.components.securitySchemes).sort()).toEqual(['bearer', 'cookie']);
    // Opaque tokens, not JWTs.
    expect(api.components.securitySchemes.bearer).toMatchObject({
      scheme: 'bearer',
      bearerFormat: 'opaque',
    });
    expect(Object.keys(api.paths)).toEqual(
      expect.arrayContaining([
        '/sluice/api/policies/{name}',
        '/sluice/api/blocked',
        '/sluice/api/blocked/{policy}/{identifier}',
        '/sluice/api/penalties',
        '/sluice/api/identifiers',
        '/sluice/api/audit',
        '/sluice/api/session',
      ]),
    );
    const blockBody = JSON.stringify(api.paths['/sluice/api/blocked']!.post!.requestBody);
    for (const field of ['policy', 'identifier', 'durationMs', 'reason', 'keyKind']) {
      expect(blockBody).toContain(`"${field}"`);
    }
    const policyBody = JSON.stringify(api.paths['/sluice/api/policies/{name}']!.put!.requestBody);
    for (const field of ['algorithm', 'limit', 'periodMs', 'penalty', 'version', 'comment']) {
      expect(policyBody).toContain(`"${field}"`);
    }
    const penaltyQuery = api.paths['/sluice/api/penalties']!.get!.parameters!.map((p) => p.name);
    expect(penaltyQuery).toEqual(
      expect.arrayContaining(['identifier', 'policy', 'from', 'to', 'cursor', 'limit']),
    );
  });
});
