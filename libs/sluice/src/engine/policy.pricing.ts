import type { Clock } from '../clock/clock.js';
import type { Policy } from '../policy/policy.types.js';
import type { PolicySpec } from '../store/store.types.js';
import type { CallTarget } from './call.target.js';
import { inCandidateSample } from './candidate.sample.js';
import type { AppliedOverride } from './decision.js';
import { overridesOf } from './override.index.js';
import { PolicySpecCache, toCandidateSpec } from './policy-spec.js';

/**
 * What a request brings to the price of each policy: its cost, tier and renewal day, as the app
 * resolved them (the request plan's terms; docs/architecture.md, "One request, hop by hop").
 */
export interface PriceTerms {
  /** Units the request costs; absent: each policy's own cost. */
  cost?: number | undefined;
  /** The request's tier; an operator's override assigning one wins. */
  tier?: string | undefined;
  /** The identifier's renewal day for calendar month policies; an override's wins. */
  anchorDay?: number | undefined;
}

/** A policy priced for one request: its spec, and the override that set its terms. */
export interface Priced {
  policy: Policy;
  spec: PolicySpec;
  override: AppliedOverride | undefined;
}

const NO_PROPOSALS: never[] = [];

/**
 * Prices policies for one identifier: the override in force, the tier that applies, the spec the
 * store is sent, and the shadow candidates that ride along (docs/algorithms.md, "Tiers").
 */
export class PolicyPricing {
  private readonly specCache = new PolicySpecCache(() => this.nowMs());
  private readonly candidateSpecs = new PolicySpecCache(() => this.nowMs(), toCandidateSpec);

  constructor(private readonly clock: Clock) {}

  /** Override and candidate expiries are epoch ms. */
  nowMs(): number {
    return Math.floor(this.clock() / 1000);
  }

  /** The identifier's override in force, written for the kind of identifier it is counted as. */
  override(policy: Policy, target: CallTarget): AppliedOverride | undefined {
    if (policy.overrides.length === 0) return undefined;
    return overridesOf(policy).find(target.keyKind, target.identifier, this.nowMs());
  }

  /**
   * The policy as the store needs it for this request: its override's limit, else its tier's
   * (the override's, else the request's), else its own; the request's cost.
   */
  spec(policy: Policy, override: AppliedOverride | undefined, terms: PriceTerms): PolicySpec {
    const applied = tierOf(policy, override, terms.tier);
    return this.specCache.at(
      policy,
      override?.limit || rateLimit(policy, applied),
      terms.cost ?? policy.cost,
      applied,
      override?.anchorDay ?? terms.anchorDay,
    );
  }

  /**
   * Specs of `policies` and of their candidates: what refund and reset reach, so a candidate's
   * counts stay comparable with its policy's.
   */
  specs(
    target: CallTarget,
    terms: PriceTerms,
    policies: readonly Policy[] = target.policies,
  ): PolicySpec[] {
    const specs = policies.map((policy) => this.spec(policy, this.override(policy, target), terms));
    const proposed = this.proposals(target, terms, policies);
    return proposed.length === 0 ? specs : [...specs, ...proposed.map((each) => each.spec)];
  }

  /**
   * The candidates in force of `policies`, as specs for this identifier when it is in their
   * sample. A candidate that cannot be decided for it (its override is unlimited or a deny-list
   * entry, its mode is off, the cost does not fit it) is left out: a candidate never changes what
   * the live policies answer.
   */
  proposals(target: CallTarget, terms: PriceTerms, policies: readonly Policy[]): Priced[] {
    // The usual request has no candidate: no array is built for it.
    if (!policies.some((policy) => policy.candidate)) return NO_PROPOSALS;
    const found: Priced[] = [];
    for (const live of policies) {
      const candidate = live.candidate;
      if (!candidate || candidate.expiresAt <= this.nowMs()) continue;
      if (!inCandidateSample(target.identifier, candidate.samplePercent)) continue;
      const policy = candidate.policy;
      const override = this.override(policy, target);
      if (policy.mode === 'off' || override?.unlimited || override?.limit === 0) continue;
      try {
        const applied = tierOf(policy, override, terms.tier);
        const spec = this.candidateSpecs.at(
          policy,
          override?.limit || rateLimit(policy, applied),
          terms.cost ?? policy.cost,
          applied,
        );
        found.push({ policy, spec, override });
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
      }
    }
    return found;
  }
}

/**
 * The tier a policy decides a request at: the one an operator's override assigns, else the
 * request's, when the policy names it; undefined: the policy's own rate.
 */
function tierOf(
  policy: Policy,
  override: AppliedOverride | undefined,
  requested: string | undefined,
): string | undefined {
  const tiers = policy.tiers;
  if (tiers === null) return undefined;
  const name = override?.tier ?? requested;
  return name !== undefined && Object.hasOwn(tiers, name) ? name : undefined;
}

/** The limit of `tier` when one applies, else the policy's own. */
function rateLimit(policy: Policy, tier: string | undefined): number {
  return tier === undefined ? policy.limit : (policy.tiers?.[tier]?.limit ?? policy.limit);
}
