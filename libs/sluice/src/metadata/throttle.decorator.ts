import { TIER_NAME, TIER_NAME_RULE } from '../policy/policy.schema.js';
import { SetMetadata } from '@nestjs/common';
import type { PolicyInput } from '../policy/policy.types.js';
import {
  SKIP_THROTTLE_METADATA,
  THROTTLE_METADATA,
  THROTTLE_TIER_METADATA,
} from '../config/sluice.tokens.js';

/** A policy's definition in code, without its name (the decorator's first argument). */
export type PolicyDefaults = Omit<PolicyInput, 'name'>;

/** What `@Throttle()` records on a handler or class. */
export interface ThrottleMetadata {
  /** The policies named, decided together. */
  names: readonly string[];
  /** Code default for the single policy named, when the decorator gives one. */
  defaults?: PolicyDefaults;
}

/**
 * Puts a handler or a controller under one or more policies, decided all-or-nothing per
 * identifier. A method's `@Throttle` replaces its class's.
 *
 *   @Throttle('reply')
 *   @Throttle(['reply', 'burst'])
 *   @Throttle('reply', { algorithm: 'sliding-log', limit: 5, periodMs: 60_000 })
 */
/** One policy, with its definition in code when `defaults` is given (stored on first start). */
export function Throttle(name: string, defaults?: PolicyDefaults): MethodDecorator & ClassDecorator;
/** Several policies defined elsewhere, decided together. */
export function Throttle(names: readonly string[]): MethodDecorator & ClassDecorator;
export function Throttle(
  names: string | readonly string[],
  defaults?: PolicyDefaults,
): MethodDecorator & ClassDecorator {
  const metadata: ThrottleMetadata = {
    names: typeof names === 'string' ? [names] : names,
    ...(defaults ? { defaults } : {}),
  };
  return SetMetadata(THROTTLE_METADATA, metadata);
}

/**
 * Decides a handler's (or a controller's) requests at `tier` of each policy that names it, over
 * what the module's tier resolver says; an operator's override assigning a tier still wins.
 * For routes that belong to a plan: `@ThrottleTier('partner')` on a partner API.
 */
export function ThrottleTier(tier: string): MethodDecorator & ClassDecorator {
  if (typeof tier !== 'string' || !TIER_NAME.test(tier)) {
    throw new RangeError(
      `@ThrottleTier(): ${JSON.stringify(tier)} is not a tier name: it ${TIER_NAME_RULE}`,
    );
  }
  return SetMetadata(THROTTLE_TIER_METADATA, tier);
}

/** Exempts a handler or a whole controller; `@SkipThrottle(false)` on a method undoes its class's. */
export const SkipThrottle = (skip = true): MethodDecorator & ClassDecorator =>
  SetMetadata(SKIP_THROTTLE_METADATA, skip);
