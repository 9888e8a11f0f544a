import type { LoadResult } from '../load/load.types.js';
import type { KeyMode } from './bench.constants.js';
import type { AdapterName } from './contender.env.js';
import { helperPids, type BenchContext } from './bench.context.js';
import { ContenderProcess, type LoopDelay } from './contender.process.js';
import { contenderById, inMeasuringOrder, type Contender } from './contenders.js';
import { OtherLoad } from './process.cpu.js';
import { redisSnapshot, redisUsage, type RedisUsage } from './redis.stats.js';
import { loadOf, startContenders, warmUp } from './throughput.scenario.js';

/**
 * Who runs at the fixed rate: bare, the peer's guard, Sluice's exact and eventual paths, the
 * blocked paths of both, and Sluice's denied path (docs/benchmarks.md, "At a fixed load").
 */
export const PACED_CONTENDERS = [
  'bare',
  'rlf-redis',
  'sluice-gcra',
  'sluice-gcra-eventual',
  'rlf-redis-blocked',
  'sluice-blocked',
  'sluice-denied',
] as const;

/** One paced window: a contender on one adapter in one key mode, in one round. */
export interface PacedSample {
  adapter: AdapterName;
  round: number;
  contender: string;
  mode: KeyMode;
  /** Requests per second asked for. */
  rate: number;
  load: LoadResult;
  redis: RedisUsage;
  /** The app process's CPU per response, µs. */
  appCpuUs: number;
  /** The app's event loop delay over the window, ms; undefined if it did not say. */
  loop: LoopDelay | undefined;
  otherCores: number;
}

/**
 * Every contender at the same request rate, sent at an even pace (bench/load/paced.load.ts):
 * below saturation, a contender's CPU per request is its own, not how its event loop happened to
 * interleave with the load generator's on two cores. Each adapter the run names in turn, its
 * contenders started together; each round measures every contender once, the order reversed
 * every other round.
 */
export async function runPaced(context: BenchContext): Promise<PacedSample[]> {
  const { settings, redis } = context;
  const { rates, durationS } = settings.paced;
  const contenders = inMeasuringOrder(
    PACED_CONTENDERS.map(contenderById).filter((contender) =>
      settings.contenders.some((chosen) => chosen.id === contender.id),
    ),
  );
  const samples: PacedSample[] = [];
  for (const adapter of settings.adapters) {
    const rate = rates[adapter];
    await redis.admin.flushall();
    const apps = new Map<Contender, ContenderProcess>();
    try {
      await startContenders(context, contenders, adapter, apps);
      for (const mode of settings.modes) {
        for (const [contender, app] of apps) await warmUp(context, app, contender, mode);
        for (let round = 1; round <= settings.rounds; round++) {
          const order = round % 2 === 1 ? [...apps] : [...apps].reverse();
          for (const [contender, app] of order) {
            const sample = await pacedWindow(context, app, mode, rate, durationS);
            samples.push({ adapter, round, contender: contender.id, mode, rate, ...sample });
            console.log(
              `[paced ${rate}/s, ${adapter}, round ${round}] ${contender.id} ${mode}: app ${sample.appCpuUs.toFixed(1)} µs/req, ` +
                `p50 ${sample.load.p50.toFixed(2)} ms, p99 ${sample.load.p99.toFixed(2)} ms, ` +
                `loop p99 ${sample.loop?.p99.toFixed(2) ?? '–'} ms, ` +
                `Redis ${sample.redis.cpuUs.toFixed(1)} µs/req, others ${sample.otherCores.toFixed(2)} cores`,
            );
          }
        }
      }
    } finally {
      await Promise.all([...apps.values()].map((app) => app.stop()));
    }
  }
  return samples;
}

async function pacedWindow(
  context: BenchContext,
  app: ContenderProcess,
  mode: KeyMode,
  rate: number,
  durationS: number,
): Promise<Omit<PacedSample, 'adapter' | 'round' | 'contender' | 'mode' | 'rate'>> {
  const { settings, redis, load } = context;
  await app.loopDelay();
  const before = await redisSnapshot(redis.admin);
  const cpuBefore = app.cpuSeconds();
  const others = new OtherLoad([...helperPids(context), app.pid]);
  const result = await load.run(
    loadOf(mode, app.url, { connections: settings.connections, durationS, rate }),
  );
  const otherCores = others.cores();
  const appCpuS = app.cpuSeconds() - cpuBefore;
  const loop = await app.loopDelay();
  const after = await redisSnapshot(redis.admin);
  return {
    loop,
    load: result,
    redis: redisUsage(before, after, result.requests),
    appCpuUs: (appCpuS * 1e6) / Math.max(1, result.requests),
    otherCores,
  };
}
