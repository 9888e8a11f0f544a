import { z } from 'zod';
import type { StatsQuery } from '../common/admin-api.types.js';

/** The most points one request reads per policy: a window is charted at a resolution that fits. */
export const MAX_SECONDS = 300;
export const MAX_MINUTES = 180;
export const MAX_HOURS = 168;

const points = (max: number) => {
  const rule = `must be a whole number from 1 to ${max}`;
  return z
    .string({ error: `${rule}, given once` })
    .regex(/^[0-9]{1,6}$/, { error: rule })
    .transform(Number)
    .refine((value) => value >= 1 && value <= max, { error: rule });
};

/**
 * GET /stats?seconds=N (per-second data, kept 15 minutes), ?minutes=N (roll-ups, 6 hours) or
 * ?hours=N (roll-ups, 7 days).
 */
export const statsQuerySchema = z
  .strictObject({
    seconds: points(MAX_SECONDS).optional(),
    minutes: points(MAX_MINUTES).optional(),
    hours: points(MAX_HOURS).optional(),
    policy: z.string({ error: 'must be given once' }).min(1).max(64).optional(),
  })
  .refine(
    (query) =>
      [query.seconds, query.minutes, query.hours].filter((given) => given !== undefined).length <=
      1,
    { error: 'give one of seconds, minutes or hours', path: ['minutes'] },
  ) satisfies z.ZodType<StatsQuery>;

export type { StatsQuery };
