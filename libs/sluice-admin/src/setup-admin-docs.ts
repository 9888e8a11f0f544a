import type { INestApplication } from '@nestjs/common';
import { loadOptionalPeer } from '@sluice/nest/internals';
import { z } from 'zod';
import { SESSION_COOKIE } from './auth/session.cookie.js';
import { ADMIN_FEATURES } from './sluice-admin.features.js';
import { ADMIN_PATH } from './config/sluice-admin.tokens.js';
import { AdminDocsStore } from './docs/admin-docs.store.js';
import { adminControllers, describeAdminRoutes } from './common/admin-controller.decorator.js';
import { requestSchemasOf } from './common/request-schema.pipe.js';

type Swagger = typeof import('@nestjs/swagger');

function loadSwagger(): Promise<Swagger> {
  return loadOptionalPeer(
    '@nestjs/swagger',
    'setupSluiceAdminDocs',
    () => import('@nestjs/swagger'),
  );
}

interface Operation {
  operationId?: string;
  requestBody?: unknown;
  parameters?: Array<{ name: string; in: string }>;
}

type Paths = Record<string, Record<string, Operation>>;

/**
 * Builds the OpenAPI description of the admin API from its routes and the schemas its handlers
 * validate with, and serves it at `GET /<path>/api/docs` behind the admin's own authentication.
 * Call it after `NestFactory.create()` and before `app.listen()`. The app's own document leaves
 * the admin's routes out unless the module was given `appOpenApi: true`.
 */
export async function setupSluiceAdminDocs(app: INestApplication): Promise<object> {
  const { DocumentBuilder, SwaggerModule } = await loadSwagger();
  const path = app.get<string>(ADMIN_PATH);
  const config = new DocumentBuilder()
    .setTitle('Sluice admin API')
    .setDescription(
      `Policies, revisions, the enforcement switch, blocked identifiers, penalties and the audit, under /${path}/api (after the app's global prefix, if any). Every route needs a bearer token or the panel's session cookie; roles: viewer (read), operator (block, unblock, reset, overrides, shadow), admin (policies, restore, enforcement).`,
    )
    .setVersion('1')
    // The tokens are opaque secrets from auth.credentials, not JWTs (@nestjs/swagger's default).
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'opaque',
      description: "An admin credential's token (SLUICE_ADMIN_TOKENS), not a JWT",
    })
    .addCookieAuth(SESSION_COOKIE)
    .addSecurityRequirements('bearer')
    .build();
  const hidden = [...adminControllers()].map(
    (controller) => Reflect.getMetadata('swagger/apiExcludeController', controller) as unknown,
  );
  describeAdminRoutes(true);
  let document: { paths: Paths };
  try {
    document = SwaggerModule.createDocument(app, config, {
      include: ADMIN_FEATURES,
    }) as unknown as { paths: Paths };
  } finally {
    [...adminControllers()].forEach((controller, index) =>
      Reflect.defineMetadata('swagger/apiExcludeController', hidden[index], controller),
    );
  }
  completeDocument(document.paths);
  app.get(AdminDocsStore).document = document;
  return document;
}

/**
 * What the document lacks on some versions, or has from the app: @nestjs/swagger 11 cannot read
 * the schemas of Nest 11's parameter decorators, so bodies and queries are described here from the
 * same zod schemas the handlers check; parameters added with the app's addGlobalParameters (which
 * @nestjs/swagger keeps for every document) are removed, as no admin route reads a header.
 */
function completeDocument(paths: Paths): void {
  const byOperation = new Map<string, { body?: z.ZodType; query?: z.ZodType }>();
  for (const controller of adminControllers()) {
    for (const [method, schemas] of requestSchemasOf(controller)) {
      byOperation.set(`${controller.name}_${method}`, schemas);
    }
  }
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      operation.parameters = (operation.parameters ?? []).filter(
        (parameter) => parameter.in === 'path' || parameter.in === 'query',
      );
      const schemas = byOperation.get(operation.operationId ?? '');
      if (schemas?.body !== undefined && operation.requestBody === undefined) {
        operation.requestBody = {
          required: true,
          content: { 'application/json': { schema: jsonSchema(schemas.body) } },
        };
      }
      if (schemas?.query !== undefined && !operation.parameters.some((p) => p.in === 'query')) {
        operation.parameters.push(...queryParameters(schemas.query));
      }
    }
  }
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
}

function queryParameters(schema: z.ZodType): Array<{ name: string; in: string }> {
  const json = jsonSchema(schema) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}
