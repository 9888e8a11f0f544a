import { BadRequestException } from '@nestjs/common';
import type { CallTarget } from '../engine/call.target.js';
import { summarize, type Decision } from '../engine/decision.js';
import type { RequestDecider } from './request.decider.js';
import type { RequestHoldings } from './request.holdings.js';
import type { RequestPlan } from './request.plan.js';

/**
 * Step 4: each call target decided, all at once (one store call each, or the block cache), and
 * what each charged taken by the request's holdings; a lone identifier's decision is the
 * request's. A decision that throws gives back what the others took.
 */
export async function charged(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
): Promise<Decision> {
  const { calls } = plan;
  try {
    const only = calls.length === 1 ? calls[0] : undefined;
    if (only !== undefined) {
      const result = await decider.charge(only, plan.terms);
      holdings.took(only, plan.terms, result);
      return result.decision;
    }
    const decisions = await Promise.all(
      calls.map((target) => decide(target, plan, holdings, decider)),
    );
    return summarize(
      decisions.flatMap((each) => each.policies),
      decisions.every((each) => each.allowed),
    );
  } catch (error) {
    holdings.giveBack();
    throw asInputError(error, plan);
  }
}

async function decide(
  target: CallTarget,
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
): Promise<Decision> {
  const result = await decider.charge(target, plan.terms);
  holdings.took(target, plan.terms, result);
  return result.decision;
}

/** A request that could never pass is a 400: a cost no policy can take. */
function asInputError(error: unknown, plan: RequestPlan): unknown {
  // getCost's answer does not fit a policy: the request could never pass.
  if (plan.terms.cost !== undefined && error instanceof RangeError) {
    return new BadRequestException(error.message);
  }
  return error;
}
