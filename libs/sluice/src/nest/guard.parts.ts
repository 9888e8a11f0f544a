import type { Logger } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { PolicyMatcher } from '../http/policy.matcher.js';
import type { AccessLists } from '../lists/access-lists.js';
import { ThrottleMetadataAccessor } from '../metadata/throttle-metadata.accessor.js';
import { compileAddressList } from '../net/address-range.js';
import type { PolicyRegistry } from '../policy/policy.registry.js';
import type { Policy } from '../policy/policy.types.js';
import type { RequestParts } from '../request/request.parts.js';
import { TierResolver } from '../trackers/tier.resolver.js';
import { TrackerResolver } from '../trackers/tracker.resolver.js';
import { RouteRegistry } from './route.registry.js';
import { userFallbackWarning } from './user-fallback.warning.js';

/** The module's shared readers a guard was given; absent ones are built for it alone. */
export interface SharedReaders {
  marks?: ThrottleMetadataAccessor | undefined;
  policies: PolicyRegistry;
  lists: AccessLists;
  trackers?: TrackerResolver | undefined;
  routes?: RouteRegistry | undefined;
}

/** Where a guard built by hand, without the module's registry, remembers what it warned of. */
const fallbackRoutes = new RouteRegistry();

/** What a guard's steps read, gathered once: the module's readers, or the guard's own. */
export function guardParts(
  options: SluiceModuleOptions,
  reflector: Reflector,
  shared: SharedReaders,
  logger: Logger,
): RequestParts {
  const allow = options.allow?.addresses ?? [];
  const routes = shared.routes ?? fallbackRoutes;
  return {
    marks: shared.marks ?? new ThrottleMetadataAccessor(reflector),
    policies: shared.policies,
    lists: shared.lists,
    trackers:
      shared.trackers ??
      new TrackerResolver(options.trustProxy, options.trackers, options.ipv6Prefix),
    tiers: new TierResolver(options.tiers),
    matcher: new PolicyMatcher(),
    allowed: allow.length > 0 ? compileAddressList(allow, 'allow.addresses') : undefined,
    asksTier: options.tiers !== undefined,
    asksAnchorDay: options.tiers?.anchorDay !== undefined,
    fellBack(route: string, policy: Policy) {
      if (routes.countedByAddress(route, policy.name)) {
        logger.warn(userFallbackWarning(route, policy.name));
      }
    },
  };
}
