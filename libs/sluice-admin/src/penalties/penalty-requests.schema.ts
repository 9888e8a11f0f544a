import {
  IDENTIFIER_KEY,
  IDENTIFIER_KEY_RULE,
  isPlainIdentifier,
  KEY_KIND,
  PLAIN_IDENTIFIER_RULE,
  POLICY_NAME,
} from '@sluice/nest/internals';
import { z } from 'zod';
import type {
  BlockedQuery,
  BlockRequest,
  CounterResetQuery,
  IdentifiersQuery,
  PenaltyQuery,
  UnblockQuery,
} from '../common/admin-api.types.js';
import { freeText, searchText } from '../common/text.schema.js';

/** A year: longer blocks are a ban, which belongs in a denylist override. */
export const MAX_BLOCK_MS = 365 * 86_400_000;
const TIME_RULE = 'must be an ISO 8601 time with its offset, like 2026-11-22T09:00:00Z';

export const policyName = z
  .string({ error: 'must be a policy name' })
  .regex(POLICY_NAME, { error: 'must be a policy name: 1 to 64 letters, digits, _ . or -' });

/** The same rule as an override's identifier in a policy (the core's isPlainIdentifier). */
export const identifier = z
  .string({ error: PLAIN_IDENTIFIER_RULE })
  .refine(isPlainIdentifier, { error: PLAIN_IDENTIFIER_RULE });

/** A cut identifier's stored key, as the Blocked list, the history and GET /identifiers give it. */
export const identifierKey = z
  .string({ error: IDENTIFIER_KEY_RULE })
  .regex(IDENTIFIER_KEY, { error: IDENTIFIER_KEY_RULE });

/** The core's rule for a policy's `key`: what a block or a lift may name. */
const KEY_KIND_RULE = "must be 'ip', 'user', 'header:<name>' or a tracker's name";
const keyKind = z.string({ error: KEY_KIND_RULE }).regex(KEY_KIND, { error: KEY_KIND_RULE });

const reason = freeText(500).nullable();

const count = (max: number) => {
  const rule = `must be an integer from 1 to ${max}`;
  return z
    .string({ error: rule })
    .regex(/^[0-9]{1,6}$/, { error: rule })
    .transform(Number)
    .refine((value) => value >= 1 && value <= max, { error: rule });
};

/** POST /blocked */
export const blockBodySchema = z.strictObject({
  policy: policyName,
  identifier,
  durationMs: z
    .number({ error: `must be a whole number of milliseconds from 1 to ${MAX_BLOCK_MS} (a year)` })
    .int({ error: `must be a whole number of milliseconds from 1 to ${MAX_BLOCK_MS} (a year)` })
    .min(1, { error: `must be a whole number of milliseconds from 1 to ${MAX_BLOCK_MS} (a year)` })
    .max(MAX_BLOCK_MS, {
      error: `must be a whole number of milliseconds from 1 to ${MAX_BLOCK_MS} (a year)`,
    }),
  reason: reason.optional(),
  keyKind: keyKind.optional(),
}) satisfies z.ZodType<BlockRequest>;

const BOOLEAN_RULE = "must be 'true' or 'false'";
/** A yes/no in a query string. */
export const queryFlag = z
  .enum(['true', 'false'], { error: BOOLEAN_RULE })
  .transform((value) => value === 'true');

/**
 * DELETE /blocked/:policy/:identifier?keyKind=&reason=&forgetOffences=&key= (path parameters
 * included). `key` names an identifier over 256 characters, which the path then gives cut.
 */
export const unblockSchema = z.strictObject({
  policy: policyName,
  identifier,
  keyKind: keyKind.optional(),
  reason: reason.optional(),
  forgetOffences: queryFlag.optional(),
  key: identifierKey.optional(),
});

/** DELETE /blocked/…'s query, as the API description states it. */
export const unblockQuerySchema = unblockSchema.pick({
  keyKind: true,
  reason: true,
  forgetOffences: true,
  key: true,
}) satisfies z.ZodType<UnblockQuery>;

/** DELETE /counters/:policy/:identifier?forgetOffences=&key= (`key` as for DELETE /blocked). */
export const resetQuerySchema = z.strictObject({
  forgetOffences: queryFlag.optional(),
  key: identifierKey.optional(),
}) satisfies z.ZodType<CounterResetQuery>;

/** GET /blocked?policy=&q=&limit= */
export const blockedQuerySchema = z.strictObject({
  policy: policyName.optional(),
  q: searchText(256).optional(),
  limit: count(10_000).optional(),
}) satisfies z.ZodType<BlockedQuery>;

/** GET /penalties?identifier=&q=&policy=&from=&to=&cursor=&limit= (from inclusive, to exclusive). */
export const penaltyQuerySchema = z.strictObject({
  identifier: identifier.optional(),
  q: searchText(256).optional(),
  policy: policyName.optional(),
  from: z.iso.datetime({ offset: true, error: TIME_RULE }).optional(),
  to: z.iso.datetime({ offset: true, error: TIME_RULE }).optional(),
  cursor: z
    .string({ error: 'must be the nextCursor of a previous page' })
    .regex(/^[1-9][0-9]{0,17}$/, { error: 'must be the nextCursor of a previous page' })
    .optional(),
  limit: count(500).optional(),
}) satisfies z.ZodType<PenaltyQuery>;

export type BlockBody = BlockRequest;
export type { PenaltyQuery };

/** GET /identifiers?policy=&q=&limit= */
export const identifiersQuerySchema = z.strictObject({
  policy: policyName.optional(),
  q: searchText(256).optional(),
  limit: count(200).optional(),
}) satisfies z.ZodType<IdentifiersQuery>;

export type { BlockedQuery, IdentifiersQuery, UnblockQuery };
