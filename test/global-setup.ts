import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import {
  DEFAULT_POSTGRES_URL,
  dropDatabasesStartingWith,
  postgresProblem,
  runDatabasePrefix,
} from './support/postgres-server.js';
import {
  formatNodeAddresses,
  parseNodeAddresses,
  startRedisCluster,
  startRedisServer,
} from './support/redis-servers.js';

interface RedisForTests {
  /** What tests receive through `inject`. */
  readonly provided: string;
  readonly stop: () => Promise<void>;
}

const leaveRunning = async (): Promise<void> => {};

async function standaloneRedis(): Promise<RedisForTests> {
  // Never the app's REDIS_URL: files here flush and kill servers they are given.
  const fromEnv = process.env.TEST_REDIS_URL;
  if (fromEnv) return { provided: fromEnv, stop: leaveRunning };
  const server = await startRedisServer();
  return { provided: server.url, stop: () => server.stop() };
}

async function redisCluster(): Promise<RedisForTests> {
  const fromEnv = process.env.TEST_REDIS_CLUSTER_NODES;
  if (fromEnv) {
    return { provided: formatNodeAddresses(parseNodeAddresses(fromEnv)), stop: leaveRunning };
  }
  const cluster = await startRedisCluster({ masters: 3 });
  return { provided: formatNodeAddresses(cluster.nodes), stop: () => cluster.stop() };
}

/**
 * Test files create their databases on this server (TEST_DATABASE_URL, or the machine's); only
 * files that need PostgreSQL fail when it is unusable, with the reason found here.
 */
async function postgresForTests(
  runId: string,
): Promise<{ url: string; problem: string; dropRunDatabases: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL || DEFAULT_POSTGRES_URL;
  const problem = (await postgresProblem(url)) ?? '';
  const dropRunDatabases = async (): Promise<void> => {
    if (problem !== '') return;
    await dropDatabasesStartingWith(url, runDatabasePrefix(runId)).catch((error: unknown) => {
      console.warn(`Could not drop this run's test databases: ${(error as Error).message}`);
    });
  };
  return { url, problem, dropRunDatabases };
}

/** The tiers that run without any server (vitest.config.ts). */
const SERVERLESS_PROJECTS = new Set(['unit', 'web']);

/**
 * Gives every test a standalone Redis and a Redis Cluster: the ones named by TEST_REDIS_URL and
 * TEST_REDIS_CLUSTER_NODES when set, otherwise fresh servers that live for the run. Also names the
 * PostgreSQL that test databases are created on; teardown drops every database of this run. A run
 * of the unit tiers alone starts and checks nothing.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = randomBytes(4).toString('hex');
  project.provide('testRunId', runId);
  const needsServers = project.vitest.projects.some(
    (selected) => !SERVERLESS_PROJECTS.has(selected.name),
  );
  if (!needsServers) return async () => {};
  const postgresChecked = postgresForTests(runId);
  const [single, cluster] = await Promise.allSettled([standaloneRedis(), redisCluster()]);
  const postgres = await postgresChecked;
  const started = [single, cluster].flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  const teardown = async (): Promise<void> => {
    await Promise.all([...started.map((redis) => redis.stop()), postgres.dropRunDatabases()]);
  };
  if (single.status === 'rejected') {
    await teardown();
    throw single.reason;
  }
  if (cluster.status === 'rejected') {
    await teardown();
    throw cluster.reason;
  }
  project.provide('redisUrl', single.value.provided);
  project.provide('clusterNodes', cluster.value.provided);
  project.provide('postgresUrl', postgres.url);
  project.provide('postgresProblem', postgres.problem);
  return teardown;
}
