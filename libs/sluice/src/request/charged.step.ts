import { BadRequestException } from '@nestjs/common';
import { summarize, type Decision } from '../engine/decision.js';
import type { CallTarget } from '../engine/call.target.js';
import type { Charged } from '../engine/engine.types.js';
import { isChargeLater, type ChargeLater, type RequestDecider } from './request.decider.js';
import type { RequestHoldings } from './request.holdings.js';
import type { RequestPlan } from './request.plan.js';

/**
 * Step 4: each call target decided, all at once (one store call each, or the block cache), and
 * what each charged taken by the request's holdings. A lone identifier's decision is the
 * request's: at once when it needed no I/O, else a decision still to come, whose step after runs
 * from the store reply's own promise. A decision that fails gives back what the others took, and
 * throws (or rejects) as the request should see it; what the step after throws is its own.
 */
export function charged(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
): Decision | DecisionLater {
  const { calls } = plan;
  const only = calls.length === 1 ? calls[0] : undefined;
  if (only === undefined) return eachLater(plan, holdings, decider);
  let result: Charged | ChargeLater;
  try {
    result = decider.charge(only, plan.terms);
    if (!isChargeLater(result)) {
      holdings.took(only, plan.terms, result);
      return result.decision;
    }
  } catch (error) {
    throw failed(error, plan, holdings);
  }
  return decidedLater(result, only, plan, holdings);
}

/** The lone identifier's charge still to come, as the request's decision still to come. */
function decidedLater(
  later: ChargeLater,
  only: CallTarget,
  plan: RequestPlan,
  holdings: RequestHoldings,
): DecisionLater {
  // Its own function: the closures' variables are allocated only on this path.
  return {
    whenDecided: (next) =>
      later.whenCharged(
        (each) => {
          try {
            holdings.took(only, plan.terms, each);
          } catch (error) {
            throw failed(error, plan, holdings);
          }
          return next(each.decision);
        },
        (error) => {
          throw failed(error, plan, holdings);
        },
      ),
  };
}

/**
 * A request's decision still to come: `whenDecided` runs the step after the charge with it, from
 * the store reply's own promise, and returns that step's answer.
 */
export interface DecisionLater {
  whenDecided<R>(next: (decision: Decision) => R | Promise<R>): R | Promise<R>;
}

/** True when the charged step answered with a decision still to come. */
export function isDecisionLater(result: Decision | DecisionLater): result is DecisionLater {
  return 'whenDecided' in result;
}

function eachLater(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
): DecisionLater {
  return { whenDecided: (next) => chargedEach(plan, holdings, decider).then(next) };
}

async function chargedEach(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
): Promise<Decision> {
  try {
    const decisions = await Promise.all(
      plan.calls.map((target) => {
        const result = decider.charge(target, plan.terms);
        const took = (each: Charged) => {
          holdings.took(target, plan.terms, each);
          return each.decision;
        };
        return Promise.resolve(
          isChargeLater(result) ? result.whenCharged(took, rejected) : took(result),
        );
      }),
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
