import { z } from 'zod';
import {
  isPlainIdentifier,
  KEY_KIND,
  normalKeyKind,
  PLAIN_IDENTIFIER_RULE,
  TIER_NAME,
  TIER_NAME_RULE,
} from '@sluice/nest/internals';
import type { PlanAssignmentRequest, PlanQuery } from '../common/admin-api.types.js';
import { freeText } from '../common/text.schema.js';

const KEY_KIND_RULE = "must be 'ip', 'user', 'header:<name>' or a tracker's name";

/** The identifier in a plan route's path: what an override may name. */
export const planIdentifierSchema = z
  .string({ error: PLAIN_IDENTIFIER_RULE })
  .refine(isPlainIdentifier, { error: PLAIN_IDENTIFIER_RULE });

const keyKind = z
  .string({ error: KEY_KIND_RULE })
  .regex(KEY_KIND, { error: KEY_KIND_RULE })
  .transform(normalKeyKind);

/** GET and DELETE /plans/:identifier?keyKind= */
export const planQuerySchema = z.strictObject({
  keyKind: keyKind.optional(),
}) satisfies z.ZodType<PlanQuery>;

/** PUT /plans/:identifier: `{ tier, keyKind?, expiresAt?, note? }`. */
export const planAssignmentSchema = z.strictObject(
  {
    tier: z.string({ error: TIER_NAME_RULE }).regex(TIER_NAME, { error: TIER_NAME_RULE }),
    keyKind: keyKind.optional(),
    expiresAt: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 time with its zone, or null' })
      .nullish(),
    note: freeText(500).nullish(),
  },
  { error: 'must be a JSON object: { tier, keyKind?, expiresAt?, note? }' },
) satisfies z.ZodType<PlanAssignmentRequest, unknown>;
