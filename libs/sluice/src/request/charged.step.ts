import { BadRequestException } from '@nestjs/common';
import { summarize, type Decision } from '../engine/decision.js';
import type { RequestDecider } from './request.decider.js';
import type { RequestHoldings } from './request.holdings.js';
import type { RequestPlan } from './request.plan.js';

/**
 * Step 4: each call target decided, all at once (one store call each, or the block cache), and
 * what each charged taken by the request's holdings; the decision then goes to `next`, the step
 * after this one. A lone identifier's decision reaches `next` at once when it needed no I/O, and
 * otherwise in the store reply's own promise, with no promise of this step's between them. A
 * decision that fails gives back what the others took, and throws (or rejects) as the request
 * should see it; what `next` throws is its own.
 */
export function charged<R>(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
  next: (decision: Decision) => R | Promise<R>,
): R | Promise<R> {
  const { calls } = plan;
  const only = calls.length === 1 ? calls[0] : undefined;
  if (only === undefined) return chargedEach(plan, holdings, decider).then(next);
  return decider.charge(
    only,
    plan.terms,
    (result) => {
      try {
        holdings.took(only, plan.terms, result);
      } catch (error) {
        throw failed(error, plan, holdings);
      }
      return next(result.decision);
    },
    (error) => {
      throw failed(error, plan, holdings);
    },
  );
}

async function chargedEach(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
): Promise<Decision> {
  try {
    const decisions = await Promise.all(
      plan.calls.map((target) =>
        Promise.resolve(
          decider.charge(
            target,
            plan.terms,
            (result) => {
              holdings.took(target, plan.terms, result);
              return result.decision;
            },
            rejected,
          ),
        ),
      ),
    );
    return summarize(
      decisions.flatMap((each) => each.policies),
      decisions.every((each) => each.allowed),
    );
  } catch (error) {
    throw failed(error, plan, holdings);
  }
}

function rejected(error: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what the decider failed with, passed on as it is
  return Promise.reject(error);
}

/** What the others took given back; the error as the request should see it. */
function failed(error: unknown, plan: RequestPlan, holdings: RequestHoldings): unknown {
  holdings.giveBack();
  return asInputError(error, plan);
}

/** A request that could never pass is a 400: a cost no policy can take. */
function asInputError(error: unknown, plan: RequestPlan): unknown {
  // getCost's answer does not fit a policy: the request could never pass.
  if (plan.terms.cost !== undefined && error instanceof RangeError) {
    return new BadRequestException(error.message);
  }
  return error;
}
