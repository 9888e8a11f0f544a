import { z } from 'zod';
import { isUserAgentPattern } from './user-agent.pattern.js';
import { ALGORITHMS, hasBurst, type AlgorithmName } from '../algorithms/algorithm.types.js';
import { idiv } from '../algorithms/integer-math.js';
import { CALENDAR_UNITS, isTimeZone, LONGEST_PERIOD_MS } from '../clock/calendar.js';
import { isPlainIdentifier, PLAIN_IDENTIFIER_RULE } from '../keys/identifier.js';
import { KEY_KIND } from '../keys/key.builder.js';
import { PolicyValidationError, type PolicyIssue } from './policy-validation.error.js';
import type { Policy, PolicyInput, TierRate } from './policy.types.js';

/** What a policy's name must match: 1–64 of letters, digits, `_ . -`, a letter or digit first. */
export const POLICY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const MAX_PERIOD_MS = 365 * 24 * 3_600_000;
export const MAX_LIMIT = 1_000_000_000;
export const MAX_SLIDING_LOG_LIMIT = 100_000;
const MAX_SEGMENTS = 1000;
const DAY_MS = 24 * 3_600_000;
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

const calendarSchema = z.strictObject({
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
  periodMs: integer(1, MAX_PERIOD_MS).optional(),
  calendar: calendarSchema.nullable().optional(),
  burst: integer(1, MAX_LIMIT).nullable().optional(),
  segments: integer(2, MAX_SEGMENTS).nullable().optional(),
  maxDelayMs: integer(0, MAX_PERIOD_MS).nullable().optional(),
  cost: integer(1, MAX_LIMIT).optional(),
  usage: usageSchema.nullable().optional(),
  key: z
    .string({ error: 'must be a string' })
    .regex(KEY_KIND, { error: "must be 'ip', 'user', 'header:<name>' or a tracker's name" })
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

/** The capacity a single request's cost must fit in: burst for buckets, limit for windows. */
export function capacity(algorithm: AlgorithmName, limit: number, burst: number | null): number {
  return hasBurst(algorithm) ? (burst ?? limit) : limit;
}

/** Checks that need several fields, for the policy's own limit or an override's. */
function rateIssues(
  policy: Pick<Policy, 'algorithm' | 'periodMs' | 'burst' | 'cost'>,
  limit: number,
  field: string,
): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  const period = policy.periodMs * 1000;
  if (limit > period) {
    issues.push({
      field,
      message: `must not exceed periodMs × 1000 (one per microsecond), got ${limit}`,
    });
    return issues;
  }
  if (policy.algorithm === 'sliding-log' && limit > MAX_SLIDING_LOG_LIMIT) {
    issues.push({
      field,
      message: `sliding-log keeps one entry per request: at most ${MAX_SLIDING_LOG_LIMIT}; use sliding-window for more`,
    });
  }
  const room = capacity(policy.algorithm, limit, policy.burst);
  if (policy.cost > room) {
    issues.push({
      field: 'cost',
      message: `must not exceed the capacity (${room}), got ${policy.cost}`,
    });
  }
  if (hasBurst(policy.algorithm) && room * idiv(period, limit) > MAX_PERIOD_MS * 1000) {
    issues.push({
      field: policy.burst === null ? field : 'burst',
      message: 'a full bucket must refill within 365 days (burst × periodMs / limit)',
    });
  }
  return issues;
}

/**
 * The policy's tiers with their defaults (burst and maxDelayMs null where the algorithm has none),
 * each checked as the policy's own rate is; issues are named `tiers.<name>.<field>`.
 */
function tiersOf(
  input: PolicyInput['tiers'],
  policy: Policy,
  issues: PolicyIssue[],
): Policy['tiers'] {
  if (input === undefined || input === null) return null;
  const names = Object.keys(input);
  if (names.length > MAX_TIERS) {
    issues.push({
      field: 'tiers',
      message: `must name at most ${MAX_TIERS} tiers, got ${names.length}`,
    });
  }
  if (names.length === 0) return null;
  const tiers: NonNullable<Policy['tiers']> = {};
  for (const name of names) {
    const tier = input[name] as TierRate;
    const field = `tiers.${name}`;
    if (!hasBurst(policy.algorithm) && tier.burst != null) {
      issues.push({
        field: `${field}.burst`,
        message: `does not apply to ${policy.algorithm}; leave it null`,
      });
    }
    if (policy.algorithm !== 'leaky-bucket' && tier.maxDelayMs != null && tier.maxDelayMs !== 0) {
      issues.push({
        field: `${field}.maxDelayMs`,
        message: 'applies only to leaky-bucket; leave it null or 0',
      });
    }
    const burst = hasBurst(policy.algorithm) ? (tier.burst ?? null) : null;
    issues.push(...rateIssues({ ...policy, burst }, tier.limit, `${field}.limit`));
    tiers[name] = {
      limit: tier.limit,
      burst,
      maxDelayMs: policy.algorithm === 'leaky-bucket' ? (tier.maxDelayMs ?? null) : null,
    };
  }
  return tiers;
}

/**
 * A calendar policy as a validated one reads back (a snapshot, GET /policies): its `periodMs` is
 * its unit's longest, which it may keep.
 */
function readBack(input: Record<string, unknown>): boolean {
  const unit = (input.calendar as { unit?: unknown }).unit;
  return (
    typeof unit === 'string' &&
    Object.hasOwn(LONGEST_PERIOD_MS, unit) &&
    input.periodMs === LONGEST_PERIOD_MS[unit as keyof typeof LONGEST_PERIOD_MS]
  );
}

/** Parameters that exist for some algorithms only; checked even when other fields are bad. */
function applicabilityIssues(input: Record<string, unknown>): PolicyIssue[] {
  const algorithm = input.algorithm as AlgorithmName;
  if (!ALGORITHMS.includes(algorithm)) return [];
  const set = (field: string) => input[field] !== undefined && input[field] !== null;
  const issues: PolicyIssue[] = [];
  if (!hasBurst(algorithm) && set('burst')) {
    issues.push({ field: 'burst', message: `does not apply to ${algorithm}; leave it null` });
  }
  if (algorithm !== 'sliding-window' && set('segments')) {
    issues.push({ field: 'segments', message: 'applies only to sliding-window; leave it null' });
  }
  if (set('calendar')) {
    if (algorithm !== 'fixed-window') {
      issues.push({ field: 'calendar', message: 'applies only to fixed-window; leave it null' });
    } else if (set('periodMs') && !readBack(input)) {
      issues.push({
        field: 'periodMs',
        message: 'does not apply with calendar, whose unit sets the period; leave it out',
      });
    }
    if (input.consistency === 'eventual') {
      issues.push({
        field: 'consistency',
        message: "a calendar period is always 'exact': its count is a quota, every unit of it owed",
      });
    }
    const calendar = input.calendar as { unit?: unknown; anchorDay?: unknown };
    if (
      calendar.unit !== 'month' &&
      calendar.anchorDay !== undefined &&
      calendar.anchorDay !== null
    ) {
      issues.push({ field: 'calendar.anchorDay', message: 'applies only to month; leave it null' });
    }
  } else if (input.periodMs === undefined) {
    issues.push({ field: 'periodMs', message: 'is required (or, for fixed-window, calendar)' });
  }
  if (set('usage')) {
    if (algorithm !== 'fixed-window') {
      issues.push({ field: 'usage', message: 'applies only to fixed-window; leave it null' });
    }
    if (input.consistency === 'eventual') {
      issues.push({
        field: 'consistency',
        message: "a charge settled after the response is always 'exact': leave it out",
      });
    }
    const maxCost = (input.usage as { maxCost?: unknown }).maxCost;
    const cost = input.cost ?? 1;
    if (typeof maxCost === 'number' && typeof cost === 'number' && maxCost < cost) {
      issues.push({
        field: 'usage.maxCost',
        message: `must be at least cost (${cost}), the units reserved at admission`,
      });
    }
  }
  if (algorithm === 'concurrency' && input.consistency === 'eventual') {
    issues.push({
      field: 'consistency',
      message:
        "concurrency counts the requests in flight on every instance at once, so it is always 'exact'",
    });
  }
  if (algorithm === 'concurrency' && input.count === 'failures') {
    issues.push({
      field: 'count',
      message:
        "concurrency holds a slot while a request runs, whatever its outcome: leave it 'all'",
    });
  }
  if (algorithm === 'leaky-bucket' && input.consistency === 'eventual') {
    issues.push({
      field: 'consistency',
      message:
        "leaky-bucket delays each request by the queue all instances share, so it is always 'exact'",
    });
  }
  if (algorithm !== 'leaky-bucket' && set('maxDelayMs') && input.maxDelayMs !== 0) {
    issues.push({
      field: 'maxDelayMs',
      message: 'applies only to leaky-bucket; leave it null or 0',
    });
  }
  return issues;
}

/** A candidate's applicability issues, named under `candidate.rules`, for a policy that fails. */
function candidateApplicability(input: unknown): PolicyIssue[] {
  const rules = (input as { candidate?: { rules?: unknown } } | null)?.candidate?.rules;
  if (typeof rules !== 'object' || rules === null) return [];
  return applicabilityIssues(rules as Record<string, unknown>).map((issue) => ({
    ...issue,
    field: `candidate.rules.${issue.field}`,
  }));
}

function fieldOf(issue: z.core.$ZodIssue): string[] {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => (path ? `${path}.${key}` : key));
  }
  return [path || '(policy)'];
}

