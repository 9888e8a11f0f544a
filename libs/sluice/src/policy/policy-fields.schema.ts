import { z } from 'zod';
import { isUserAgentPattern } from './user-agent.pattern.js';
import { ALGORITHMS } from '../algorithms/algorithm.types.js';
import { CALENDAR_UNITS, isTimeZone, LONGEST_PERIOD_MS } from '../clock/calendar.js';
import { isPlainIdentifier, PLAIN_IDENTIFIER_RULE } from '../keys/identifier.js';
import { KEY_KIND, normalKeyKind } from '../keys/key.builder.js';
import type { PolicyInput } from './policy.types.js';

// The fields of a policy one by one, as zod checks them; the checks that read several fields are
// in policy.rules.ts, and parsePolicy (policy.schema.ts) runs both.

/** What a policy's name must match: 1–64 of letters, digits, `_ . -`, a letter or digit first. */
export const POLICY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const MAX_PERIOD_MS = 365 * 24 * 3_600_000;
export const MAX_LIMIT = 1_000_000_000;
export { MAX_SLIDING_LOG_LIMIT } from '../algorithms/algorithm.traits.js';
const MAX_SEGMENTS = 1000;
export const DAY_MS = 24 * 3_600_000;
/** docs/algorithms.md, eventual consistency: why 50 ms, and what a longer interval costs. */
export const DEFAULT_SYNC_MS = 50;
const MIN_SYNC_MS = 5;
const MAX_SYNC_MS = 60_000;

const integer = (min: number, max: number) =>
  z
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int({ error: `must be an integer from ${min} to ${max}` })
    .min(min, { error: `must be an integer from ${min} to ${max}` })
    .max(max, { error: `must be an integer from ${min} to ${max}` });

const penaltySchema = z.strictObject({
  afterViolations: integer(1, 1_000_000),
  blockMs: integer(1, MAX_PERIOD_MS),
  escalation: z
    .number({ error: 'must be a number from 1 to 1000' })
    .min(1, { error: 'must be a number from 1 to 1000' })
    .max(1000, { error: 'must be a number from 1 to 1000' })
    .optional(),
  maxBlockMs: integer(1, MAX_PERIOD_MS).optional(),
  forgetAfterMs: integer(0, MAX_PERIOD_MS).optional(),
});

const expiresAt = z.union([z.iso.datetime({ offset: true }), integer(0, 8.64e15), z.null()], {
  error: 'must be an ISO 8601 time with its offset, epoch milliseconds, or null',
});

/** What a tier's name must match: 1–32 of letters, digits, `_ . -`, a letter or digit first. */
export const TIER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
/** Tiers one policy may name at most: they label metrics, so their number stays small. */
export const MAX_TIERS = 32;
/** What a bad tier name is told: the rule {@link TIER_NAME} checks, in words. */
export const TIER_NAME_RULE =
  "must be 1-32 characters of letters, digits, '_', '.' or '-', starting with a letter or digit";

/** A tier's rate: its limit, and its burst or longest delay where the algorithm has them. */
const tierSchema = z.strictObject({
  limit: integer(1, MAX_LIMIT),
  burst: integer(1, MAX_LIMIT).nullable().optional(),
  maxDelayMs: integer(0, MAX_PERIOD_MS).nullable().optional(),
});

const overrideSchema = z.strictObject({
  identifier: z
    .string({ error: PLAIN_IDENTIFIER_RULE })
    .refine(isPlainIdentifier, { error: PLAIN_IDENTIFIER_RULE }),
  // null is how a policy read back states an unlimited override's limit.
  limit: integer(0, MAX_LIMIT).nullable().optional(),
  unlimited: z.boolean({ error: 'must be true or false' }).optional(),
  expiresAt: expiresAt.optional(),
  keyKind: z
    .string({ error: 'must be a string' })
    .regex(KEY_KIND, { error: "must be 'ip', 'user', 'header:<name>' or a tracker's name" })
    .transform(normalKeyKind)
    .optional(),
  prefix: z.boolean({ error: 'must be true or false' }).optional(),
  // null is how a policy read back states an override that assigns no tier.
  tier: z
    .string({ error: 'must be a string' })
    .regex(TIER_NAME, { error: TIER_NAME_RULE })
    .nullable()
    .optional(),
  anchorDay: integer(1, 31).nullable().optional(),
});

/** A calendar as written: a unit, a time zone (default UTC), a month's renewal day. */
export const calendarSchema = z.strictObject({
  unit: z.enum(CALENDAR_UNITS, { error: `must be one of ${CALENDAR_UNITS.join(', ')}` }),
  timeZone: z
    .string({ error: 'must be an IANA time zone such as Europe/Paris' })
    .refine(isTimeZone, {
      error: 'must be an IANA time zone this runtime knows, such as Europe/Paris',
    })
    .optional(),
  anchorDay: integer(1, 31).nullable().optional(),
});

