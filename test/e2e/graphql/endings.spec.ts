import type { ModuleMetadata } from '@nestjs/common';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { closeAppsAfterEach, uniquePrefix, type AdapterName } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import type { SluiceModuleOptions } from '@sluice/nest/internals';
import { WorkCounter } from '../../support/work.counter.js';
import { graphqlApp, mercuriusApp } from './app.module.js';

// How a resolver's concurrency slot ends (docs/algorithms.md, "What a request holds"): held
// while it works, whether its client waits or leaves, and given back once when it ends,
// answering or throwing; on Apollo (Express) and Mercurius (Fastify), one Redis and a Cluster.

const STORES = [
  { name: 'Redis', connect: () => connectRedis(inject('redisUrl')) },
  { name: 'a Redis Cluster', connect: () => connectCluster() },
];
const SERVERS: Array<{
  name: string;
  adapter: AdapterName;
  app: (options: SluiceModuleOptions) => ModuleMetadata;
}> = [
  { name: 'Apollo on Express', adapter: 'express', app: (options) => graphqlApp(options, true) },
  { name: 'Mercurius on Fastify', adapter: 'fastify', app: mercuriusApp },
];
/** How soon after a resolver ends its slot is free again: one more store call. */
const RELEASE_BUDGET_MS = 1_000;

afterAll(closeAll);

interface Answer {
  data: Record<string, string> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

async function query(url: string, text: string, signal?: AbortSignal): Promise<Answer> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: text }),
    signal,
  });
  return (await response.json()) as Answer;
}

const refused = (answer: Answer) => answer.errors?.[0]?.extensions?.code === 'TOO_MANY_REQUESTS';

/** Asks for a report until one is admitted; how long after `since` that took. */
async function admittedAfter(url: string, since: number): Promise<number> {
  while (Date.now() - since < RELEASE_BUDGET_MS + 500) {
    const answer = await query(url, '{ report(ms: 0) }');
    if (answer.data?.report === 'after 0 ms') return Date.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Infinity;
}

describe.each(SERVERS)('a resolver under a concurrency limit, on $name', (server) => {
  const startApp = closeAppsAfterEach();
  const start = (store: (typeof STORES)[number]) =>
    startApp(
      server.adapter,
      server.app({ redis: store.connect(), prefix: uniquePrefix('graphql-endings') }),
    );

  it.each(STORES)(
    `holds the slot of a client gone while its resolver works, frees it within ${RELEASE_BUDGET_MS} ms of the end, on $name`,
    async (store) => {
      const { app, url } = await start(store);
      const client = new AbortController();
      const gone = query(url, '{ report(ms: 800) }', client.signal).catch(() => 'aborted');
      await new Promise((resolve) => setTimeout(resolve, 150));
      client.abort();
      expect(await gone).toBe('aborted');
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(app.get(WorkCounter).running).toBe(1);
      expect(refused(await query(url, '{ report(ms: 0) }'))).toBe(true);
      const ended = await app.get(WorkCounter).finishedAt(1);
      expect(await admittedAfter(url, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );

  it.each(STORES)(
    `frees the slot of a resolver that throws within ${RELEASE_BUDGET_MS} ms of its end, on $name`,
    async (store) => {
      const { app, url } = await start(store);
      const failing = query(url, '{ failingReport(ms: 200) }');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(refused(await query(url, '{ report(ms: 0) }'))).toBe(true);
      expect((await failing).errors?.[0]?.message).toBe('the report failed');
      const ended = await app.get(WorkCounter).finishedAt(1);
      expect(await admittedAfter(url, ended)).toBeLessThanOrEqual(RELEASE_BUDGET_MS);
    },
  );
});
