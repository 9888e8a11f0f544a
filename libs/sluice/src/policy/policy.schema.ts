import type { z } from 'zod';
import { traitsOf } from '../algorithms/algorithm.traits.js';
import { LONGEST_PERIOD_MS } from '../clock/calendar.js';
import {
  DAY_MS,
  DEFAULT_SYNC_MS,
  policyInputSchema,
  TIER_NAME_RULE,
} from './policy-fields.schema.js';
import { PolicyValidationError, type PolicyIssue } from './policy-validation.error.js';
import {
  applicabilityIssues,
  candidateApplicability,
  rateIssues,
  tiersOf,
} from './policy.rules.js';
import type { Policy, PolicyInput } from './policy.types.js';

export {
  calendarSchema,
  DEFAULT_SYNC_MS,
  MAX_LIMIT,
  MAX_PERIOD_MS,
  MAX_SLIDING_LOG_LIMIT,
  MAX_TIERS,
  POLICY_NAME,
  policyInputSchema,
  TIER_NAME,
  TIER_NAME_RULE,
} from './policy-fields.schema.js';
export { capacity } from './policy.rules.js';

function hasProtoKey(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__');
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
  // A record parsed into a plain object loses a `__proto__` key without a word: said here.
  const protoTier = hasProtoKey((input as { tiers?: unknown } | null)?.tiers);
  const applicability =
    typeof input === 'object' && input !== null
      ? applicabilityIssues(input as Record<string, unknown>)
      : [];
  if (!parsed.success || protoTier) {
    const issues = (parsed.error?.issues ?? []).flatMap((issue) =>
      fieldOf(issue).map((field) => ({
        field,
        message: issue.code === 'unrecognized_keys' ? 'is not a policy field' : issue.message,
      })),
    );
    if (protoTier) issues.push({ field: 'tiers.__proto__', message: TIER_NAME_RULE });
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
  const traits = traitsOf(raw.algorithm);
  const segments = traits.segments ? (raw.segments ?? 10) : null;
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
    burst: traits.burst ? (raw.burst ?? null) : null,
    segments,
    maxDelayMs: traits.shapes ? (raw.maxDelayMs ?? null) : null,
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
    if (tier !== undefined && !Object.hasOwn(policy.tiers ?? {}, tier)) {
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
