import { capacity } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import { CANDIDATE_SUFFIX } from '../store/operations.js';
import type { PolicySpec } from '../store/store.types.js';

const SPECS_PER_POLICY = 64;

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

  constructor(private readonly build: typeof toPolicySpec = toPolicySpec) {}

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
