import { ALGORITHMS, type AlgorithmName } from '../algorithms/algorithm.types.js';
import { MAX_SLIDING_LOG_LIMIT, traitsOf } from '../algorithms/algorithm.traits.js';
import { idiv } from '../algorithms/integer-math.js';
import { LONGEST_PERIOD_MS } from '../clock/calendar.js';
import { MAX_PERIOD_MS, MAX_TIERS } from './policy-fields.schema.js';
import type { PolicyIssue } from './policy-validation.error.js';
import type { Policy, PolicyInput, TierRate } from './policy.types.js';

// The checks that read several fields of a policy, each asking the algorithm's traits
// (algorithms/algorithm.traits.ts) what it takes.

/** The capacity a single request's cost must fit in: burst for buckets, limit for windows. */
export function capacity(algorithm: AlgorithmName, limit: number, burst: number | null): number {
  return traitsOf(algorithm).burst ? (burst ?? limit) : limit;
}

/** Checks that need several fields, for the policy's own limit or an override's. */
export function rateIssues(
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
  const maxLimit = traitsOf(policy.algorithm).maxLimit;
  if (maxLimit !== undefined && limit > maxLimit) {
    issues.push({
      field,
      message: `${policy.algorithm} keeps one entry per request: at most ${MAX_SLIDING_LOG_LIMIT}; use sliding-window for more`,
    });
  }
  const room = capacity(policy.algorithm, limit, policy.burst);
  if (policy.cost > room) {
    issues.push({
      field: 'cost',
      message: `must not exceed the capacity (${room}), got ${policy.cost}`,
    });
  }
  if (traitsOf(policy.algorithm).burst && room * idiv(period, limit) > MAX_PERIOD_MS * 1000) {
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
export function tiersOf(
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
  const { burst: bursts, shapes } = traitsOf(policy.algorithm);
  for (const name of names) {
    const tier = input[name] as TierRate;
    const field = `tiers.${name}`;
    if (!bursts && tier.burst != null) {
      issues.push({
        field: `${field}.burst`,
        message: `does not apply to ${policy.algorithm}; leave it null`,
      });
    }
    if (!shapes && tier.maxDelayMs != null && tier.maxDelayMs !== 0) {
      issues.push({
        field: `${field}.maxDelayMs`,
        message: 'applies only to leaky-bucket; leave it null or 0',
      });
    }
    const burst = bursts ? (tier.burst ?? null) : null;
    issues.push(...rateIssues({ ...policy, burst }, tier.limit, `${field}.limit`));
    tiers[name] = {
      limit: tier.limit,
      burst,
      maxDelayMs: shapes ? (tier.maxDelayMs ?? null) : null,
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
export function applicabilityIssues(input: Record<string, unknown>): PolicyIssue[] {
  const algorithm = input.algorithm as AlgorithmName;
  if (!ALGORITHMS.includes(algorithm)) return [];
  const set = (field: string) => input[field] !== undefined && input[field] !== null;
  const traits = traitsOf(algorithm);
  const issues: PolicyIssue[] = [];
  if (!traits.burst && set('burst')) {
    issues.push({ field: 'burst', message: `does not apply to ${algorithm}; leave it null` });
  }
  if (!traits.segments && set('segments')) {
    issues.push({ field: 'segments', message: 'applies only to sliding-window; leave it null' });
  }
  if (!set('calendar') && typeof input.periodMs === 'number' && input.periodMs > MAX_PERIOD_MS) {
    issues.push({ field: 'periodMs', message: `must be an integer from 1 to ${MAX_PERIOD_MS}` });
  }
  if (set('calendar')) {
    if (!traits.quota) {
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
    if (!traits.quota) {
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
  if (traits.holdsSlots && input.consistency === 'eventual') {
    issues.push({
      field: 'consistency',
      message:
        "concurrency counts the requests in flight on every instance at once, so it is always 'exact'",
    });
  }
  if (!traits.countsFailures && input.count === 'failures') {
    issues.push({
      field: 'count',
      message:
        "concurrency holds a slot while a request runs, whatever its outcome: leave it 'all'",
    });
  }
  if (traits.shapes && input.consistency === 'eventual') {
    issues.push({
      field: 'consistency',
      message:
        "leaky-bucket delays each request by the queue all instances share, so it is always 'exact'",
    });
  }
  if (!traits.shapes && set('maxDelayMs') && input.maxDelayMs !== 0) {
    issues.push({
      field: 'maxDelayMs',
      message: 'applies only to leaky-bucket; leave it null or 0',
    });
  }
  return issues;
}

/** A candidate's applicability issues, named under `candidate.rules`, for a policy that fails. */
export function candidateApplicability(input: unknown): PolicyIssue[] {
  const rules = (input as { candidate?: { rules?: unknown } } | null)?.candidate?.rules;
  if (typeof rules !== 'object' || rules === null) return [];
  return applicabilityIssues(rules as Record<string, unknown>).map((issue) => ({
    ...issue,
    field: `candidate.rules.${issue.field}`,
  }));
}
