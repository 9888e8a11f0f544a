import { BadRequestException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import type { CallTarget } from '../engine/call.target.js';
import type { Decision } from '../engine/decision.js';
import { parsePolicy } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import { charged, isDecisionLater } from './charged.step.js';
import type { RequestDecider } from './request.decider.js';
import { RequestHoldings } from './request.holdings.js';
import type { RequestPlan, RequestTerms } from './request.plan.js';

const slots = parsePolicy({ name: 'slots', algorithm: 'concurrency', limit: 6, periodMs: 60_000 });
const hourly = parsePolicy({ name: 'hourly', algorithm: 'gcra', limit: 5, periodMs: 3_600_000 });

const targetOf = (identifier: string, policies: Policy[]): CallTarget => ({
  key: `sluice:{user:${identifier}}`,
  identifier,
  stored: identifier,
  keyKind: 'user',
  policies,
});

const admitted = { allowed: true, policies: [] } as unknown as Decision;

/**
 * A decider whose store answers later: `ann` is admitted and takes a slot under lease `a.1`;
 * any other identifier fails with `failure`. It records what it is asked to give back.
 */
function laterDecider(failure: Error) {
  const calls: string[] = [];
  const decider: RequestDecider = {
    target: () => {
      throw new Error('not planned here');
    },
    charge: (target) => ({
      whenCharged: (next, failed) =>
        Promise.resolve().then(() =>
          target.identifier === 'ann'
            ? next({ decision: admitted, charged: [slots], lease: 'a.1' })
            : failed(failure),
        ),
    }),
    refund: (_target, _terms, policies) => {
      calls.push(`refund ${policies.map((policy) => policy.name).join('+')}`);
      return Promise.resolve();
    },
    release: (_target, _terms, lease) => {
      calls.push(`release ${lease}`);
      return Promise.resolve();
    },
    settle: () => Promise.resolve(),
  };
  return { calls, decider };
}

function planOf(calls: CallTarget[], terms: RequestTerms = {}): RequestPlan {
  return {
    kind: 'http',
    route: 'Reports.create',
    policies: [slots, hourly],
    names: ['slots', 'hourly'],
    routeTier: undefined,
    req: {},
    res: undefined,
    invocation: undefined,
    calls,
    terms,
  };
}

/** The charged step, then `next` with its decision, as the guard runs them. */
function decide<R>(
  plan: RequestPlan,
  holdings: RequestHoldings,
  decider: RequestDecider,
  next: (decision: Decision) => R,
): R | Promise<R> {
  const decision = charged(plan, holdings, decider);
  return isDecisionLater(decision) ? decision.whenDecided(next) : next(decision);
}

function holdingsOf(decider: RequestDecider): RequestHoldings {
  return new RequestHoldings(
    { req: {}, res: undefined },
    { decider, usageOf: undefined, warn: () => undefined },
  );
}

describe('the charged step', () => {
  it('hands the decision to the next step once the store answers, holding what it took', async () => {
    const { calls, decider } = laterDecider(new Error('unused'));
    const holdings = holdingsOf(decider);
    const seen: Decision[] = [];
    const plan = planOf([targetOf('ann', [slots])]);
    expect(isDecisionLater(charged(plan, holdingsOf(decider), decider))).toBe(true);
    const answer = decide(plan, holdings, decider, (decision) => {
      seen.push(decision);
      return 'answered';
    });
    await expect(answer).resolves.toBe('answered');
    expect(seen).toEqual([admitted]);
    expect(calls).toEqual([]);
    holdings.end('answered');
    expect(calls).toEqual(['release a.1']);
  });

  it('gives back what one identifier took when another fails, once, and rejects with the failure', async () => {
    const failure = new Error('Redis is failing');
    const { calls, decider } = laterDecider(failure);
    const holdings = holdingsOf(decider);
    const plan = planOf([targetOf('ann', [slots]), targetOf('bob', [hourly])]);
    const next = () => 'answered';
    await expect(decide(plan, holdings, decider, next)).rejects.toBe(failure);
    expect(calls).toEqual(['refund slots', 'release a.1']);
    holdings.end('failed');
    expect(calls).toEqual(['refund slots', 'release a.1']);
  });

  it('turns a cost no policy can take into a 400', async () => {
    const { decider } = laterDecider(new RangeError('cost: 9 is more than the limit of 5'));
    const holdings = holdingsOf(decider);
    const plan = planOf([targetOf('bob', [hourly])], { cost: 9 });
    await expect(decide(plan, holdings, decider, () => 'answered')).rejects.toBeInstanceOf(
      BadRequestException,
    );
  });

  it('leaves what the next step throws to the request: nothing is given back early', async () => {
    const { calls, decider } = laterDecider(new Error('unused'));
    const holdings = holdingsOf(decider);
    const broken = new Error('a header the response refused');
    const answer = decide(planOf([targetOf('ann', [slots])]), holdings, decider, () => {
      throw broken;
    });
    await expect(answer).rejects.toBe(broken);
    expect(calls).toEqual([]);
    holdings.end('failed');
    expect(calls).toEqual(['release a.1']);
  });
});
