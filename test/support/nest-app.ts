import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

/** The HTTP adapters every e2e scenario runs on. */
export const ADAPTERS = ['express', 'fastify'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

export interface RunningApp {
  app: INestApplication;
  url: string;
  close(): Promise<void>;
}

/** Compiles a testing module and serves it on a free loopback port with the adapter named. */
export async function startApp(
  adapter: AdapterName,
  metadata: ModuleMetadata,
  configure?: (app: INestApplication) => void,
): Promise<RunningApp> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter())
      : moduleRef.createNestApplication();
  app.useLogger(false);
  configure?.(app);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, close: () => app.close() };
}

/** A unique Redis key prefix, so tests sharing a server never see each other's counters. */
export function uniquePrefix(name: string): string {
  return `t-${name}-${Math.random().toString(36).slice(2, 10)}`;
}
