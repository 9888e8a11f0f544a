import type { CallTarget } from '../engine/call.target.js';
import type { Charged } from '../engine/engine.types.js';
import type { Policy } from '../policy/policy.types.js';
import type { RequestTerms } from './request.plan.js';

/**
 * What the request path asks of the decider below it (SluiceService's, in nest/): call targets
 * resolved once, each decided, given back, released or settled on the target itself.
 */
export interface RequestDecider {
  /** The target of `policies` for an identifier counted as keyKind; throws on a bad identifier. */
  target(policies: readonly Policy[], identifier: string, keyKind: string): CallTarget;
  /**
   * Decides and charges: from the block cache, else the store, else the outage rule. What it
   * charged goes to `next`, a bad input or a failure to `failed`, exactly one of them, and their
   * answer is returned: at once where no I/O is needed, else in the store reply's promise.
   */
  charge<R>(
    target: CallTarget,
    terms: RequestTerms,
    next: (charged: Charged) => R | Promise<R>,
    failed: (error: unknown) => R | Promise<R>,
  ): R | Promise<R>;
  /** Gives back what `policies` (of the target) charged. */
  refund(target: CallTarget, terms: RequestTerms, policies: readonly Policy[]): Promise<void>;
  /** Ends the lease the target's concurrency policies hold slots under. */
  release(target: CallTarget, terms: RequestTerms, lease: string): Promise<void>;
  /** Charges `units` more (negative: gives back) to `policy`, one of the target's. */
  settle(target: CallTarget, terms: RequestTerms, policy: Policy, units: number): Promise<unknown>;
}
