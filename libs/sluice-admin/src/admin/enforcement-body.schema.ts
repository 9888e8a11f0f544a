import { z } from 'zod';

const COMMENT_RULE = 'must be a string of at most 500 characters';

/** PUT /enforcement: `{ enabled, comment? }`. */
export const enforcementBodySchema = z.strictObject(
  {
    enabled: z.boolean({ error: 'must be true (enforce policies) or false (suspend them)' }),
    comment: z.string({ error: COMMENT_RULE }).max(500, { error: COMMENT_RULE }).nullish(),
  },
  { error: 'must be a JSON object: { enabled, comment? }' },
);
