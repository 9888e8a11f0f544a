import type { ExecutionContext } from '@nestjs/common';
import { firstDecision } from './handler.outcome.js';
import type { RequestMatch } from './request.plan.js';
import type { RequestParts, RequestSeams } from './request.parts.js';

/**
 * Step 1, in memory: the route's policies that apply to this request, or undefined when it passes
 * undecided — no `@Throttle` on the route, decided already by another SluiceGuard, on the
 * module's allow list, or no policy applies to it.
 */
export function matched(
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
): RequestMatch | undefined {
  const { names, route, tier } = parts.marks.of(context.getHandler(), context.getClass());
  if (names === undefined) return undefined;
  const { req, res } = seams.requestResponse(context);
  const kind = context.getType<string>();
  const invocation = invocationOf(context, kind, req);
  if (invocation !== undefined && !firstDecision(invocation)) return undefined;
  if (parts.allowed !== undefined) {
    const address = parts.trackers.clientIp(req);
    if (address !== undefined && parts.allowed(address)) return undefined;
  }
  const policies = parts.matcher.applicable(parts.policies.resolveRoute(names), req);
  if (policies.length === 0) return undefined;
  return { kind, route, names, policies, routeTier: tier, req, res, invocation };
}

/**
 * What identifies one invocation of a handler, the same for every guard that meets it: the HTTP
 * request, a resolver call's `info`, a WebSocket message's data object.
 */
function invocationOf(context: ExecutionContext, kind: string, req: unknown): object | undefined {
  const key: unknown =
    kind === 'http'
      ? req
      : kind === 'graphql'
        ? context.getArgByIndex<unknown>(3)
        : context.getArgByIndex<unknown>(1);
  return typeof key === 'object' && key !== null ? key : undefined;
}
