import {
  takesPlans,
  type IdentifierTier,
  type SluiceEngine,
  type SluiceService,
} from '@sluice/nest/internals';

/** What an operator's read of an identifier is decided as, and what the tier lookup said. */
export interface ReadPlan {
  /** The tier and renewal day to read at, as the lookup gave them. */
  options: { tier?: string; anchorDay?: number };
  /** The lookup, or null when the policy's figures do not depend on a plan. */
  lookup: IdentifierTier | null;
}

/**
 * Asks `tiers.ofIdentifier` once, with the longer bound an operator's read may wait (a request's
 * 50 ms would leave a busy app's pro key at the base rate), for a policy whose figures depend on
 * the identifier's plan: it has tiers, or renews monthly on a day of the identifier's.
 */
export async function readPlanOf(
  engine: SluiceEngine,
  sluice: SluiceService,
  policy: string,
  identifier: string,
): Promise<ReadPlan> {
  const found = engine.policies.get(policy);
  if (found === undefined || !takesPlans(found)) {
    return { options: {}, lookup: null };
  }
  const lookup = await sluice.tierOf(identifier, found.key);
  const options: ReadPlan['options'] = {};
  if (lookup.tier !== null) options.tier = lookup.tier;
  if (lookup.anchorDay !== null) options.anchorDay = lookup.anchorDay;
  return { options, lookup };
}
