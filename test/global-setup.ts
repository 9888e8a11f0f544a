import type { TestProject } from 'vitest/node';
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
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv) return { provided: fromEnv, stop: leaveRunning };
  const server = await startRedisServer();
  return { provided: server.url, stop: () => server.stop() };
}

async function redisCluster(): Promise<RedisForTests> {
  const fromEnv = process.env.REDIS_CLUSTER_NODES;
  if (fromEnv) {
    return { provided: formatNodeAddresses(parseNodeAddresses(fromEnv)), stop: leaveRunning };
  }
  const cluster = await startRedisCluster({ masters: 3 });
  return { provided: formatNodeAddresses(cluster.nodes), stop: () => cluster.stop() };
}

/**
 * Gives every test a standalone Redis and a Redis Cluster: the ones named by REDIS_URL and
 * REDIS_CLUSTER_NODES when set, otherwise fresh servers that live for the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [single, cluster] = await Promise.allSettled([standaloneRedis(), redisCluster()]);
  const started = [single, cluster].flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  const teardown = async (): Promise<void> => {
    await Promise.all(started.map((redis) => redis.stop()));
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
  return teardown;
}
