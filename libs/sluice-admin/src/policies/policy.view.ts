import type { Policy, ThrottledRoute } from '@sluice/nest/internals';
import type { PolicyRoute, PolicyView } from '../common/admin-api.types.js';

export function policyRoute(route: ThrottledRoute): PolicyRoute {
  return { method: route.method, path: route.path, owner: route.owner, handler: route.handler };
}

/** "GET /posts (PostsController.list)", or "PostsResolver.list" for a handler without a path. */
export function describeRoute(route: ThrottledRoute): string {
  const handler = `${route.owner}.${route.handler}`;
  return route.method !== null && route.path !== null
    ? `${route.method} ${route.path} (${handler})`
    : handler;
}

export function policyView(
  policy: Policy,
  routes: readonly ThrottledRoute[],
  codeDefault: Policy | undefined,
): PolicyView {
  return { ...policy, routes: routes.map(policyRoute), codeDefault: codeDefault ?? null };
}
