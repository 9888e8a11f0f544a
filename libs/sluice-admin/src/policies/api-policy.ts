import type { Policy } from '@sluice/nest/internals';
import type { ApiPolicy } from '../common/admin-api.types.js';

/**
 * A policy as the API answers it: the library keeps times as epoch ms, the API writes every time
 * in ISO 8601 (docs/operations.md, "Times and durations"). A candidate is answered on its own
 * route, so none is carried here, whatever shape the stored policy has it in.
 */
export function apiPolicy(policy: Policy): ApiPolicy {
  const answer: ApiPolicy & Partial<Pick<Policy, 'candidate'>> = {
    ...policy,
    overrides: policy.overrides.map((override) => ({
      ...override,
      expiresAt: override.expiresAt === null ? null : new Date(override.expiresAt).toISOString(),
    })),
  };
  delete answer.candidate;
  return answer;
}
