import { z } from 'zod';
import { KEY_MODES, type KeyMode } from './bench.constants.js';
import { ADAPTERS, type AdapterName } from './contender.env.js';
import { CONTENDERS, TUNING_CONTENDERS, contenderById, type Contender } from './contenders.js';

export const SCENARIOS = [
  'throughput',
  'paced',
  'flood',
  'exactness',
  'eventual',
  'profile',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface BenchSettings {
  rounds: number;
  warmupS: number;
  durationS: number;
  connections: number;
  contenders: Contender[];
  adapters: AdapterName[];
  modes: KeyMode[];
  scenarios: Scenario[];
  /** The paced scenario: every contender at this many requests a second, windows of durationS. */
  paced: { rates: Record<AdapterName, number>; durationS: number };
  /** attackerRate: a second flood at this fixed rate (null: only the unbounded one). */
  flood: { attackerRate: number | null; durationS: number };
  /** Write V8 CPU profiles of the contender processes here. */
  cpuProfileDir?: string;
  /** Write the figures into docs/benchmarks.md (default: only for a full, default run). */
  writeReport: boolean;
  quick: boolean;
}

/**
 * The paced scenario's rates: about half of what bare Fastify and bare Express serve on this
 * two-core host at saturation (docs/benchmarks.md, "At a fixed load"), so no contender saturates.
 */
const DEFAULT_PACED_RATES: Record<AdapterName, number> = { fastify: 5000, express: 1500 };
/** The second flood's attackers, requests per second (BENCH_FLOOD_ATTACKER_RATE=0: none). */
const DEFAULT_ATTACKER_RATE = 2000;

const count = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const list = <T extends string>(all: readonly T[]) =>
  z
    .string()
    .transform((text) => text.split(',').map((each) => each.trim()))
    .pipe(z.array(z.enum(all as [T, ...T[]])).min(1));

const envSchema = z.object({
  BENCH_QUICK: z.enum(['0', '1']).optional(),
  BENCH_ROUNDS: count(1, 50).optional(),
  BENCH_WARMUP_S: count(1, 60).optional(),
  BENCH_DURATION_S: count(1, 120).optional(),
  BENCH_CONNECTIONS: count(1, 1000).optional(),
  BENCH_CONTENDERS: list(
    [...CONTENDERS, ...TUNING_CONTENDERS].map((contender) => contender.id),
  ).optional(),
  BENCH_ADAPTERS: list(ADAPTERS).optional(),
  BENCH_MODES: list(KEY_MODES).optional(),
  BENCH_SCENARIOS: list(SCENARIOS).optional(),
  BENCH_FLOOD_ATTACKER_RATE: count(0, 1_000_000).optional(),
  BENCH_PACED_RATE: count(100, 100_000).optional(),
  BENCH_PACED_RATE_EXPRESS: count(100, 100_000).optional(),
  BENCH_CPU_PROF: z.string().min(1).optional(),
  BENCH_WRITE: z.enum(['0', '1']).optional(),
});

/**
 * `npm run bench` reads its knobs from the environment (see docs/benchmarks.md); BENCH_QUICK=1
 * is a short run for trying things out that leaves the docs alone.
 */
export function readSettings(env: NodeJS.ProcessEnv): BenchSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    );
  }
  const e = parsed.data;
  const quick = e.BENCH_QUICK === '1';
  const partial =
    quick ||
    [e.BENCH_ROUNDS, e.BENCH_CONTENDERS, e.BENCH_ADAPTERS, e.BENCH_MODES, e.BENCH_SCENARIOS].some(
      (knob) => knob !== undefined,
    );
  return {
    rounds: e.BENCH_ROUNDS ?? (quick ? 2 : 8),
    warmupS: e.BENCH_WARMUP_S ?? (quick ? 1 : 2),
    durationS: e.BENCH_DURATION_S ?? 1,
    connections: e.BENCH_CONNECTIONS ?? 50,
    contenders: (e.BENCH_CONTENDERS ?? CONTENDERS.map((c) => c.id)).map(contenderById),
    adapters: e.BENCH_ADAPTERS ?? [...ADAPTERS],
    modes: e.BENCH_MODES ?? [...KEY_MODES],
    scenarios: e.BENCH_SCENARIOS ?? [...SCENARIOS],
    paced: {
      rates: {
        fastify: e.BENCH_PACED_RATE ?? DEFAULT_PACED_RATES.fastify,
        express: e.BENCH_PACED_RATE_EXPRESS ?? DEFAULT_PACED_RATES.express,
      },
      durationS: quick ? 2 : 3,
    },
    flood: {
      attackerRate:
        e.BENCH_FLOOD_ATTACKER_RATE === 0
          ? null
          : (e.BENCH_FLOOD_ATTACKER_RATE ?? DEFAULT_ATTACKER_RATE),
      durationS: quick ? 5 : 15,
    },
    ...(e.BENCH_CPU_PROF !== undefined ? { cpuProfileDir: e.BENCH_CPU_PROF } : {}),
    writeReport: e.BENCH_WRITE !== undefined ? e.BENCH_WRITE === '1' : !partial,
    quick,
  };
}
