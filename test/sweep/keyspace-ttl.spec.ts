// Runs after every other tier (vitest.config.ts, groupOrder 2): the whole keyspace the run's e2e,
// system and measured files wrote into, on the shared server and every cluster master. A key that
// never expires outlives the identifier it counts; only the four bounded keys below may.
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectCluster, connectRedis } from '../support/redis.clients.js';

afterAll(closeAll);

/**
 * Kept on purpose, one each per prefix, and bounded: the policy snapshot and its version (as many
 * fields as policies), the heartbeats (one field per live instance, the stale ones removed), and
 * the penalty stream (trimmed to its maximum length).
 */
const KEPT_WITHOUT_TTL = [/:policies$/, /:policies:version$/, /:instances$/, /:penalty-events$/];

/** Every key on `server` without a TTL, and how many keys there were. */
async function keysWithoutTtl(server: Redis): Promise<{ scanned: number; forever: string[] }> {
  const forever: string[] = [];
  let scanned = 0;
  let cursor = '0';
  do {
    const [next, keys] = await server.scan(cursor, 'COUNT', 1_000);
    cursor = next;
    scanned += keys.length;
    if (keys.length === 0) continue;
    const pipeline = server.pipeline();
    for (const key of keys) pipeline.pttl(key);
    const ttls = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      if (ttls[i]?.[1] === -1) forever.push(key);
    });
  } while (cursor !== '0');
  return { scanned, forever };
}

const unexpected = (keys: string[]) =>
  keys.filter((key) => !KEPT_WITHOUT_TTL.some((pattern) => pattern.test(key))).sort();

describe('the keyspace after the run', () => {
  it('holds no key without a TTL on the shared Redis, but the bounded ones Sluice keeps', async () => {
    const { scanned, forever } = await keysWithoutTtl(connectRedis());
    console.info(`keyspace sweep, single Redis: ${scanned} keys, ${forever.length} without TTL`);
    expect(scanned).toBeGreaterThan(0);
    expect(unexpected(forever)).toEqual([]);
  });

  it('holds no key without a TTL on any cluster master, but the bounded ones', async () => {
    const cluster = connectCluster();
    await new Promise<void>((resolve) => cluster.once('ready', () => resolve()));
    let scanned = 0;
    const forever: string[] = [];
    for (const master of cluster.nodes('master')) {
      const found = await keysWithoutTtl(master);
      scanned += found.scanned;
      forever.push(...found.forever);
    }
    console.info(`keyspace sweep, cluster: ${scanned} keys, ${forever.length} without TTL`);
    expect(scanned).toBeGreaterThan(0);
    expect(unexpected(forever)).toEqual([]);
  });
});
