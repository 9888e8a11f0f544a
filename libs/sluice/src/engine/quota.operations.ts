import { ceilDiv } from '../algorithms/integer-math.js';
import { traitsOf } from '../algorithms/algorithm.traits.js';
import type { Clock } from '../clock/clock.js';
import type { Policy } from '../policy/policy.types.js';
import type { PolicySpec, SluiceStore } from '../store/store.types.js';
import type { CallTarget } from './call.target.js';
import type { PolicyPricing, PriceTerms } from './policy.pricing.js';
import type { Quota } from './engine.types.js';
import { runOn, type CallExtras } from './store.calls.js';

/** A grant's mark: letters and digits. */
const MARK = /^[A-Za-z0-9]{1,64}$/;

/** The most credits one grant may add or take away, and the most units one settlement moves. */
export const MAX_GRANT = 1_000_000_000;

/**
 * Quotas and credits: what an identifier's period holds, credits granted for it, and the units a
 * request settles after its response (docs/guide.md, "Credits" and "Charges settled after the
 * response"). Each works on one quota policy of a call target.
 */
export class QuotaOperations {
  constructor(
    private readonly store: SluiceStore,
    private readonly pricing: PolicyPricing,
    private readonly clock: Clock,
  ) {}

  /** Adds credits for the period now running (negative: debits); what the quota holds after. */
  async grant(
    target: CallTarget,
    amount: number,
    terms: PriceTerms,
    marked: Pick<CallExtras, 'once' | 'undo'> = {},
  ): Promise<Quota> {
    assertUnits('amount', amount);
    if (marked.once !== undefined && !MARK.test(marked.once)) {
      throw new RangeError(
        `once: must be 1 to 64 letters or digits, got ${JSON.stringify(marked.once)}`,
      );
    }
    return this.call('grant', target, quotaPolicy(target), amount, terms, marked);
  }

  /** What the quota holds in the period now running: used, remaining, credits. */
  async read(target: CallTarget, terms: PriceTerms): Promise<Quota> {
    return this.call('grant', target, quotaPolicy(target), 0, terms);
  }

  /**
   * Charges `units` more to `policy` (one of the target's) for a request already admitted
   * (negative: gives them back), past its limit if need be.
   */
  async settle(
    target: CallTarget,
    policy: Policy,
    units: number,
    terms: PriceTerms,
  ): Promise<Quota> {
    assertUnits('units', units);
    return this.call('settle', target, assertQuota(policy), units, terms);
  }

  private async call(
    op: 'grant' | 'settle',
    target: CallTarget,
    policy: Policy,
    amount: number,
    terms: PriceTerms,
    marked: Pick<CallExtras, 'once' | 'undo'> = {},
  ): Promise<Quota> {
    const override = this.pricing.override(policy, target);
    const spec = this.pricing.spec(policy, override, { ...terms, cost: undefined });
    const [outcome] = await runOn(this.store, op, target, [spec], { amount, ...marked });
    const { remaining = 0, reset = 0, quota } = outcome ?? {};
    return {
      policy: policy.name,
      identifier: target.identifier,
      used: quota?.used ?? 0,
      remaining,
      limit: spec.limit,
      granted: quota?.granted ?? 0,
      resetAt: periodEnd(spec, ceilDiv(this.clock() + reset, 1000)),
      tier: spec.tier ?? null,
    };
  }
}

/**
 * The boundary the period ends on, epoch ms: the one nearest `estimate` (this clock's reading
 * plus the wait Redis's clock gave), so the two clocks' skew does not move it off the boundary.
 */
function periodEnd(spec: PolicySpec, estimate: number): number {
  const calendar = spec.calendar;
  if (calendar !== undefined) {
    const { end, next } = calendar;
    return Math.abs(estimate - end) <= Math.abs(estimate - next) ? end : next;
  }
  return Math.round(estimate / spec.periodMs) * spec.periodMs;
}

function quotaPolicy(target: CallTarget): Policy {
  return assertQuota(target.policies[0] as Policy);
}

/** Credits and settlements apply to the algorithms that keep a quota. */
function assertQuota(policy: Policy): Policy {
  if (!traitsOf(policy.algorithm).quota) {
    throw new RangeError(
      `policy: ${policy.name} is a ${policy.algorithm} policy; credits apply to quotas (fixed-window)`,
    );
  }
  return policy;
}

function assertUnits(field: string, units: number): void {
  if (!Number.isSafeInteger(units) || Math.abs(units) > MAX_GRANT || units === 0) {
    throw new RangeError(
      `${field}: must be a non-zero integer from -${MAX_GRANT} to ${MAX_GRANT}, got ${units}`,
    );
  }
}
