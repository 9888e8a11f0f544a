import { z } from 'zod';
import { ALGORITHMS } from '../../libs/sluice/src/internals.js';
import { contenderById, type Contender } from './contenders.js';
import type { SluiceRule } from './limiters/sluice.limiter.js';

export const ADAPTERS = ['fastify', 'express'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** A Sluice rule in BENCH_SLUICE_RULE: checked again, field by field, by SluiceModule. */
const ruleSchema = z.object({
  algorithm: z.enum(ALGORITHMS),
  limit: z.number().int().positive(),
  periodMs: z.number().int().positive(),
  maxDelayMs: z.number().int().nonnegative().nullable().optional(),
  penalty: z
    .object({ afterViolations: z.number().int().positive(), blockMs: z.number().int().positive() })
    .nullable()
    .optional(),
  consistency: z.enum(['exact', 'eventual']).optional(),
  syncMs: z.number().int().positive().optional(),
});

const envSchema = z.object({
  BENCH_CONTENDER: z.string().min(1),
  BENCH_ADAPTER: z.enum(ADAPTERS),
  BENCH_REDIS_URL: z.url({ protocol: /^redis$/ }),
  BENCH_SLUICE_RULE: z.string().optional(),
});

export interface ContenderEnv {
  contender: Contender;
  adapter: AdapterName;
  redisUrl: string;
  rule?: SluiceRule;
}

/** The contender process's environment, or an error naming the variable at fault. */
export function readContenderEnv(env: NodeJS.ProcessEnv): ContenderEnv {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    );
  }
  const { BENCH_CONTENDER, BENCH_ADAPTER, BENCH_REDIS_URL, BENCH_SLUICE_RULE } = parsed.data;
  let rule: SluiceRule | undefined;
  if (BENCH_SLUICE_RULE !== undefined) {
    const checked = ruleSchema.safeParse(JSON.parse(BENCH_SLUICE_RULE));
    if (!checked.success) {
      const why = checked.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
      throw new Error(`BENCH_SLUICE_RULE: ${why.join('; ')}`);
    }
    rule = checked.data;
  }
  return {
    contender: contenderById(BENCH_CONTENDER),
    adapter: BENCH_ADAPTER,
    redisUrl: BENCH_REDIS_URL,
    ...(rule !== undefined ? { rule } : {}),
  };
}
