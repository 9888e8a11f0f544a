import { TIER_NAME } from '@sluice/nest/internals';
import { z } from 'zod';
import type { ProfileQuery } from '../common/admin-api.types.js';

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

export type { ProfileQuery };
