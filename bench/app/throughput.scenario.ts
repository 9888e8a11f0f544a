import type { LoadRequest, LoadResult } from '../load/load.types.js';
import { ROUTES, USER_HEADER, USERS, type KeyMode } from './bench.constants.js';
import { helperPids, type BenchContext } from './bench.context.js';
import type { AdapterName } from './contender.env.js';
import { ContenderProcess } from './contender.process.js';
import { inMeasuringOrder, type Contender } from './contenders.js';
import { QUIET_CORES, waitForQuiet } from './machine.js';
import { OtherLoad, processCpuSeconds } from './process.cpu.js';
import { redisSnapshot, redisUsage, type RedisUsage } from './redis.stats.js';

/** One measured run: a contender, an adapter, a key mode, in one round. */
export interface Sample {
  round: number;
  contender: string;
  adapter: AdapterName;
  mode: KeyMode;
  load: LoadResult;
  redis: RedisUsage;
  /** The app process's CPU per response, µs. */
  appCpuUs: number;
  /** The load generator's CPU per response, µs: it shares the machine's cores with the app. */
  loadCpuUs: number;
  /** Cores the rest of the machine (not the app, Redis, the load generators or the harness) used. */
  otherCores: number;
}

/** The load of one key mode: one address, or USERS users named in turn by USER_HEADER. */
export function loadOf(
  mode: KeyMode,
  url: string,
  shape: Omit<LoadRequest, 'url' | 'path'>,
  users = { prefix: 'user-', count: USERS },
): LoadRequest {
  return {
    url,
    path: ROUTES[mode],
    ...shape,
    ...(mode === 'users' ? { users: { header: USER_HEADER, ...users } } : {}),
  };
}

/**
 * Per adapter, every contender's process runs side by side (each with keys of its own), warmed
 * up once per key mode; then rounds of short windows, one contender after the other, the order
 * reversed every other round: contenders compared are measured seconds apart, so the machine's
 * drift (large on a shared virtual machine) hits them alike.
 */
export async function runThroughput(
  context: BenchContext,
  record: (sample: Sample) => void,
): Promise<void> {
  const { settings, redis } = context;
  for (const adapter of settings.adapters) {
    await redis.admin.flushall();
    const apps = new Map<Contender, ContenderProcess>();
    try {
      await startContenders(context, inMeasuringOrder(settings.contenders), adapter, apps);
      for (const mode of settings.modes) {
        for (const [contender, app] of apps) await warmUp(context, app, contender, mode);
        for (let round = 1; round <= settings.rounds; round++) {
          const order = round % 2 === 1 ? [...apps] : [...apps].reverse();
          for (const [contender, app] of order) {
            const sample = await measureQuietly(context, app, mode);
            record({ round, contender: contender.id, adapter, mode, ...sample });
          }
        }
      }
    } finally {
      await Promise.all([...apps.values()].map((app) => app.stop()));
    }
  }
}

/**
 * Starts each contender's process in turn into `apps`, so that a failure leaves the caller the
 * ones already started to stop.
 */
export async function startContenders(
  context: BenchContext,
  contenders: readonly Contender[],
  adapter: AdapterName,
  apps: Map<Contender, ContenderProcess>,
): Promise<void> {
  const { settings, redis } = context;
  for (const contender of contenders) {
    apps.set(
      contender,
      await ContenderProcess.start({
        contender: contender.id,
        adapter,
        redisUrl: redis.url,
        ...(settings.cpuProfileDir !== undefined ? { cpuProfileDir: settings.cpuProfileDir } : {}),
      }),
    );
  }
}

/** Warms a contender up in a key mode; a blocked contender's identifiers are blocked first. */
export async function warmUp(
  context: BenchContext,
  app: ContenderProcess,
  contender: Contender,
  mode: KeyMode,
): Promise<void> {
  const { settings, load } = context;
  const { connections } = settings;
  if (contender.blocked) {
    // Every identifier asks twice: admitted once, then refused (and blocked) from then on.
    const amount = Math.max(2 * (mode === 'users' ? USERS : 1), connections);
    await load.run(loadOf(mode, app.url, { connections, amount }));
  }
  await load.run(loadOf(mode, app.url, { connections, durationS: settings.warmupS }));
}

/** Tries per window: one taken while other processes used QUIET_CORES or more is retaken. */
const ATTEMPTS = 2;
const QUIET_WAIT_S = 5;

async function measureQuietly(
  context: BenchContext,
  app: ContenderProcess,
  mode: KeyMode,
): Promise<Pick<Sample, 'load' | 'redis' | 'appCpuUs' | 'loadCpuUs' | 'otherCores'>> {
  for (let attempt = 1; ; attempt++) {
    const sample = await measureWindow(context, app, mode);
    if (sample.otherCores < QUIET_CORES || attempt === ATTEMPTS) return sample;
    console.log(`  (other processes used ${sample.otherCores.toFixed(2)} cores: measuring again)`);
    await waitForQuiet([...helperPids(context), app.pid], QUIET_WAIT_S);
  }
}

async function measureWindow(
  context: BenchContext,
  app: ContenderProcess,
  mode: KeyMode,
): Promise<Pick<Sample, 'load' | 'redis' | 'appCpuUs' | 'loadCpuUs' | 'otherCores'>> {
  const { settings, redis, load } = context;
  const before = await redisSnapshot(redis.admin);
  const cpuBefore = app.cpuSeconds();
  const loadCpuBefore = processCpuSeconds(load.pid);
  const others = new OtherLoad([...helperPids(context), app.pid]);
  const result = await load.run(
    loadOf(mode, app.url, { connections: settings.connections, durationS: settings.durationS }),
  );
  const otherCores = others.cores();
  const appCpuS = app.cpuSeconds() - cpuBefore;
  const loadCpuS = processCpuSeconds(load.pid) - loadCpuBefore;
  const after = await redisSnapshot(redis.admin);
  return {
    load: result,
    redis: redisUsage(before, after, result.requests),
    appCpuUs: (appCpuS * 1e6) / Math.max(1, result.requests),
    loadCpuUs: (loadCpuS * 1e6) / Math.max(1, result.requests),
    otherCores,
  };
}
