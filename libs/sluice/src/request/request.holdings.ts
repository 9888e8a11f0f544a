import type { CallTarget } from '../engine/call.target.js';
import type { Charged } from '../engine/engine.types.js';
import type { Policy } from '../policy/policy.types.js';
import type { RequestDecider } from './request.decider.js';
import type { RequestMatch, RequestTerms } from './request.plan.js';
import { settlement, usedUnits, type Ending } from './usage.settlement.js';

/** What one call of the request took: the policies it charged, the lease its slots are under. */
interface Holding {
  readonly target: CallTarget;
  readonly terms: RequestTerms;
  readonly charged: readonly Policy[];
  lease: string | undefined;
}

/** How the holdings reach the app: its `usageOf`, and where failures to give back are said. */
export interface HoldingsContext {
  readonly decider: RequestDecider;
  readonly usageOf:
    ((policy: string, request: unknown, response: unknown) => number | undefined) | undefined;
  warn(message: string): void;
}

/**
 * Everything one request holds — its charges, reservations and leases — given back or settled
 * exactly once, whatever ends it (docs/algorithms.md, "What a request holds"): refused by another
 * identifier or failed to decide (`giveBack`), or ended (`end`): answered, failed, or its client
 * gone. A call decided after the ending is settled as soon as it is taken.
 */
export class RequestHoldings {
  private readonly held: Holding[] = [];
  private ending: Ending | 'given back' | undefined;

  constructor(
    private readonly match: Pick<RequestMatch, 'req' | 'res'>,
    private readonly context: HoldingsContext,
  ) {}

  /** True once the request has ended or given everything back. */
  get closed(): boolean {
    return this.ending !== undefined;
  }

  /** Takes what a call's store call charged; settled at once when the request already ended. */
  took(target: CallTarget, terms: RequestTerms, { charged, lease }: Charged): void {
    if (charged.length === 0 && lease === undefined) return;
    const holding: Holding = { target, terms, charged, lease };
    const ending = this.ending;
    if (ending === undefined) this.held.push(holding);
    else if (ending === 'given back') this.giveBackOne(holding);
    else this.endOne(holding, ending);
  }

  /** Nothing the request took counts: refused by another identifier, or its decision threw. */
  giveBack(): void {
    if (this.ending !== undefined) return;
    this.ending = 'given back';
    for (const holding of this.held) this.giveBackOne(holding);
  }

  /**
   * The request ended: a `count: 'failures'` policy's charge given back when it was answered, its
   * slots released, its `usage` policies settled (docs/algorithms.md, "Concurrency" and "Charges
   * settled after the response").
   */
  end(ending: Ending): void {
    if (this.ending !== undefined) return;
    this.ending = ending;
    for (const holding of this.held) this.endOne(holding, ending);
  }

  private giveBackOne(holding: Holding): void {
    if (holding.charged.length > 0) this.refund(holding, holding.charged);
    this.release(holding);
  }

  private endOne(holding: Holding, ending: Ending): void {
    const { charged } = holding;
    if (ending === 'answered') {
      const forgiven = charged.filter(countsFailures);
      if (forgiven.length > 0) this.refund(holding, forgiven);
    }
    this.release(holding);
    for (const policy of charged) if (policy.usage !== null) this.settle(holding, policy, ending);
  }

  private refund({ target, terms }: Holding, policies: readonly Policy[]): void {
    this.context.decider
      .refund(target, terms, policies)
      .catch((error: unknown) => this.context.warn(`Refund failed: ${String(error)}`));
  }

  private release(holding: Holding): void {
    const lease = holding.lease;
    if (lease === undefined) return;
    holding.lease = undefined;
    this.context.decider
      .release(holding.target, holding.terms, lease)
      .catch((error: unknown) =>
        this.context.warn(`Release failed, the lease lapses by itself: ${String(error)}`),
      );
  }

  /** Charges (or gives back) what a `usage` policy comes to beyond its reservation. */
  private settle({ target, terms }: Holding, policy: Policy, ending: Ending): void {
    const { req, res } = this.match;
    let used: number | undefined;
    try {
      used = usedUnits(policy, req, res, this.context.usageOf);
    } catch (error) {
      this.context.warn(`usageOf failed, the reservation stands: ${String(error)}`);
    }
    const units = settlement(policy, ending, used, terms.cost ?? policy.cost);
    if (units === 0) return;
    this.context.decider
      .settle(target, terms, policy, units)
      .catch((error: unknown) => this.context.warn(`Settlement failed: ${String(error)}`));
  }
}

const countsFailures = (policy: Policy): boolean => policy.count === 'failures';
