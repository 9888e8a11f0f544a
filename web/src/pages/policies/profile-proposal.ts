import type { CandidateProposal, PolicyView } from '@sluice/admin/api';
import { formatDuration } from '../../shared/format';
import { toFormValues, toWriteRequest } from './policy-form';

/** What one window of a profile is: a calendar policy's period, or a length. */
export function windowText(view: { calendar: string | null; windowMs: number }): string {
  return view.calendar === null ? formatDuration(view.windowMs) : `calendar ${view.calendar}`;
}

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
