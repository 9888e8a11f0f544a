import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { inject } from 'vitest';
import { parseNodeAddresses, type RedisNodeAddress } from './redis-servers.js';

const openClients = new Set<Redis | Cluster>();
const openNodeRedis = new Set<{ close(): Promise<unknown> }>();

/** A connected node-redis (5) client of the standalone Redis, or of `url`. Close with closeAll(). */
export async function connectNodeRedis(url: string = inject('redisUrl')) {
  const client = createClient({ url, disableOfflineQueue: true });
  client.on('error', () => undefined);
  openNodeRedis.add(client);
  await client.connect();
  return client;
}

/** A connected node-redis (5) client of the Redis Cluster, or of `nodes`. Close with closeAll(). */
export async function connectNodeRedisCluster(nodes: readonly RedisNodeAddress[] = clusterNodes()) {
  const cluster = createCluster({
    rootNodes: nodes.map((node) => ({ url: `redis://${node.host}:${node.port}` })),
  });
  cluster.on('error', () => undefined);
  openNodeRedis.add(cluster);
  await cluster.connect();
  return cluster;
}

/** The cluster nodes provided by the global setup. */
export function clusterNodes(): RedisNodeAddress[] {
  return parseNodeAddresses(inject('clusterNodes'));
}

/** Connects to the standalone Redis provided by the global setup, or to `url`. Close with closeAll(). */
export function connectRedis(url: string = inject('redisUrl'), options: RedisOptions = {}): Redis {
  const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, ...options });
  openClients.add(client);
  return client;
}

/** Connects to the Redis Cluster provided by the global setup, or to `nodes`. Close with closeAll(). */
export function connectCluster(
  nodes: readonly RedisNodeAddress[] = clusterNodes(),
  options: ClusterOptions = {},
): Cluster {
  const client = new Cluster([...nodes], { scaleReads: 'master', ...options });
  openClients.add(client);
  return client;
}

/** Closes every client this module opened; call it from `afterAll(closeAll)`. */
export async function closeAll(): Promise<void> {
  const clients = [...openClients];
  openClients.clear();
  const nodeRedis = [...openNodeRedis];
  openNodeRedis.clear();
  await Promise.all(nodeRedis.map((client) => client.close().catch(() => undefined)));
  await Promise.all(
    clients.map(async (client) => {
      if (client.status === 'end') return;
      // QUIT needs a live connection; a client still (re)connecting is simply dropped.
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    }),
  );
}

/**
 * Empties a standalone server, or every master of a cluster. Only for servers the test started
 * itself: the provided ones are shared by test files running in parallel, so tests there keep to
 * keys with a unique prefix instead.
 */
export async function flushAll(client: Redis | Cluster): Promise<void> {
  if (client instanceof Redis) {
    await client.flushall();
    return;
  }
  // The master list is only known once the cluster client has loaded the slot map.
  if (client.status !== 'ready') await once(client, 'ready');
  await Promise.all(client.nodes('master').map((master) => master.flushall()));
}

/**
 * Fresh key prefixes for one test file on the shared server, all under one random root, and the
 * removal of every key under that root when the file is done.
 */
export function filePrefixes(label: string): {
  next(): string;
  removeAll(client: Redis): Promise<void>;
} {
  const root = `${label}-${randomUUID().slice(0, 8)}-`;
  let count = 0;
  return {
    next: () => `${root}${++count}`,
    async removeAll(client) {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${root}*`, 'COUNT', 1000);
        if (keys.length > 0) await client.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    },
  };
}
