import { once } from 'node:events';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceEngine, toIdentifier, type AlgorithmName } from '@sluice/nest/internals';
import { ALGORITHM_CODES } from '@sluice/nest/src/algorithms/algorithm.types.js';
import { identifierKey } from '@sluice/nest/src/keys/key.builder.js';
import { RedisStore } from '@sluice/nest/engine';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import {
  startRedisCluster,
  startRedisServer,
  type RedisCluster,
  type RedisServer,
} from '../../support/redis-servers.js';

/**
 * SCRIPT FLUSH and FUNCTION FLUSH while 50 callers hammer one identifier. The store runs its Lua
 * as a Redis function library: SCRIPT FLUSH must leave it untouched, and after FUNCTION FLUSH
 * every FCALL gets "Function not found" (nothing ran), so the store loads the library and calls
 * again. No caller sees an error, and the capacity is admitted exactly: nothing counted twice,
 * nothing lost.
 */

const CALLERS = 50;
/** The load lasts this long, and on a slow machine until the capacity is used up (at most MAX_RUN_MS). */
const RUN_MS = 2_000;
const MAX_RUN_MS = 20_000;
const CAPACITY = 5_000;
const DAY_MS = 86_400_000;
/** Flushes while admitting (at these fractions of the capacity), then on a timer while rejecting. */
const FLUSH_AT = [0.2, 0.4, 0.6, 0.8];
const FLUSH_EVERY_MS = 250;

// Servers of this file's own: FUNCTION FLUSH removes the library every other file's store uses.
let server: RedisServer;
let cluster: RedisCluster;
beforeAll(async () => {
  [server, cluster] = await Promise.all([startRedisServer(), startRedisCluster({ masters: 3 })]);
}, 60_000);
afterAll(async () => {
  await closeAll();
  await Promise.all([server?.stop(), cluster?.stop()]);
});

interface Traffic {
  fcalls: number;
  /** FCALLs answered "Function not found": a flush removed the library mid-load. */
  notFound: number;
  /** "Function not found" replies while the capacity was partly admitted: flushes hit mid-load. */
  notFoundMidway: number;
}

/** Counts, on this client only, the store's FCALLs and the "Function not found" replies. */
function watchFunctions(client: Redis | Cluster, admittedSoFar: () => number): Traffic {
  const traffic: Traffic = { fcalls: 0, notFound: 0, notFoundMidway: 0 };
  const fcall = client.fcall.bind(client) as (...args: unknown[]) => Promise<unknown>;
  Object.defineProperty(client, 'fcall', {
    configurable: true,
    value: async (...args: unknown[]) => {
      traffic.fcalls++;
      try {
        return await fcall(...args);
      } catch (error) {
        if (error instanceof Error && error.message.includes('Function not found')) {
          traffic.notFound++;
          const admitted = admittedSoFar();
          if (admitted > 0 && admitted < CAPACITY) traffic.notFoundMidway++;
        }
        throw error;
      }
    },
  });
  return traffic;
}

async function redisNowMs(client: Redis | Cluster): Promise<number> {
  const [seconds, micros] = await (client as Redis).time();
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

async function ready(client: Redis | Cluster): Promise<void> {
  if (client.status !== 'ready') await once(client, 'ready');
}

interface Outcome {
  admitted: number;
  rejected: number;
  errors: string[];
  remaining: number[];
  flushes: number;
  traffic: Traffic;
}

async function loadWithFlushes(
  client: Redis | Cluster,
  flushAll: () => Promise<unknown>,
  algorithm: AlgorithmName,
  prefix: string,
): Promise<Outcome> {
  // Keep the (day-long) window or refill edge out of the run: wait out the last 10 s of a day.
  const intoDay = (await redisNowMs(client)) % DAY_MS;
  if (DAY_MS - intoDay < 10_000) await new Promise((r) => setTimeout(r, DAY_MS - intoDay + 100));

  let admittedSoFar = 0;
  const traffic = watchFunctions(client, () => admittedSoFar);
  const engine = new SluiceEngine({
    store: new RedisStore(client),
    prefix,
    policies: [{ name: 'flushed', algorithm, limit: CAPACITY, periodMs: DAY_MS }],
  });
  const outcome: Outcome = {
    admitted: 0,
    rejected: 0,
    errors: [],
    remaining: [],
    flushes: 0,
    traffic,
  };
  const flushing: Promise<unknown>[] = [];
  const flush = () => {
    outcome.flushes++;
    flushing.push(flushAll());
  };
  const thresholds = FLUSH_AT.map((fraction) => fraction * CAPACITY);
  const started = performance.now();
  const more = () => {
    const elapsed = performance.now() - started;
    return elapsed < RUN_MS || (outcome.rejected === 0 && elapsed < MAX_RUN_MS);
  };
  const timer = setInterval(flush, FLUSH_EVERY_MS);
  const caller = async () => {
    while (more()) {
      try {
        const decision = await engine.consume('flushed', 'one');
        if (decision.allowed) {
          admittedSoFar = ++outcome.admitted;
          outcome.remaining.push(decision.remaining);
          if (outcome.admitted >= (thresholds[0] ?? Infinity)) {
            thresholds.shift();
            flush();
          }
        } else {
          outcome.rejected++;
        }
      } catch (error) {
        outcome.errors.push(String(error));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: CALLERS }, caller));
  } finally {
    clearInterval(timer);
    await Promise.all(flushing);
  }
  console.info(
    `${algorithm}: ${outcome.admitted} admitted, ${outcome.rejected} rejected, ` +
      `${outcome.errors.length} errors, ${outcome.flushes} flushes, ${traffic.fcalls} FCALL, ` +
      `${traffic.notFound} not found (${traffic.notFoundMidway} while the capacity was being admitted)` +
      (outcome.errors.length > 0 ? `; first error: ${outcome.errors[0]}` : ''),
  );
  return outcome;
}

