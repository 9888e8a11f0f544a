import type { Policy } from '../policy/policy.types.js';
import type { SluiceStore } from '../store/store.types.js';
import type { CallTarget } from './call.target.js';
import { holdsSlots } from './consume.operation.js';
import type { PolicyPricing, PriceTerms } from './policy.pricing.js';
import { runOn } from './store.calls.js';

/** What `lease` must look like: as a consume makes them. */
const LEASE = /^[a-z0-9]{1,16}\.[a-z0-9]{1,16}$/;

/**
 * Gives back what an admitted request holds: the slots of its concurrency policies (a lease) and,
 * when it turns out not to count, its charges (docs/algorithms.md, "Concurrency").
 */
export class LeaseOperations {
  constructor(
    private readonly store: SluiceStore,
    private readonly pricing: PolicyPricing,
  ) {}

  /**
   * Ends a lease: the slots its concurrency policies among `policies` held, as many as the
   * request's cost took. Other policies are left as they are; releasing twice does nothing more.
   */
  async release(
    target: CallTarget,
    lease: string,
    terms: PriceTerms,
    policies: readonly Policy[] = target.policies,
  ): Promise<void> {
    if (!LEASE.test(lease)) {
      throw new RangeError(`lease: must be a lease consume gave, got ${JSON.stringify(lease)}`);
    }
    const held = policies.filter(holdsSlots);
    if (held.length === 0) return;
    // Their candidates took slots under the same lease.
    const specs = this.pricing.specs(target, terms, held).filter(holdsSlots);
    await runOn(this.store, 'release', target, specs, { lease });
  }

  /** Gives back what `policies` charged (and their candidates): a request that does not count. */
  async refund(
    target: CallTarget,
    terms: PriceTerms,
    policies: readonly Policy[] = target.policies,
  ): Promise<void> {
    await runOn(this.store, 'refund', target, this.pricing.specs(target, terms, policies));
  }
}
