import 'reflect-metadata';
import { Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { setupSluiceAdminDocs } from '@sluice/admin';
import { isIP, type AddressInfo } from 'node:net';
import { openAdminDatabase } from './admin-database.js';
import { openForumDatabase } from './posts/forum.database.js';
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
  const logger = new Logger('Demo');
  const database = await openAdminDatabase(config);
  const forum = await openForumDatabase(config);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forConfig(config, database, forum),
    { logger: LOG_LEVELS[config.nodeEnv] },
  );
  app.disable('x-powered-by');
  // The databases close after the app, so the last writes reach them.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void app
        .close()
        .then(() => Promise.all([database?.stop(), forum.stop()]))
        .finally(() => process.exit(0));
    });
  }
  try {
    if (database !== undefined) await setupSluiceAdminDocs(app);
    await app.listen(config.port, config.host);
  } catch (error) {
    // A start that fails past Sluice's bootstrap (the port taken, say) closes the app, so its
    // heartbeat leaves the instance list at once instead of going stale there.
    await app.close().catch(() => undefined);
    await Promise.all([database?.stop(), forum.stop()]).catch(() => undefined);
    throw error;
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  const everywhere = config.host === '0.0.0.0' || config.host === '::';
  const shownHost = everywhere
    ? 'localhost'
    : isIP(config.host) === 6
      ? `[${config.host}]`
      : config.host;
  const base = `http://${shownHost}:${port}`;
  logger.log(
    config.redisUrl === undefined
      ? 'Limits kept in this process (no REDIS_URL)'
      : `Limits kept in Redis at ${redactedUrl(config.redisUrl)} under "${config.prefix}"`,
  );
  logger.log(`Posts kept in ${forum.description}`);
  if (database === undefined) {
    logger.warn('The admin API and panel are off (SLUICE_ADMIN=off)');
  } else {
    logger.log(`Policies, penalties and the audit kept in ${database.description}`);
    logger.log(`Admin panel on ${base}/sluice`);
    logger.log(`Admin API on ${base}/sluice/api (its OpenAPI description at /sluice/api/docs)`);
  }
  // Last, so whoever waits for this line has read the others.
  logger.log(`Forum demo listening on ${base}`);
}

bootstrap().catch((error: unknown) => {
  console.error('The demo could not start:', error);
  process.exit(1);
});
