import type { ExecutionContext } from '@nestjs/common';
import type { ConsumeOptions } from '../engine/engine.types.js';
import type { PolicyMatcher } from '../http/policy.matcher.js';
import type { AccessLists } from '../lists/access-lists.js';
import type { ThrottleMetadataAccessor } from '../metadata/throttle-metadata.accessor.js';
import type { PolicyRegistry } from '../policy/policy.registry.js';
import type { Policy } from '../policy/policy.types.js';
import type { TierResolver } from '../trackers/tier.resolver.js';
import type { Tracked, TrackerResolver } from '../trackers/tracker.resolver.js';

/** The adapter's request and response: Express, Fastify, a GraphQL context's, a socket. */
export interface RequestResponse {
  /** The request the identifiers are read from. */
  req: unknown;
  /** The response the RateLimit headers are set on; undefined where there is none (a socket). */
  res: unknown;
}

/**
 * The request and response of a context: HTTP on Express and Fastify; for GraphQL the resolver
 * context's `req` and `res` (Mercurius: `reply`); for WebSocket the client, with no response.
 */
export function requestResponseOf(context: ExecutionContext): RequestResponse {
  const type = context.getType<string>();
  if (type === 'http') {
    const http = context.switchToHttp();
    return { req: http.getRequest(), res: http.getResponse() };
  }
  if (type === 'graphql') {
    const resolverContext = context.getArgByIndex<
      { req?: unknown; res?: unknown; reply?: unknown } | undefined
    >(2);
    return { req: resolverContext?.req, res: resolverContext?.res ?? resolverContext?.reply };
  }
  return { req: context.switchToWs().getClient<unknown>(), res: undefined };
}

/** The guard's override points, as the steps call them (each dispatches to a subclass's own). */
export interface RequestSeams {
  requestResponse(context: ExecutionContext): RequestResponse;
  /** Who the request counts as; a promise only when the answer is not at hand. */
  tracker(req: unknown, keyKind: string, context: ExecutionContext): Tracked | Promise<Tracked>;
  cost(req: unknown, context: ExecutionContext): number | undefined;
}

/** What the steps read: the module's shared readers, or a hand-built guard's own. */
export interface RequestParts {
  readonly marks: ThrottleMetadataAccessor;
  readonly policies: PolicyRegistry;
  readonly lists: AccessLists;
  readonly trackers: TrackerResolver;
  readonly tiers: TierResolver;
  readonly matcher: PolicyMatcher;
  /** The module's `allow.addresses`, compiled; undefined without any. */
  readonly allowed: ((address: string) => boolean) | undefined;
  /** The module's tier options: whether a tier or a renewal day is asked at all. */
  readonly asksTier: boolean;
  readonly asksAnchorDay: boolean;
  /** Said when a `user` policy finds no user and counts the request by address. */
  fellBack(route: string, policy: Policy): void;
}

export type Client = ConsumeOptions['client'];