/** Validates a policy and fills in its defaults; throws PolicyValidationError naming each bad field. */
export function parsePolicy(input: unknown): Policy {
  const name =
    typeof input === 'object' && input !== null && typeof (input as PolicyInput).name === 'string'
      ? (input as PolicyInput).name
      : undefined;
  const parsed = policyInputSchema.safeParse(input);
  const applicability =
    typeof input === 'object' && input !== null
      ? applicabilityIssues(input as Record<string, unknown>)
      : [];
  if (!parsed.success) {
    const issues = parsed.error.issues.flatMap((issue) =>
      fieldOf(issue).map((field) => ({
        field,
        message: issue.code === 'unrecognized_keys' ? 'is not a policy field' : issue.message,
      })),
    );
    const named = new Set(issues.map((issue) => issue.field));
    issues.push(
      ...[...applicability, ...candidateApplicability(input)].filter(
        (issue) => !named.has(issue.field),
      ),
    );
    throw new PolicyValidationError(name, issues);
  }
  const raw = parsed.data;
  const issues: PolicyIssue[] = [...applicability];
  const calendar =
    raw.calendar === undefined || raw.calendar === null
      ? null
      : {
          unit: raw.calendar.unit,
          timeZone: raw.calendar.timeZone ?? 'UTC',
          anchorDay: raw.calendar.unit === 'month' ? (raw.calendar.anchorDay ?? null) : null,
        };
  // Without a period nothing below can be checked: the issue saying so is among `applicability`.
  if (calendar === null && raw.periodMs === undefined) {
    throw new PolicyValidationError(raw.name, issues);
  }
  const periodMs = calendar === null ? (raw.periodMs as number) : LONGEST_PERIOD_MS[calendar.unit];
  const bursts = hasBurst(raw.algorithm);
  const segments = raw.algorithm === 'sliding-window' ? (raw.segments ?? 10) : null;
  if (segments !== null && (periodMs * 1000) % segments !== 0) {
    issues.push({
      field: 'segments',
      message: `must divide periodMs × 1000 (${periodMs * 1000}) evenly`,
    });
  }
  const penalty = raw.penalty
    ? {
        afterViolations: raw.penalty.afterViolations,
        blockMs: raw.penalty.blockMs,
        escalation: raw.penalty.escalation ?? 1,
        maxBlockMs: raw.penalty.maxBlockMs ?? Math.max(raw.penalty.blockMs, DAY_MS),
        forgetAfterMs: raw.penalty.forgetAfterMs ?? 7 * DAY_MS,
      }
    : null;
  if (penalty && penalty.maxBlockMs < penalty.blockMs) {
    issues.push({ field: 'penalty.maxBlockMs', message: 'must be at least blockMs' });
  }
  const policy: Policy = {
    name: raw.name,
    algorithm: raw.algorithm,
    limit: raw.limit,
    periodMs,
    calendar,
    burst: bursts ? (raw.burst ?? null) : null,
    segments,
    maxDelayMs: raw.algorithm === 'leaky-bucket' ? (raw.maxDelayMs ?? null) : null,
    cost: raw.cost ?? 1,
    usage:
      raw.usage === undefined || raw.usage === null
        ? null
        : {
            header: raw.usage.header?.toLowerCase() ?? null,
            maxCost: raw.usage.maxCost,
            onFailure: raw.usage.onFailure ?? 'refund',
          },
    key: raw.key ?? 'user',
    match: raw.match?.userAgent ? { userAgent: raw.match.userAgent } : null,
    count: raw.count ?? 'all',
    penalty,
    mode: raw.mode ?? 'enforce',
    onStoreError: raw.onStoreError ?? 'allow',
    consistency: raw.consistency ?? 'exact',
    syncMs: raw.syncMs ?? DEFAULT_SYNC_MS,
    overrides: [],
    tiers: null,
    description: raw.description ?? null,
    version: raw.version ?? 0,
    source: raw.source ?? 'code',
    updatedAt: raw.updatedAt ?? null,
    updatedBy: raw.updatedBy ?? null,
    candidate: null,
  };
  issues.push(...rateIssues(policy, policy.limit, 'limit'));
  policy.tiers = tiersOf(raw.tiers, policy, issues);
  const seen = new Set<string>();
  (raw.overrides ?? []).forEach((override, index) => {
    const field = `overrides.${index}`;
    const keyKind = override.keyKind ?? policy.key;
    // One entry per identifier of a kind: the same text as an address and as a user are two.
    const prefix = override.prefix ?? false;
    const named = `${keyKind}\u0000${prefix ? '*' : '='}${override.identifier}`;
    if (seen.has(named)) {
      issues.push({
        field: `${field}.identifier`,
        message: `appears twice for ${keyKind}${prefix ? ' as a prefix' : ''}`,
      });
    }
    seen.add(named);
    const unlimited = override.unlimited ?? false;
    const limit = override.limit ?? undefined;
    const tier = override.tier ?? undefined;
    const anchorDay = override.anchorDay ?? null;
    const treatments = [unlimited, limit !== undefined, tier !== undefined].filter(Boolean).length;
    if (treatments > 1 || (treatments === 0 && anchorDay === null)) {
      issues.push({
        field,
        message: 'needs exactly one of limit, unlimited: true or tier (or only an anchorDay)',
      });
      return;
    }
    if (anchorDay !== null && policy.calendar?.unit !== 'month') {
      issues.push({
        field: `${field}.anchorDay`,
        message: 'applies only to a policy counted per calendar month; leave it null',
      });
      return;
    }
    if (tier !== undefined && policy.tiers?.[tier] === undefined) {
      issues.push({
        field: `${field}.tier`,
        message: `must name one of the policy's tiers (${Object.keys(policy.tiers ?? {}).join(', ') || 'it has none'}), got ${JSON.stringify(tier)}`,
      });
      return;
    }
    if (limit !== undefined && limit > 0) {
      issues.push(...rateIssues(policy, limit, `${field}.limit`));
    }
    policy.overrides.push({
      identifier: override.identifier,
      prefix,
      keyKind,
      limit: limit ?? null,
      unlimited,
      tier: tier ?? null,
      anchorDay,
      expiresAt:
        typeof override.expiresAt === 'string'
          ? Date.parse(override.expiresAt)
          : (override.expiresAt ?? null),
    });
  });
  if (raw.candidate) {
    const { rules, samplePercent, ...about } = raw.candidate;
    try {
      policy.candidate = {
        policy: parsePolicy({ ...rules, name: raw.name }),
        ...about,
        samplePercent: samplePercent ?? 100,
      };
    } catch (error) {
      if (!(error instanceof PolicyValidationError)) throw error;
      issues.push(
        ...error.issues.map((issue) => ({ ...issue, field: `candidate.rules.${issue.field}` })),
      );
    }
  }
  if (issues.length > 0) throw new PolicyValidationError(raw.name, issues);
  return policy;
}
