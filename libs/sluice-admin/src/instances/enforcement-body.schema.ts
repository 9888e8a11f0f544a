import { z } from 'zod';
import { freeText } from '../common/text.schema.js';

/** PUT /enforcement: `{ enabled, comment? }`. */
export const enforcementBodySchema = z.strictObject(
  {
    enabled: z.boolean({ error: 'must be true (enforce policies) or false (suspend them)' }),
    comment: freeText(500).nullish(),
  },
  { error: 'must be a JSON object: { enabled, comment? }' },
);

export type EnforcementBody = z.output<typeof enforcementBodySchema>;
