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
   * Decides and charges: from the block cache, else the store, else the outage rule; at once
   * where no I/O is needed, else a charge still to come.
   */
  charge(target: CallTarget, terms: RequestTerms): Charged | ChargeLater;
  /** Gives back what `policies` (of the target) charged. */
  refund(target: CallTarget, terms: RequestTerms, policies: readonly Policy[]): Promise<void>;
  /** Ends the lease the target's concurrency policies hold slots under. */
  release(target: CallTarget, terms: RequestTerms, lease: string): Promise<void>;
  /** Charges `units` more (negative: gives back) to `policy`, one of the target's. */
  settle(target: CallTarget, terms: RequestTerms, policy: Policy, units: number): Promise<unknown>;
}

/**
 * A charge whose store reply is still to come. `whenCharged` runs `next` with what it charged,
 * or `failed` with a bad input or a failure the outage rule does not decide (exactly one of them),
 * from the reply's own promise, and returns their answer: between the store and the step after
 * the charge there is no promise of the decider's own.
 */
export interface ChargeLater {
  whenCharged<R>(
    next: (charged: Charged) => R | Promise<R>,
    failed: (error: unknown) => R | Promise<R>,
  ): R | Promise<R>;
}

/** True when `charge` answered with a charge still to come. */
export function isChargeLater(result: Charged | ChargeLater): result is ChargeLater {
  return 'whenCharged' in result;
}
