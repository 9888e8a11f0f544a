import type { Decision, PolicyDecision } from '../engine/decision.js';
import { CANDIDATE_SUFFIX } from '../store/operations.js';

/** Like the candidate suffix, a suffix no policy name can have. */
const SAMPLED_SUFFIX = '~s';

/** What one policy's part of a decision came to; each part counts under exactly one outcome. */
export type DecisionOutcome =
  | 'allowed'
  | 'delayed'
  | 'rejected'
  | 'blocked'
  | 'cache_block'
  | 'shadow_rejected'
  | 'store_error';

/**
 * Where a policy's candidate is counted in the decision stats and the identifier stats: under the
 * policy's name with the candidate suffix, which no policy name can have.
 */
export function candidateStatsName(policy: string): string {
  return `${policy}${CANDIDATE_SUFFIX}`;
}

/**
 * Where a policy's live outcomes are counted for the requests its candidate was decided on (its
 * sample of identifiers), so the two compare over the same requests.
 */
export function sampledStatsName(policy: string): string {
  return `${policy}${SAMPLED_SUFFIX}`;
}

/** Between a policy's name and a tier's in the stats: `~` starts no policy or tier name. */
const TIER_SEPARATOR = '~t:';

/**
 * Where a policy's decisions made at a tier are counted too, beside the policy's own: tiers are
 * named in the policy (at most 32), never taken from requests, so the series stay few.
 */
export function tierStatsName(policy: string, tier: string): string {
  return `${policy}${TIER_SEPARATOR}${tier}`;
}

/** What a candidate would have answered, by its own verdict: it never refuses the request. */
export function candidateOutcomeOf(part: PolicyDecision): DecisionOutcome {
  if (part.reason === 'blocked') return 'blocked';
  if (!part.allowed) return 'rejected';
  return part.delayMs > 0 ? 'delayed' : 'allowed';
}

/**
 * A policy's own answer. A policy that admitted a request another policy refused answered
 * nothing that happened: its charge was given back, and the refusal is the other policy's, so it
 * counts under neither (null), and a refusal is counted once, by the policy that refused.
 */
export function outcomeOf(decision: Decision, part: PolicyDecision): DecisionOutcome | null {
  if (part.reason === 'store-error') return 'store_error';
  if (part.reason === 'shadow') return 'shadow_rejected';
  if (part.reason === 'cache-block') return 'cache_block';
  if (part.reason === 'blocked') return 'blocked';
  if (!part.allowed) return 'rejected';
  if (!decision.allowed) return null;
  return part.delayMs > 0 ? 'delayed' : 'allowed';
}
