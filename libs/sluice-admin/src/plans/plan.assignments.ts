import type { Policy } from '@sluice/nest/internals';

type Override = Policy['overrides'][number];

/** An identifier's plan as written: the tier (null: none), until when (epoch ms, or null). */
export interface PlanChange {
  identifier: string;
  /** The kind of identifier; undefined: each policy's own `key`. */
  keyKind: string | undefined;
  tier: string | null;
  expiresAt: number | null;
}

/** The identifier's own override under `policy` (exact, of the kind asked), if it has one. */
export function ownOverride(
  policy: Policy,
  identifier: string,
  keyKind?: string,
): Override | undefined {
  const kind = keyKind ?? policy.key;
  return policy.overrides.find(
    (each) => !each.prefix && each.identifier === identifier && each.keyKind === kind,
  );
}

/**
 * `policy`'s overrides with the identifier on `change.tier` where the policy has that tier, and on
 * none where it has not (a plan moved away from it); undefined when nothing changes. An override
 * that also sets a limit or a renewal day keeps them; one that only assigned a tier goes.
 */
export function overridesWithPlan(policy: Policy, change: PlanChange): Override[] | undefined {
  if (policy.tiers === null) return undefined;
  const kind = change.keyKind ?? policy.key;
  const tier =
    change.tier !== null && Object.hasOwn(policy.tiers, change.tier) ? change.tier : null;
  const current = ownOverride(policy, change.identifier, change.keyKind);
  const others = policy.overrides.filter((each) => each !== current);
  if (tier === null) {
    if (current === undefined || current.tier === null) return undefined;
    const kept = current.limit !== null || current.unlimited || current.anchorDay !== null;
    return kept ? [...others, { ...current, tier: null }] : others;
  }
  if (current?.tier === tier && current.expiresAt === change.expiresAt) return undefined;
  const assigned: Override = current ?? {
    identifier: change.identifier,
    prefix: false,
    keyKind: kind,
    limit: null,
    unlimited: false,
    tier: null,
    anchorDay: null,
    expiresAt: null,
  };
  return [...others, { ...assigned, tier, expiresAt: change.expiresAt }];
}
