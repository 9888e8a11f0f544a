import type { Clock } from '../clock/clock.js';
import type { QuotaOptions } from '../engine/engine.types.js';
import type { Policy } from '../policy/policy.types.js';
import { TierResolver, type TierOptions } from '../trackers/tier.resolver.js';
import type { IdentifierTier } from './sluice-service.types.js';

/** How long an operator's read waits for `tiers.ofIdentifier`: nothing is waiting on a request. */
const OPERATOR_TIMEOUT_MS = 1000;

/** Whether an identifier's plan changes what `policy` decides: it has tiers, or renews monthly. */
export function takesPlans(policy: Policy): boolean {
  return policy.tiers !== null || policy.calendar?.unit === 'month';
}

/**
 * An identifier's plan where no request says it (grants, quotas, peeks, the admin's reads): the
 * module's `tiers.ofIdentifier`, asked only for policies a plan changes.
 */
export class IdentifierPlans {
  private resolver?: TierResolver;

  constructor(
    private readonly options: TierOptions | undefined,
    private readonly clock: Clock,
  ) {}

  /** `options` with the identifier's tier and renewal day filled in where they are not given. */
  async fill<T extends QuotaOptions>(
    policy: Policy | undefined,
    identifier: string,
    options: T,
  ): Promise<T> {
    const given = options.tier !== undefined && options.anchorDay !== undefined;
    if (given || this.options?.ofIdentifier === undefined) return options;
    if (policy === undefined || !takesPlans(policy)) return options;
    const plan = await this.tiers().ofIdentifier(identifier, options.keyKind ?? policy.key);
    const resolved: T = { ...options };
    resolved.tier ??= plan.tier;
    resolved.anchorDay ??= plan.anchorDay;
    if (resolved.tier === undefined) delete resolved.tier;
    if (resolved.anchorDay === undefined) delete resolved.anchorDay;
    return resolved;
  }

  /** What `tiers.ofIdentifier` says of an identifier, waiting up to 1 s, or why it says nothing. */
  async tierOf(identifier: string, keyKind: string): Promise<IdentifierTier> {
    if (this.options?.ofIdentifier === undefined) {
      return { asked: false, tier: null, anchorDay: null, failure: null };
    }
    const plan = await this.tiers().ofIdentifier(identifier, keyKind, OPERATOR_TIMEOUT_MS);
    return {
      asked: true,
      tier: plan.tier ?? null,
      anchorDay: plan.anchorDay ?? null,
      failure: plan.failure ?? null,
    };
  }

  private tiers(): TierResolver {
    return (this.resolver ??= new TierResolver(this.options, this.clock));
  }
}
