import { z } from 'zod';

export const MAX_SECONDS = 900;
export const MAX_MINUTES = 10_080;

const points = (max: number) => {
  const rule = `must be a whole number from 1 to ${max}`;
  return z
    .string({ error: `${rule}, given once` })
    .regex(/^[0-9]{1,6}$/, { error: rule })
    .transform(Number)
    .refine((value) => value >= 1 && value <= max, { error: rule });
};

/** GET /stats?seconds=N (per-second data, kept 15 minutes) or ?minutes=N (roll-ups, 7 days). */
export const statsQuerySchema = z
  .strictObject({
    seconds: points(MAX_SECONDS).optional(),
    minutes: points(MAX_MINUTES).optional(),
    policy: z.string({ error: 'must be given once' }).min(1).max(64).optional(),
  })
  .refine((query) => query.seconds === undefined || query.minutes === undefined, {
    error: 'give either seconds or minutes, not both',
    path: ['minutes'],
  });

export type StatsQuery = z.output<typeof statsQuerySchema>;
