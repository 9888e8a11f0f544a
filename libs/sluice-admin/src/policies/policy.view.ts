import type { Policy, PolicyCandidateInput, ThrottledRoute } from '@sluice/nest/internals';
import type { PolicyRoute, PolicyView } from '../common/admin-api.types.js';
import type { PolicyDrift } from '../common/policy-file.types.js';
import { apiPolicy } from './api-policy.js';
import { changedRuleFields } from './policy-rules.js';

export function policyRoute(route: ThrottledRoute, policy: string): PolicyRoute {
  return {
    method: route.method,
    path: route.path,
    owner: route.owner,
    handler: route.handler,
    tier: route.tier,
    countedByAddress: route.countedByAddress.includes(policy),
  };
}

/** "GET /posts (PostsController.list)", or "PostsResolver.list" for a handler without a path. */
export function describeRoute(route: ThrottledRoute): string {
  const handler = `${route.owner}.${route.handler}`;
  return route.method !== null && route.path !== null
    ? `${route.method} ${route.path} (${handler})`
    : handler;
}

/** What a policy view says of a candidate, from the snapshot's or the stored one. */
type CandidateFacts = Pick<
  PolicyCandidateInput,
  'proposedBy' | 'proposedAt' | 'expiresAt' | 'baseVersion' | 'samplePercent'
>;

/**
 * How a policy stands against its code default and the file last applied (`applied`: that file's
 * policies by name, null when none was applied).
 */
export function policyDrift(
  policy: Policy,
  codeDefault: Policy | undefined,
  applied: ReadonlyMap<string, Policy> | null,
): PolicyDrift {
  const inFile = applied?.get(policy.name);
  return {
    fromCode: codeDefault === undefined ? null : changedRuleFields(policy, codeDefault).length > 0,
    fromFile:
      applied === null
        ? null
        : inFile === undefined
          ? 'missing'
          : changedRuleFields(policy, inFile).length > 0
            ? 'differs'
            : 'same',
  };
}

export function policyView(
  policy: Policy,
  routes: readonly ThrottledRoute[],
  codeDefault: Policy | undefined,
  candidate: CandidateFacts | null,
  applied: ReadonlyMap<string, Policy> | null,
): PolicyView {
  return {
    ...apiPolicy(policy),
    routes: routes.map((route) => policyRoute(route, policy.name)),
    codeDefault: codeDefault === undefined ? null : apiPolicy(codeDefault),
    drift: policyDrift(policy, codeDefault, applied),
    candidate:
      candidate === null
        ? null
        : {
            proposedBy: candidate.proposedBy,
            proposedAt: candidate.proposedAt,
            expiresAt: new Date(candidate.expiresAt).toISOString(),
            baseVersion: candidate.baseVersion,
            samplePercent: candidate.samplePercent ?? 100,
          },
  };
}
