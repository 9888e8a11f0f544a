import type { Policy, PolicyCandidateInput, ThrottledRoute } from '@sluice/nest/internals';
import type { PolicyRoute, PolicyView } from '../common/admin-api.types.js';

export function policyRoute(route: ThrottledRoute): PolicyRoute {
  return {
    method: route.method,
    path: route.path,
    owner: route.owner,
    handler: route.handler,
    tier: route.tier,
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

export function policyView(
  policy: Policy,
  routes: readonly ThrottledRoute[],
  codeDefault: Policy | undefined,
  candidate: CandidateFacts | null,
): PolicyView {
  return {
    ...policy,
    routes: routes.map(policyRoute),
    codeDefault: codeDefault ?? null,
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
