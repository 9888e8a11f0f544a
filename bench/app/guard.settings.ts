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
