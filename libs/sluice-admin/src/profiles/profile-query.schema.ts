import { TIER_NAME } from '@sluice/nest/internals';
import { z } from 'zod';
import type { ProfileQuery, RecommendationQuery } from '../common/admin-api.types.js';

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

export type { ProfileQuery, RecommendationQuery };
