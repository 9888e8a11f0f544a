import { calendarSchema, TIER_NAME } from '@sluice/nest/internals';
import { z } from 'zod';
import type {
  ProfileQuery,
  RecommendationQuery,
  ReplayRequest,
} from '../common/admin-api.types.js';

const RANGE_RULE = "must be 'hour', 'day' or 'week'";
const TIER_RULE = "must be a tier's name (letters, digits, _ . -, up to 32) or '-' for no tier";

/** GET /policies/:name/profile?range=&tier= */
export const profileQuerySchema = z.strictObject({
  range: z.enum(['hour', 'day', 'week'], { error: RANGE_RULE }).optional(),
  tier: z
    .string({ error: TIER_RULE })
    .refine((value) => value === '-' || TIER_NAME.test(value), { error: TIER_RULE })
    .optional(),
}) satisfies z.ZodType<ProfileQuery>;

/** A number in percent from a query string: up to two decimals, from `min` to `max`. */
const percent = (min: number, max: number) => {
  const rule = `must be a number from ${min} to ${max}, with at most two decimals`;
  return z
    .string({ error: rule })
    .regex(/^[0-9]{1,4}(\.[0-9]{1,2})?$/, { error: rule })
    .transform(Number)
    .refine((value) => value >= min && value <= max, { error: rule });
};

/** GET /policies/:name/recommendation?range=&tier=&percentile=&headroom= */
export const recommendationQuerySchema = profileQuerySchema.extend({
  percentile: percent(50, 99.99).optional(),
  headroom: percent(0, 1000).optional(),
}) satisfies z.ZodType<RecommendationQuery>;

const wholeNumber = (min: number, max: number) => {
  const rule = `must be an integer from ${min} to ${max}`;
  return z
    .number({ error: rule })
    .int({ error: rule })
    .min(min, { error: rule })
    .max(max, { error: rule });
};

const ALGORITHM_RULE =
  "must be 'fixed-window', 'sliding-log', 'sliding-window', 'token-bucket', 'leaky-bucket' or 'gcra'";

/** POST /policies/:name/replay */
export const replayBodySchema = z.strictObject({
  rule: z
    .strictObject({
      algorithm: z
        .enum(
          ['fixed-window', 'sliding-log', 'sliding-window', 'token-bucket', 'leaky-bucket', 'gcra'],
          {
            error: ALGORITHM_RULE,
          },
        )
        .optional(),
      limit: wholeNumber(1, 1_000_000_000).optional(),
      periodMs: wholeNumber(1, 365 * 86_400_000).optional(),
      burst: wholeNumber(1, 1_000_000_000).nullable().optional(),
      segments: wholeNumber(2, 1000).nullable().optional(),
      maxDelayMs: wholeNumber(1, 86_400_000).nullable().optional(),
      calendar: calendarSchema.nullable().optional(),
      tiers: z
        .record(
          z.string().regex(TIER_NAME, { error: 'must be a tier name' }),
          z.strictObject({
            limit: wholeNumber(1, 1_000_000_000),
            burst: wholeNumber(1, 1_000_000_000).nullable().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  minutes: wholeNumber(1, 1440).optional(),
}) satisfies z.ZodType<ReplayRequest>;

export type { ProfileQuery, RecommendationQuery, ReplayRequest };