function expectExactAndUnharmed(outcome: Outcome): void {
  expect(outcome.errors).toEqual([]);
  expect(outcome.admitted).toBe(CAPACITY);
  // Each admission saw the state the one before left: remaining takes every value once.
  const remaining = [...outcome.remaining].sort((a, b) => a - b);
  expect(new Set(remaining).size).toBe(CAPACITY);
  expect([remaining[0], remaining.at(-1)]).toEqual([0, CAPACITY - 1]);
  expect(outcome.rejected).toBeGreaterThan(0);
  // The flushes did land mid-load, while the capacity was still being admitted.
  expect(outcome.flushes).toBeGreaterThanOrEqual(FLUSH_AT.length + 3);
  expect(outcome.traffic.notFound).toBeGreaterThan(0);
  expect(outcome.traffic.notFoundMidway).toBeGreaterThan(0);
}

const stateKey = (prefix: string, algorithm: AlgorithmName) =>
  `${identifierKey(prefix, 'user', toIdentifier('one'))}:flushed:${ALGORITHM_CODES[algorithm]}`;

const storedCount = async (client: Redis | Cluster, algorithm: AlgorithmName, prefix: string) =>
  algorithm === 'token-bucket'
    ? // tokens left
      CAPACITY - Number(String(await client.get(stateKey(prefix, algorithm))).split(' ')[0])
    : // admitted in this window
      Number(String(await client.get(stateKey(prefix, algorithm))).split(' ')[1]);

const flushEverything = (server: Redis) =>
  Promise.all([server.script('FLUSH'), server.function('FLUSH')]);

describe('SCRIPT FLUSH and FUNCTION FLUSH during load, single Redis', () => {
  it.each(['token-bucket', 'fixed-window'] as const)(
    `%s: no caller sees an error and exactly ${CAPACITY} are admitted`,
    async (algorithm) => {
      const client = connectRedis(server.url);
      const admin = connectRedis(server.url);
      const prefix = `flush-${algorithm}-${Date.now()}`;
      const outcome = await loadWithFlushes(
        client,
        () => flushEverything(admin),
        algorithm,
        prefix,
      );
      expectExactAndUnharmed(outcome);
      expect(await storedCount(admin, algorithm, prefix)).toBe(CAPACITY);
    },
    45_000,
  );
});

describe('SCRIPT FLUSH and FUNCTION FLUSH on every master during load, Redis Cluster', () => {
  it.each(['token-bucket', 'fixed-window'] as const)(
    `%s: no caller sees an error and exactly ${CAPACITY} are admitted`,
    async (algorithm) => {
      const client = connectCluster(cluster.nodes);
      const admin = connectCluster(cluster.nodes);
      await Promise.all([ready(client), ready(admin)]);
      const masters = admin.nodes('master');
      expect(masters).toHaveLength(3);
      const prefix = `flush-cluster-${algorithm}-${Date.now()}`;
      const outcome = await loadWithFlushes(
        client,
        () => Promise.all(masters.map(flushEverything)),
        algorithm,
        prefix,
      );
      expectExactAndUnharmed(outcome);
      expect(await storedCount(admin, algorithm, prefix)).toBe(CAPACITY);
    },
    45_000,
  );
});
