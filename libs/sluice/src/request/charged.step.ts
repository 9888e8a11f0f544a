import { BadRequestException } from '@nestjs/common';
import type { CallTarget } from '../engine/call.target.js';
import type { Charged } from '../engine/engine.types.js';
import { summarize, type Decision } from '../engine/decision.js';
import type { RequestDecider } from './request.decider.js';
import type { RequestHoldings } from './request.holdings.js';
import type { RequestPlan } from './request.plan.js';

/**
 * Step 4: each call target decided, all at once (one store call each, or the block cache), and
 * what each charged taken by the request's holdings; a lone identifier's decision is the
 * request's, at once when it needed no I/O. A decision that fails gives back what the others
 * took.
 */
export function charged(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
): Decision | Promise<Decision> {
  const { calls } = plan;
  const only = calls.length === 1 ? calls[0] : undefined;
  if (only === undefined) return chargedEach(plan, holdings, decider);
  try {
    const result = decider.charge(only, plan.terms);
    if (result instanceof Promise) return chargedLater(result, only, plan, holdings);
    holdings.took(only, plan.terms, result);
    return result.decision;
  } catch (error) {
    throw failed(error, plan, holdings);
  }
}

async function chargedLater(
  pending: Promise<Charged>,
  target: CallTarget,
  plan: RequestPlan,
  holdings: RequestHoldings,
): Promise<Decision> {
  try {
    const result = await pending;
    holdings.took(target, plan.terms, result);
    return result.decision;
  } catch (error) {
    throw failed(error, plan, holdings);
  }
}

async function chargedEach(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
): Promise<Decision> {
  try {
    const decisions = await Promise.all(
      plan.calls.map((target) => decide(target, plan, holdings, decider)),
    );
    return summarize(
      decisions.flatMap((each) => each.policies),
      decisions.every((each) => each.allowed),
    );
  } catch (error) {
    throw failed(error, plan, holdings);
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
