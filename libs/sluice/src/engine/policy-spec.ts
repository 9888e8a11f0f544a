import type { Policy } from '../policy/policy.types.js';
import type { PolicySpec } from '../store/store.types.js';

/** What a store needs of a policy for one request: the limit in force and the request's cost. */
export function toPolicySpec(policy: Policy, limit: number, cost: number): PolicySpec {
  return {
    name: policy.name,
    algorithm: policy.algorithm,
    limit,
    periodMs: policy.periodMs,
    burst: policy.burst,
    segments: policy.segments,
    maxDelayMs: policy.maxDelayMs,
    mode: policy.mode === 'shadow' ? 'shadow' : 'enforce',
    cost,
    penalty: policy.penalty,
  };
}
