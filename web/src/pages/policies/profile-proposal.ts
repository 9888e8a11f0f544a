import type { CandidateProposal, PolicyView } from '@sluice/admin/api';
import { toFormValues, toWriteRequest } from './policy-form';

/**
 * The policy as it is with one limit changed, as a candidate: the policy's own for requests of
 * no tier (tier ''), a tier's for that tier.
 */
export function proposalWithLimit(
  policy: PolicyView,
  tier: string,
  limit: number,
): CandidateProposal {
  const values = toFormValues(policy);
  if (tier === '') values.limit = String(limit);
  else {
    values.tiers = values.tiers.map((each) =>
      each.name === tier ? { ...each, limit: String(limit) } : each,
    );
  }
  return toWriteRequest(values, policy.version);
}
