import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeAll, connectCluster, flushAll } from '../../support/redis.clients.js';
import { startRedisCluster, type RedisCluster } from '../../support/redis-servers.js';

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
});

afterAll(async () => {
  await closeAll();
  await cluster.stop();
});

it('startRedisCluster gives each master a replica when asked', async () => {
  expect(cluster.nodes).toHaveLength(6);
  const client = connectCluster(cluster.nodes);
  const topology = String(await client.cluster('NODES'))
    .trim()
    .split('\n');

  // CLUSTER NODES lines read: id address flags master-id ...
  const nodes = topology.map((line) => line.split(' '));
  const masterIds = nodes.filter(([, , flags]) => flags?.includes('master')).map(([id]) => id);
  const replicaMasters = nodes
    .filter(([, , flags]) => flags?.includes('slave'))
    .map(([, , , masterId]) => masterId);
  expect(masterIds).toHaveLength(3);
  expect(replicaMasters.sort()).toEqual(masterIds.sort());
});

it('flushAll() empties every master of a cluster', async () => {
  const client = connectCluster(cluster.nodes);
  await Promise.all(Array.from({ length: 100 }, (_, i) => client.set(`key:${i}`, 'value')));

  await flushAll(client);

  const sizes = await Promise.all(client.nodes('master').map((master) => master.dbsize()));
  expect(sizes).toEqual([0, 0, 0]);
});