const USAGE_HEADER_RULE = "must be an HTTP header name such as 'x-usage-tokens'";
const usageSchema = z.strictObject({
  header: z
    .string({ error: USAGE_HEADER_RULE })
    .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, { error: USAGE_HEADER_RULE })
    .nullable()
    .optional(),
  maxCost: integer(1, MAX_LIMIT),
  onFailure: z.enum(['refund', 'keep'], { error: "must be 'refund' or 'keep'" }).optional(),
});

const basePolicySchema = z.strictObject({
  name: z.string({ error: 'must be a string' }).regex(POLICY_NAME, {
    error:
      "must be 1-64 characters of letters, digits, '_', '.' or '-', starting with a letter or digit",
  }),
  algorithm: z.enum(ALGORITHMS, { error: `must be one of ${ALGORITHMS.join(', ')}` }),
  limit: integer(1, MAX_LIMIT),
  // Up to a year's longest, which a calendar policy reads back with; without a calendar,
  // policy.rules.ts holds it to MAX_PERIOD_MS.
  periodMs: integer(1, LONGEST_PERIOD_MS.year).optional(),
  calendar: calendarSchema.nullable().optional(),
  burst: integer(1, MAX_LIMIT).nullable().optional(),
  segments: integer(2, MAX_SEGMENTS).nullable().optional(),
  maxDelayMs: integer(0, MAX_PERIOD_MS).nullable().optional(),
  cost: integer(1, MAX_LIMIT).optional(),
  usage: usageSchema.nullable().optional(),
  key: z
    .string({ error: 'must be a string' })
    .regex(KEY_KIND, { error: "must be 'ip', 'user', 'header:<name>' or a tracker's name" })
    .transform(normalKeyKind)
    .optional(),
  match: z
    .strictObject({
      userAgent: z
        .string({ error: 'must be a regular expression of at most 256 characters' })
        .min(1, { error: 'must not be empty' })
        .max(256, { error: 'must be a regular expression of at most 256 characters' })
        .refine(isUserAgentPattern, {
          error:
            'must be a regular expression RE2 accepts (no lookaround or backreferences), matched in linear time',
        })
        .optional(),
    })
    .nullable()
    .optional(),
  count: z.enum(['all', 'failures'], { error: "must be 'all' or 'failures'" }).optional(),
  penalty: penaltySchema.nullable().optional(),
  mode: z
    .enum(['enforce', 'shadow', 'off'], { error: "must be 'enforce', 'shadow' or 'off'" })
    .optional(),
  onStoreError: z
    .enum(['allow', 'deny', 'local'], { error: "must be 'allow', 'deny' or 'local'" })
    .optional(),
  consistency: z.enum(['exact', 'eventual'], { error: "must be 'exact' or 'eventual'" }).optional(),
  syncMs: integer(MIN_SYNC_MS, MAX_SYNC_MS).optional(),
  overrides: z.array(overrideSchema, { error: 'must be an array' }).max(10_000).optional(),
  tiers: z
    .record(z.string().regex(TIER_NAME, { error: TIER_NAME_RULE }), tierSchema, {
      error: 'must be an object of tiers by name',
    })
    .nullable()
    .optional(),
  description: z.string({ error: 'must be a string' }).max(1000).nullable().optional(),
  version: integer(0, Number.MAX_SAFE_INTEGER).optional(),
  source: z.enum(['code', 'admin'], { error: "must be 'code' or 'admin'" }).optional(),
  updatedAt: z.string({ error: 'must be a string' }).max(64).nullable().optional(),
  updatedBy: z.string({ error: 'must be a string' }).max(256).nullable().optional(),
});

/** A proposed revision: its rules (a policy without name or bookkeeping) and who proposed it. */
const candidateSchema = z.strictObject({
  rules: basePolicySchema.omit({
    name: true,
    version: true,
    source: true,
    updatedAt: true,
    updatedBy: true,
  }),
  expiresAt: integer(0, 8.64e15),
  proposedBy: z.string({ error: 'must be a string' }).max(256).nullable(),
  proposedAt: z.string({ error: 'must be a string' }).max(64),
  baseVersion: integer(0, Number.MAX_SAFE_INTEGER),
  samplePercent: integer(1, 100).optional(),
});

/** A policy as code, the database or a request states it; `parsePolicy` checks it and fills defaults. */
export const policyInputSchema = basePolicySchema.extend({
  candidate: candidateSchema.nullable().optional(),
}) satisfies z.ZodType<PolicyInput>;
