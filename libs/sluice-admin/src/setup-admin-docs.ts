import type { INestApplication } from '@nestjs/common';
import { loadOptionalPeer } from '@sluice/nest/internals';
import { SESSION_COOKIE } from './auth/session.cookie.js';
import { ADMIN_FEATURES } from './sluice-admin.features.js';
import { ADMIN_PATH } from './config/sluice-admin.tokens.js';
import { AdminDocsStore } from './docs/admin-docs.store.js';

type Swagger = typeof import('@nestjs/swagger');

function loadSwagger(): Promise<Swagger> {
  return loadOptionalPeer(
    '@nestjs/swagger',
    'setupSluiceAdminDocs',
    () => import('@nestjs/swagger'),
  );
}

/**
 * Builds the OpenAPI description of the admin API from its routes and the schemas its handlers
 * validate with, and serves it at `GET /<path>/api/docs` behind the admin's own authentication.
 * Call it after `NestFactory.create()` and before `app.listen()`.
 */
export async function setupSluiceAdminDocs(app: INestApplication): Promise<object> {
  const { DocumentBuilder, SwaggerModule } = await loadSwagger();
  const path = app.get<string>(ADMIN_PATH);
  const config = new DocumentBuilder()
    .setTitle('Sluice admin API')
    .setDescription(
      `Policies, revisions, the enforcement switch, blocked identifiers, penalties and the audit, under /${path}/api. Every route needs a bearer token or the panel's session cookie; roles: viewer (read), operator (block, unblock, reset, overrides, shadow), admin (policies, restore, enforcement).`,
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
  const document = SwaggerModule.createDocument(app, config, {
    include: ADMIN_FEATURES,
  });
  app.get(AdminDocsStore).document = document;
  return document;
}
