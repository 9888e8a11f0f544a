import { z } from 'zod';
import type { AuditQuery } from '../common/admin-api.types.js';
import { searchText } from '../common/text.schema.js';

const TIME_RULE = 'must be an ISO 8601 time with its offset, like 2026-11-22T09:00:00Z';
const LIMIT_RULE = 'must be an integer from 1 to 500';

/** GET /audit?actor=&action=&from=&to=&cursor=&limit= (from inclusive, to exclusive). */
export const auditQuerySchema = z.strictObject({
  actor: searchText(256).optional(),
  action: searchText(64).optional(),
  from: z.iso.datetime({ offset: true, error: TIME_RULE }).optional(),
  to: z.iso.datetime({ offset: true, error: TIME_RULE }).optional(),
  cursor: z
    .string({ error: 'must be the nextCursor of a previous page' })
    .regex(/^[1-9][0-9]{0,15}$/, { error: 'must be the nextCursor of a previous page' })
    .optional(),
  limit: z
    .string({ error: LIMIT_RULE })
    .regex(/^[0-9]{1,3}$/, { error: LIMIT_RULE })
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= 500, { error: LIMIT_RULE })
    .optional(),
}) satisfies z.ZodType<AuditQuery>;

export type { AuditQuery };
