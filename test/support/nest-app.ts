import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import { afterEach } from 'vitest';

/** The HTTP adapters every e2e scenario runs on. */
export const ADAPTERS = ['express', 'fastify'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

export interface RunningApp {
  app: INestApplication;
  url: string;
  close(): Promise<void>;
}

/** Replaces providers before the module compiles (an injected clock, say). */
export type Overrides = (builder: TestingModuleBuilder) => TestingModuleBuilder;

/** Compiles a testing module into a silent app on the adapter named, not yet initialised. */
export async function createApp(
  adapter: AdapterName,
  metadata: ModuleMetadata,
  overrides: Overrides = (builder) => builder,
): Promise<INestApplication> {
  const moduleRef = await overrides(Test.createTestingModule(metadata)).compile();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter())
      : moduleRef.createNestApplication();
  app.useLogger(false);
  return app;
}

/** Compiles a testing module and serves it on a free loopback port with the adapter named. */
export async function startApp(
  adapter: AdapterName,
  metadata: ModuleMetadata,
  configure?: (app: INestApplication) => unknown,
  overrides?: Overrides,
): Promise<RunningApp> {
  const app = await createApp(adapter, metadata, overrides);
  await configure?.(app);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, close: () => app.close() };
}

/** Registers an afterEach closing every app the returned startApp started during the test. */
export function closeAppsAfterEach(): typeof startApp {
  const running: RunningApp[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((app) => app.close()));
  });
  return async (...args) => {
    const app = await startApp(...args);
    running.push(app);
    return app;
  };
}

/** Fetches `url` `times` times in a row, reading each body before the next request. */
export async function fetchTimes(
  url: string,
  times: number,
  init?: RequestInit,
): Promise<Response[]> {
  const responses: Response[] = [];
  for (let i = 0; i < times; i++) {
    const response = await fetch(url, init);
    await response.arrayBuffer();
    responses.push(response);
  }
  return responses;
}

/** Every rate-limit header Sluice may send, in the order it sends them. */
export const RATE_HEADERS: readonly string[] = [
  'ratelimit-policy',
  'ratelimit',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

/** Which of `names` a response carries, in their order: made for `responses.map(...)`. */
export const headersAmong =
  (names: readonly string[]) =>
  (response: { headers: Headers }): string[] =>
    names.filter((name) => response.headers.has(name));

/** Which of RATE_HEADERS a response carries, in their order. */
export const rateHeadersOf = headersAmong(RATE_HEADERS);

/** A response's header `name`, or null: made for `responses.map(header(name))`. */
export const header =
  (name: string) =>
  (response: { headers: Headers }): string | null =>
    response.headers.get(name);

/** A unique Redis key prefix, so tests sharing a server never see each other's counters. */
export function uniquePrefix(name: string): string {
  return `t-${name}-${Math.random().toString(36).slice(2, 10)}`;
}
