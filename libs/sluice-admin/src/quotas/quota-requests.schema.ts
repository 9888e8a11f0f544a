import { z } from 'zod';
import { MAX_GRANT, TIER_NAME, TIER_NAME_RULE } from '@sluice/nest/internals';
import type { QuotaGrantRequest, QuotaQuery } from '../common/admin-api.types.js';
import { freeText } from '../common/text.schema.js';

const tier = z.string({ error: TIER_NAME_RULE }).regex(TIER_NAME, { error: TIER_NAME_RULE });

/** GET /quotas/:policy/:identifier?tier= */
export const quotaQuerySchema = z.strictObject({
  tier: tier.optional(),
}) satisfies z.ZodType<QuotaQuery>;

const AMOUNT_RULE = `must be a non-zero integer from -${MAX_GRANT} to ${MAX_GRANT} (negative debits)`;

const GRANT_KEY = /^[A-Za-z0-9._:-]{8,100}$/;
const KEY_RULE = "must be 8 to 100 letters, digits, '.', '_', ':' or '-' (a UUID fits)";

/** POST /quotas/:policy/:identifier/grant: `{ amount, note?, tier?, key? }`. */
export const quotaGrantSchema = z.strictObject(
  {
    amount: z
      .number({ error: AMOUNT_RULE })
      .int({ error: AMOUNT_RULE })
      .min(-MAX_GRANT, { error: AMOUNT_RULE })
      .max(MAX_GRANT, { error: AMOUNT_RULE })
      .refine((amount) => amount !== 0, { error: AMOUNT_RULE }),
    note: freeText(500).nullish(),
    tier: tier.optional(),
    key: z.string({ error: KEY_RULE }).regex(GRANT_KEY, { error: KEY_RULE }).optional(),
  },
  { error: 'must be a JSON object: { amount, note?, tier?, key? }' },
) satisfies z.ZodType<QuotaGrantRequest>;
