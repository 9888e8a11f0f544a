import type { ModuleMetadata } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { AdapterName, RunningApp } from '../../../support/nest-app.js';
import type { RecordingLogger } from './recording.logger.js';

/**
 * Serves the module on a free loopback port with everything it logs recorded, from the first
 * provider built (what the module says at start) to the end.
 */
export async function startLoggedApp(
  adapter: AdapterName,
  metadata: ModuleMetadata,
  logger: RecordingLogger,
): Promise<RunningApp> {
  const moduleRef = await Test.createTestingModule(metadata).setLogger(logger).compile();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter())
      : moduleRef.createNestApplication();
  app.useLogger(logger);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, close: () => app.close() };
}
