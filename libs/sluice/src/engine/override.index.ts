import type { Policy } from '../policy/policy.types.js';

type Override = Policy['overrides'][number];

/**
 * A policy's overrides, indexed once per policy object: exact ones by key kind and identifier,
 * prefix ones per key kind, longest first. A request finds its exact override, else the longest
 * prefix that starts its identifier, whichever is in force (docs/algorithms.md, overrides).
 */
export class OverrideIndex {
  private readonly exact = new Map<string, Override>();
  private readonly prefixes = new Map<string, Override[]>();

  constructor(overrides: readonly Override[]) {
    for (const override of overrides) {
      if (!override.prefix) {
        this.exact.set(`${override.keyKind}\u0000${override.identifier}`, override);
        continue;
      }
      const ofKind = this.prefixes.get(override.keyKind);
      if (ofKind === undefined) this.prefixes.set(override.keyKind, [override]);
      else ofKind.push(override);
    }
    for (const ofKind of this.prefixes.values()) {
      ofKind.sort((a, b) => b.identifier.length - a.identifier.length);
    }
  }

  /** The override in force at `nowMs` (epoch ms) for this identifier of this kind, if any. */
  find(keyKind: string, identifier: string, nowMs: number): Override | undefined {
    const exact = this.exact.get(`${keyKind}\u0000${identifier}`);
    if (exact !== undefined && inForce(exact, nowMs)) return exact;
    const ofKind = this.prefixes.get(keyKind);
    if (ofKind === undefined) return undefined;
    return ofKind.find(
      (override) => identifier.startsWith(override.identifier) && inForce(override, nowMs),
    );
  }
}

const inForce = (override: Override, nowMs: number) =>
  override.expiresAt === null || override.expiresAt > nowMs;

const indexes = new WeakMap<Policy, OverrideIndex>();

/** The index of `policy`'s overrides, built on first use: a policy object never changes. */
export function overridesOf(policy: Policy): OverrideIndex {
  let index = indexes.get(policy);
  if (index === undefined) {
    index = new OverrideIndex(policy.overrides);
    indexes.set(policy, index);
  }
  return index;
}
