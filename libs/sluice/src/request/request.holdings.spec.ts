import { describe, expect, it } from 'vitest';
import type { CallTarget } from '../engine/call.target.js';
import { parsePolicy } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import type { RequestDecider } from './request.decider.js';
import { RequestHoldings } from './request.holdings.js';
import type { RequestTerms } from './request.plan.js';
import { reportUsage } from './usage.settlement.js';

const slots = parsePolicy({ name: 'slots', algorithm: 'concurrency', limit: 6, periodMs: 60_000 });
const tokens = parsePolicy({
  name: 'tokens',
  algorithm: 'fixed-window',
  limit: 1000,
  periodMs: 60_000,
  usage: { maxCost: 400 },
});
const logins = parsePolicy({
  name: 'logins',
  algorithm: 'gcra',
  limit: 5,
  periodMs: 60_000,
  count: 'failures',
});

/** A decider that records what it was asked to give back, release and settle. */
function recordingDecider() {
  const calls: string[] = [];
  const names = (policies: readonly Policy[]) => policies.map((policy) => policy.name).join('+');
  const decider: RequestDecider = {
    target: () => {
      throw new Error('not planned here');
    },
    charge: () => {
      throw new Error('not charged here');
    },
    refund: (_target, terms, policies) => {
      calls.push(`refund ${names(policies)} cost ${terms.cost ?? '-'}`);
      return Promise.resolve();
    },
    release: (_target, terms, lease) => {
      calls.push(`release ${lease} cost ${terms.cost ?? '-'}`);
      return Promise.resolve();
    },
    settle: (_target, _terms, policy, units) => {
      calls.push(`settle ${policy.name} ${units}`);
      return Promise.resolve();
    },
  };
  return { calls, decider };
}

const target = (policies: Policy[]): CallTarget => ({
  key: 'sluice:{user:ann}',
  identifier: 'ann',
  stored: 'ann',
  keyKind: 'user',
  policies,
});

function holdingsFor(req: object = {}) {
  const { calls, decider } = recordingDecider();
  const warnings: string[] = [];
  const holdings = new RequestHoldings(
    { req, res: undefined },
    { decider, usageOf: undefined, warn: (message) => warnings.push(message) },
  );
  return { calls, holdings, warnings };
}

describe('RequestHoldings', () => {
  it('releases a lease once with the cost it took, however many endings are reported', () => {
    const { calls, holdings } = holdingsFor();
    const terms: RequestTerms = { cost: 3 };
    holdings.took(target([slots]), terms, {
      decision: {} as never,
      charged: [slots],
      lease: 'a.1',
    });
    holdings.end('answered');
    holdings.end('left');
    holdings.giveBack();
    expect(calls).toEqual(['release a.1 cost 3']);
  });

  it('gives back every charge and slot of a refused request once, and nothing at its end', () => {
    const { calls, holdings } = holdingsFor();
    holdings.took(
      target([slots, logins]),
      {},
      {
        decision: {} as never,
        charged: [slots, logins],
        lease: 'a.2',
      },
    );
    holdings.giveBack();
    holdings.giveBack();
    holdings.end('answered');
    expect(calls).toEqual(['refund slots+logins cost -', 'release a.2 cost -']);
  });

  it('settles a call decided after the request ended as soon as it is taken', () => {
    const { calls, holdings } = holdingsFor();
    holdings.end('failed');
    holdings.took(target([slots]), {}, { decision: {} as never, charged: [slots], lease: 'a.3' });
    expect(calls).toEqual(['release a.3 cost -']);
    expect(holdings.closed).toBe(true);
  });

  it("gives a count: 'failures' charge back when answered, keeps it when failed", () => {
    const answered = holdingsFor();
    answered.holdings.took(target([logins]), {}, { decision: {} as never, charged: [logins] });
    answered.holdings.end('answered');
    expect(answered.calls).toEqual(['refund logins cost -']);
    const failed = holdingsFor();
    failed.holdings.took(target([logins]), {}, { decision: {} as never, charged: [logins] });
    failed.holdings.end('failed');
    expect(failed.calls).toEqual([]);
  });

  it('settles usage against what was reserved: the request cost getCost gave, not the policy cost', () => {
    const req = {};
    const { calls, holdings } = holdingsFor(req);
    holdings.took(target([tokens]), { cost: 50 }, { decision: {} as never, charged: [tokens] });
    reportUsage(req, 120);
    holdings.end('answered');
    expect(calls).toEqual(['settle tokens 70']);
  });

  it('charges a stream whose client left what it reported, at least its reservation', () => {
    const req = {};
    const { calls, holdings } = holdingsFor(req);
    holdings.took(target([tokens]), { cost: 50 }, { decision: {} as never, charged: [tokens] });
    reportUsage(req, 10);
    holdings.end('left');
    expect(calls).toEqual([]);
  });
});
