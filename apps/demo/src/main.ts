import 'reflect-metadata';
import { Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { setupSluiceAdminDocs } from '@sluice/admin';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module.js';
import { ConfigError, loadConfig, redactedUrl, type DemoConfig } from './config.js';

const LOG_LEVELS: Record<DemoConfig['nodeEnv'], LogLevel[]> = {
  development: ['fatal', 'error', 'warn', 'log', 'debug'],
  test: ['fatal', 'error', 'warn', 'log'],
  production: ['fatal', 'error', 'warn', 'log'],
};

function readConfig(): DemoConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

async function bootstrap(): Promise<void> {
  const config = readConfig();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forConfig(config), {
    logger: LOG_LEVELS[config.nodeEnv],
  });
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  if (config.databaseUrl !== undefined) await setupSluiceAdminDocs(app);
  await app.listen(config.port);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const logger = new Logger('Demo');
  if (config.redisUrl !== undefined) {
    logger.log(`Limits kept in Redis at ${redactedUrl(config.redisUrl)} under "${config.prefix}"`);
  }
  logger.log(`Forum demo listening on http://localhost:${port}`);
  if (config.databaseUrl === undefined) {
    logger.warn(
      'The admin API is off: set DATABASE_URL to a postgres:// URL to serve it at /sluice/api (an embedded database comes with a later release)',
    );
  } else {
    logger.log(
      `Admin API on http://localhost:${port}/sluice/api (its OpenAPI description at /sluice/api/docs), policies in ${redactedUrl(config.databaseUrl)}`,
    );
  }
}

bootstrap().catch((error: unknown) => {
  console.error('The demo could not start:', error);
  process.exit(1);
});
