import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { setupSluiceAdminDocs } from '@sluice/admin';
import { ADMIN_ROUTES, type AdminRoutesListed } from '@sluice/admin/api';
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
  /** The app's own document, built as an app does, with a global header of its own. */
  let appDocument: { paths: Record<string, unknown> };

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startApp(
      adapter,
      adminApp({
        redisUrl: inject('redisUrl'),
        prefix: uniquePrefix('docs'),
        databaseUrl: database.url,
      }),
      (nest) => {
        const own = new DocumentBuilder()
          .setTitle('The app')
          .addGlobalParameters({ name: 'x-tenant', in: 'header', required: true })
          .build();
        appDocument = SwaggerModule.createDocument(nest, own);
        return setupSluiceAdminDocs(nest);
      },
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
    const unblockQuery = api.paths[
      '/sluice/api/blocked/{policy}/{identifier}'
    ]!.delete!.parameters!.filter((p) => p.in === 'query').map((p) => p.name);
    expect(unblockQuery).toEqual(expect.arrayContaining(['keyKind', 'reason']));
  });

  it('lists in AdminRoutes exactly the JSON routes the admin serves, which typed clients use', async () => {
    // Type-checked by `npm run lint`: compiles only while ADMIN_ROUTES lists every AdminRoutes key.
    const everyRouteListed: AdminRoutesListed = true;
    void everyRouteListed;
    const api = (await (await docs(TOKENS.viewer)).json()) as OpenApi;
    const served = Object.entries(api.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map(
        (method) =>
          `${method.toUpperCase()} ${path.replace('/sluice/api', '').replace(/\{(\w+)\}/g, ':$1')}`,
      ),
    );
    // The event stream and the description itself are not JSON routes of the map.
    const json = served.filter((route) => !/^GET \/(events|docs)/.test(route));
    expect([...json].sort()).toEqual([...ADMIN_ROUTES].sort());
  });

  it("leaves the admin's routes out of the app's own document, and its global header out of the admin's", async () => {
    expect(Object.keys(appDocument.paths).filter((path) => path.includes('/sluice'))).toEqual([]);
    const api = (await (await docs(TOKENS.viewer)).json()) as OpenApi;
    const headers = Object.values(api.paths)
      .flatMap((operations) => Object.values(operations))
      .flatMap((operation) => operation.parameters ?? [])
      .filter((parameter) => parameter.in === 'header');
    expect(headers).toEqual([]);
  });
});
