import type { Decision, PolicyDecision } from '@sluice/nest/internals';
import type { ApiPolicyDecision, InspectResult } from '../common/admin-api.types.js';

const iso = (epochMs: number): string => new Date(epochMs).toISOString();

/** One policy's part as the API writes it: the library's epoch ms become ISO 8601. */
function apiPart(part: PolicyDecision): ApiPolicyDecision {
  const { blocked, override, ...rest } = part;
  const answer: ApiPolicyDecision = rest;
  if (blocked !== undefined) {
    const { untilMs, ...block } = blocked;
    answer.blocked = { until: iso(untilMs), ...block };
  }
  if (override !== undefined) {
    answer.override = {
      ...override,
      expiresAt: override.expiresAt === null ? null : iso(override.expiresAt),
    };
  }
  return answer;
}

/** A peek as GET /inspect answers it, every time in ISO 8601 (docs/operations.md, "Times and durations"). */
export function inspectAnswer(
  decision: Decision,
  tierLookup: InspectResult['tierLookup'],
): InspectResult {
  // A peek holds no lease: nothing of the decision is left out but its parts, written below.
  const { policies, candidates, ...deciding } = decision;
  const answer: InspectResult = {
    ...apiPart(deciding),
    policies: policies.map(apiPart),
    tierLookup,
  };
  if (candidates !== undefined) answer.candidates = candidates.map(apiPart);
  return answer;
}
