import { z } from 'zod';
import type { EnforcementRequest } from '../common/admin-api.types.js';
import { freeText } from '../common/text.schema.js';

/** PUT /enforcement: `{ enabled, comment? }`. */
export const enforcementBodySchema = z.strictObject(
  {
    enabled: z.boolean({ error: 'must be true (enforce policies) or false (suspend them)' }),
    comment: freeText(500).nullish(),
  },
  { error: 'must be a JSON object: { enabled, comment? }' },
) satisfies z.ZodType<EnforcementRequest>;

export type EnforcementBody = EnforcementRequest;
