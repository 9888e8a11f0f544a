import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectCluster, connectRedis, flushAll } from '../../support/redis.clients.js';
import { startRedisServer } from '../../support/redis-servers.js';

afterAll(closeAll);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('standalone Redis from the global setup', () => {
  it('answers PING, SET and GET', async () => {
    const redis = connectRedis();
    const key = `smoke:${randomUUID()}`;

    expect(await redis.ping()).toBe('PONG');
    expect(await redis.set(key, 'value', 'EX', 60)).toBe('OK');
    expect(await redis.get(key)).toBe('value');
  });
});

describe('Redis Cluster from the global setup', () => {
  it('spreads writes to 1000 keys over every master', async () => {
    const cluster = connectCluster();
    const prefix = `smoke:${randomUUID()}`;
    const keys = Array.from({ length: 1000 }, (_, i) => `${prefix}:${i}`);

    await Promise.all(keys.map((key) => cluster.set(key, key, 'EX', 60)));

    const masters = cluster.nodes('master');
    expect(masters).toHaveLength(3);
    const keysPerMaster = await Promise.all(masters.map((master) => master.keys(`${prefix}:*`)));
    for (const held of keysPerMaster) expect(held.length).toBeGreaterThan(0);
    expect(keysPerMaster.flat().sort()).toEqual([...keys].sort());
  });
});

describe('startRedisServer', () => {
  it('restart() brings the server back empty on the same port, and stop() ends it', async () => {
    const server = await startRedisServer();
    const before = connectRedis(server.url);
    await before.set('written-before-restart', 'value');
    await before.quit();
    const firstPid = server.pid;

    await server.restart();

    expect(isAlive(firstPid)).toBe(false);
    expect(server.pid).not.toBe(firstPid);
    const after = connectRedis(server.url);
    expect(await after.dbsize()).toBe(0);
    await after.quit();

    const secondPid = server.pid;
    await server.stop();
    expect(isAlive(secondPid)).toBe(false);
  });

  it('flushAll() empties it', async () => {
    const server = await startRedisServer();
    try {
      const redis = connectRedis(server.url);
      await redis.set('key', 'value');

      await flushAll(redis);

      expect(await redis.dbsize()).toBe(0);
    } finally {
      await closeAll();
      await server.stop();
    }
  });
});
