import type { AlgorithmName } from '../../libs/sluice/src/internals.js';
import { DEFAULT_SYNC_MS } from '../../libs/sluice/src/policy/policy.schema.js';
import { pacedLoad } from '../load/paced.load.js';
import type { LoadResult } from '../load/load.types.js';
import type { BenchContext } from './bench.context.js';
import { ContenderProcess } from './contender.process.js';
import { loadOf } from './throughput.scenario.js';

export const EVENTUAL_LIMIT = 1000;
export const EVENTUAL_INSTANCES = 3;
/** Requests a second each instance receives, at an even pace. */
export const EVENTUAL_RATE = 500;
const DURATION_S = 2;
const PERIOD_MS = 3_600_000;
const CONNECTIONS_PER_INSTANCE = 10;
const ALGORITHMS: AlgorithmName[] = ['fixed-window', 'gcra'];

export interface EventualResult {
  algorithm: AlgorithmName;
  syncMs: number;
  instances: LoadResult[];
  sent: number;
  admitted: number;
  /** The documented bound on what passes beyond the limit: instances × rate × syncMs. */
  bound: number;
}

/**
 * consistency: 'eventual' with real timers (docs/algorithms.md, eventual consistency): three
 * instances of the app share one Redis; each receives EVENTUAL_RATE requests a second of one
 * identifier for DURATION_S, together three times the limit of EVENTUAL_LIMIT per hour. What
 * passes beyond the limit must stay within instances × rate × syncMs.
 */
export async function runEventual(context: BenchContext): Promise<EventualResult[]> {
  const { redis } = context;
  const results: EventualResult[] = [];
  for (const algorithm of ALGORITHMS) {
    await redis.admin.flushall();
    const launch = {
      contender: `sluice-${algorithm}-eventual`,
      adapter: 'fastify' as const,
      redisUrl: redis.url,
      rule: {
        algorithm,
        limit: EVENTUAL_LIMIT,
        periodMs: PERIOD_MS,
        consistency: 'eventual' as const,
      },
    };
    const apps = await Promise.all(
      Array.from({ length: EVENTUAL_INSTANCES }, () => ContenderProcess.start(launch)),
    );
    try {
      const shape = { connections: CONNECTIONS_PER_INSTANCE, durationS: DURATION_S };
      const one = { prefix: `eventual-${algorithm}`, count: 1 };
      const instances = await Promise.all(
        apps.map((app) =>
          pacedLoad({ ...loadOf('users', app.url, shape, one), rate: EVENTUAL_RATE }),
        ),
      );
      const count = (status: string) =>
        instances.reduce((sum, instance) => sum + (instance.byStatus[status] ?? 0), 0);
      const result: EventualResult = {
        algorithm,
        syncMs: DEFAULT_SYNC_MS,
        instances,
        sent: instances.reduce((sum, instance) => sum + instance.requests, 0),
        admitted: count('200'),
        bound: (EVENTUAL_INSTANCES * EVENTUAL_RATE * DEFAULT_SYNC_MS) / 1000,
      };
      results.push(result);
      console.log(
        `[eventual] ${algorithm}: ${result.admitted} admitted of ${result.sent} (limit ${EVENTUAL_LIMIT}, bound +${result.bound})`,
      );
    } finally {
      await Promise.all(apps.map((app) => app.stop()));
    }
  }
  return results;
}
