import { periodAt } from '../clock/calendar.js';
import { capacity } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import { CANDIDATE_SUFFIX } from '../store/operations.js';
import type { PolicySpec } from '../store/store.types.js';

const SPECS_PER_POLICY = 64;
/**
 * A calendar spec's boundaries are those around this long before the engine's clock: the store's
 * clock (Redis TIME) may lag the app's by up to this much at a boundary and still find itself in
 * one of the two periods the spec names (docs/algorithms.md, "Calendar periods").
 */
export const CALENDAR_CLOCK_SKEW_MS = 60_000;

/**
 * What a store needs of a policy for one request: the limit in force, the request's cost, and
 * the tier whose burst and delay apply (its limit is `limit` unless an override's replaced it).
 */
export function toPolicySpec(
  policy: Policy,
  limit: number,
  cost: number,
  tier?: string,
): PolicySpec {
  const rate = tier === undefined ? undefined : policy.tiers?.[tier];
  const spec: PolicySpec = {
    name: policy.name,
    algorithm: policy.algorithm,
    limit,
    periodMs: policy.periodMs,
    burst: rate === undefined ? policy.burst : rate.burst,
    segments: policy.segments,
    maxDelayMs: rate === undefined ? policy.maxDelayMs : rate.maxDelayMs,
    mode: policy.mode === 'shadow' ? 'shadow' : 'enforce',
    cost,
    penalty: policy.penalty,
  };
  if (policy.consistency === 'eventual') spec.syncMs = policy.syncMs;
  if (rate !== undefined) spec.tier = tier;
  return spec;
}

/**
 * A shadow candidate's spec: its rules, on state keys of its own (`<name>~c`, a suffix no policy
 * name can have), decided without ever refusing the request.
 */
export function toCandidateSpec(
  candidate: Policy,
  limit: number,
  cost: number,
  tier?: string,
): PolicySpec {
  return {
    ...toPolicySpec(candidate, limit, cost, tier),
    name: `${candidate.name}${CANDIDATE_SUFFIX}`,
    mode: 'candidate',
  };
}

/**
 * Specs built once and reused: a policy serves few distinct (limit, cost) pairs, and most calls
 * its own limit and cost, which is found without building a lookup key.
 */
export class PolicySpecCache {
  private readonly usual = new WeakMap<Policy, PolicySpec>();
  private readonly byRate = new WeakMap<Policy, Map<string, PolicySpec>>();
  /** A calendar policy's spec with the boundaries last computed for it. */
  private readonly dated = new WeakMap<PolicySpec, PolicySpec>();
  private readonly anchored = new WeakMap<PolicySpec, Map<number, PolicySpec>>();

  /** `nowMs`: the engine's clock, epoch ms, for calendar boundaries. */
  constructor(
    private readonly nowMs: () => number,
    private readonly build: typeof toPolicySpec = toPolicySpec,
  ) {}

  /**
   * The spec at this limit and cost, as `of` gives it, with a calendar policy's boundaries
   * around now: computed from the zone's rules once per period, then reused.
   */
  at(policy: Policy, limit: number, cost: number, tier?: string, anchorDay?: number): PolicySpec {
    const spec = this.of(policy, limit, cost, tier);
    const calendar = policy.calendar;
    if (calendar === null) return spec;
    // An identifier's own renewal day (docs/guide.md, "Calendar quotas"): month periods only.
    const anchored =
      anchorDay !== undefined && calendar.unit === 'month' && anchorDay !== calendar.anchorDay;
    const atMs = this.nowMs() - CALENDAR_CLOCK_SKEW_MS;
    const known = anchored ? this.anchoredOf(spec).get(anchorDay) : this.dated.get(spec);
    if (
      known?.calendar !== undefined &&
      atMs >= known.calendar.start &&
      atMs < known.calendar.end
    ) {
      return known;
    }
    const period = periodAt(atMs, anchored ? { ...calendar, anchorDay } : calendar);
    const fresh: PolicySpec = { ...spec, calendar: period };
    if (anchored) this.anchoredOf(spec).set(anchorDay, fresh);
    else this.dated.set(spec, fresh);
    return fresh;
  }

  /** A calendar spec's boundaries for each renewal day identifiers have of their own, 1–31. */
  private anchoredOf(spec: PolicySpec): Map<number, PolicySpec> {
    let byDay = this.anchored.get(spec);
    if (byDay === undefined) {
      byDay = new Map();
      this.anchored.set(spec, byDay);
    }
    return byDay;
  }

  /**
   * The spec at this limit and cost, under `tier` (one the policy names) when given, or
   * RangeError naming the cost when the policy cannot take it.
   */
  of(policy: Policy, limit: number, cost: number, tier?: string): PolicySpec {
    const usual = tier === undefined && limit === policy.limit && cost === policy.cost;
    if (usual) {
      const cached = this.usual.get(policy);
      if (cached !== undefined) return cached;
    }
    let byRate = this.byRate.get(policy);
    const rateKey = tier === undefined ? `${limit} ${cost}` : `${limit} ${cost} ${tier}`;
    const cached = byRate?.get(rateKey);
    if (cached !== undefined) return cached;
    const burst = tier === undefined ? policy.burst : (policy.tiers?.[tier]?.burst ?? null);
    const room = capacity(policy.algorithm, limit, burst);
    if (!Number.isSafeInteger(cost) || cost < 1 || cost > room) {
      throw new RangeError(
        `cost: must be an integer from 1 to ${room} for policy ${policy.name}, got ${cost}`,
      );
    }
    const spec = this.build(policy, limit, cost, tier);
    if (byRate === undefined || byRate.size >= SPECS_PER_POLICY) {
      byRate = new Map();
      this.byRate.set(policy, byRate);
    }
    byRate.set(rateKey, spec);
    if (usual) this.usual.set(policy, spec);
    return spec;
  }
}
