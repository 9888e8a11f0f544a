import { z } from 'zod';
import { contenderById } from './contenders.js';

/** True when bench/app/contenders.ts lists `id`. */
export function isContender(id: string): boolean {
  try {
    contenderById(id);
    return true;
  } catch {
    return false;
  }
}

/** What each guard.main process is told: its rate, and its windows of decisions. */
export const guardLoadSettings = {
  GUARD_RATE: z.coerce.number().int().min(100).max(50_000).default(5_000),
  GUARD_COUNT: z.coerce.number().int().min(1_000).max(1_000_000).default(25_000),
  GUARD_WINDOWS: z.coerce.number().int().min(1).max(20).default(3),
};

/** The settings `schema` reads from `env`, or an error naming each variable that is wrong. */
export function readSettings<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const why = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(why.join('; '));
  }
  return parsed.data;
}

/** The environment of one guard.main process: its contender, its Redis, its mode and its load. */
export function guardEnv(
  contender: string,
  redisUrl: string,
  mode: string,
  load: { GUARD_RATE: number; GUARD_COUNT: number; GUARD_WINDOWS: number },
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    BENCH_CONTENDER: contender,
    BENCH_ADAPTER: 'fastify',
    BENCH_REDIS_URL: redisUrl,
    GUARD_MODE: mode,
    GUARD_RATE: String(load.GUARD_RATE),
    GUARD_COUNT: String(load.GUARD_COUNT),
    GUARD_WINDOWS: String(load.GUARD_WINDOWS),
  };
}

/**
 * The report a guard.main process printed: its one JSON line, wherever Nest's own log lines (a
 * warning while the app closes) fell around it.
 */
export function reportLine(stdout: string): string {
  const line = stdout
    .split('\n')
    .reverse()
    .find((each) => each.startsWith('{"contender":'));
  if (line === undefined) throw new Error(`guard.main printed no report: ${stdout.slice(-500)}`);
  return line;
}
