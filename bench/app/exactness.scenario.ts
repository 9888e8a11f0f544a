import { ALGORITHMS, type AlgorithmName } from '../../libs/sluice/src/internals.js';
import type { LoadResult } from '../load/load.types.js';
import type { BenchContext } from './bench.context.js';
import { ContenderProcess } from './contender.process.js';
import { loadOf } from './throughput.scenario.js';

export const EXACT_LIMIT = 1000;
const PERIOD_MS = 3_600_000;
/** Requests each instance receives: together five times the limit. */
const REQUESTS_PER_INSTANCE = 2500;
const CONNECTIONS_PER_INSTANCE = 25;
/**
 * leaky-bucket shapes (delays) rather than counts, and concurrency bounds the requests in flight,
 * which end here in a few milliseconds: their exactness is test/measured/engine's to check.
 */
export const EXACT_ALGORITHMS = ALGORITHMS.filter(
  (algorithm) => algorithm !== 'leaky-bucket' && algorithm !== 'concurrency',
);

export interface ExactnessResult {
  algorithm: AlgorithmName;
  /** Per instance, as their load generators saw it. */
  instances: LoadResult[];
  admitted: number;
  refused: number;
  /** Neither 200 nor 429, or no answer. */
  other: number;
}

/**
 * Two instances of the app share one Redis; both are hammered at once with one identifier under
 * a limit of EXACT_LIMIT per hour. Exactly EXACT_LIMIT requests may pass, whichever instance
 * they reach.
 */
export async function runExactness(context: BenchContext): Promise<ExactnessResult[]> {
  const { redis } = context;
  const results: ExactnessResult[] = [];
  for (const algorithm of EXACT_ALGORITHMS) {
    await redis.admin.flushall();
    const launch = {
      contender: `sluice-${algorithm}`,
      adapter: 'fastify' as const,
      redisUrl: redis.url,
      rule: { algorithm, limit: EXACT_LIMIT, periodMs: PERIOD_MS },
    };
    const apps = await Promise.all([
      ContenderProcess.start(launch),
      ContenderProcess.start(launch),
    ]);
    try {
      const shape = { connections: CONNECTIONS_PER_INSTANCE, amount: REQUESTS_PER_INSTANCE };
      const one = { prefix: `exact-${algorithm}`, count: 1 };
      const instances = await Promise.all([
        context.load.run(loadOf('users', apps[0].url, shape, one)),
        context.secondLoad.run(loadOf('users', apps[1].url, shape, one)),
      ]);
      const count = (status: string) =>
        instances.reduce((sum, instance) => sum + (instance.byStatus[status] ?? 0), 0);
      const sent = REQUESTS_PER_INSTANCE * instances.length;
      const result: ExactnessResult = {
        algorithm,
        instances,
        admitted: count('200'),
        refused: count('429'),
        other: sent - count('200') - count('429'),
      };
      results.push(result);
      console.log(
        `[exactness] ${algorithm}: ${result.admitted} admitted, ${result.refused} refused, ${result.other} other, of ${sent}`,
      );
    } finally {
      await Promise.all(apps.map((app) => app.stop()));
    }
  }
  return results;
}
