import {
  ManualClock,
  systemClock,
  type Decision,
  type DecisionStatsStore,
  type PolicyDecision,
} from '@sluice/nest/internals';
import { DecisionTally } from '@sluice/nest/src/stats/decision.tally.js';
import { IdentifierTally } from '@sluice/nest/src/stats/identifier.tally.js';
import { LocalDecisionStats } from '@sluice/nest/src/stats/local-decision.stats.js';
import { RedisDecisionStats } from '@sluice/nest/src/stats/redis-decision.stats.js';
import { STATS_RETENTION_MS } from '@sluice/nest/src/stats/decision-stats.store.js';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalIdentifierStats } from '@sluice/nest/src/stats/local-identifier.stats.js';
import { uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';

afterAll(closeAll);

const SECOND = 1_000;
const START = Date.UTC(2026, 10, 24, 9, 0, 0);

function part(policy: string, overrides: Partial<PolicyDecision> = {}): PolicyDecision {
  return {
    policy,
    allowed: true,
    remaining: 1,
    limit: 5,
    resetMs: 0,
    retryAfterMs: 0,
    delayMs: 0,
    reason: 'ok',
    ...overrides,
  } as PolicyDecision;
}

function decision(parts: PolicyDecision[]): Decision {
  const refused = parts.find((each) => !each.allowed);
  return { ...(refused ?? parts[0]!), allowed: refused === undefined, policies: parts };
}

const stores: Array<[string, () => DecisionStatsStore]> = [
  ['a single Redis', () => new RedisDecisionStats(connectRedis(), uniquePrefix('stats'))],
  ['a Redis Cluster', () => new RedisDecisionStats(connectCluster(), uniquePrefix('stats'))],
  ['this process', () => new LocalDecisionStats(new ManualClock(START * 1_000).now)],
];

describe.each(stores)('decision counts in %s', (_, create) => {
  it('adds up what each instance sends per second, and rolls the seconds up per minute', async () => {
    const stats = create();
    const counts = (allowed: number, rejected: number) => ({
      allowed,
      rejected,
      blocked: 0,
      delayed: 0,
      shadowRejected: 0,
      storeError: 0,
    });
    await stats.add([
      { policy: 'reply', at: START, counts: counts(3, 1) },
      { policy: 'login', at: START, counts: counts(1, 0) },
    ]);
    // A second instance's share of the same second, and the next second.
    await stats.add([
      { policy: 'reply', at: START, counts: counts(2, 0) },
      { policy: 'reply', at: START + SECOND, counts: counts(0, 4) },
    ]);

    const seconds = await stats.read('reply', 'second', START + SECOND, 3);
    expect(
      seconds.map((each) => [each.at - START, each.counts.allowed, each.counts.rejected]),
    ).toEqual([
      [-SECOND, 0, 0],
      [0, 5, 1],
      [SECOND, 0, 4],
    ]);
    const minutes = await stats.read('reply', 'minute', START + SECOND, 1);
    expect(minutes[0]).toMatchObject({ at: START, counts: counts(5, 5) });
    const hours = await stats.read('reply', 'hour', START + SECOND, 2);
    expect(hours.map((each) => [each.at - START, each.counts])).toEqual([
      [-3_600_000, counts(0, 0)],
      [0, counts(5, 5)],
    ]);
    expect((await stats.read('login', 'second', START, 1))[0]!.counts).toEqual(counts(1, 0));
  });
});

describe.each([
  ['a single Redis', () => connectRedis()],
  ['a Redis Cluster', () => connectCluster()],
] as Array<[string, () => Redis | Cluster]>)('decision count keys on %s', (_, connect) => {
  it('live 15 minutes per second, 6 hours per minute and 7 days per hour', async () => {
    const client = connect();
    const prefix = uniquePrefix('stats-ttl');
    const stats = new RedisDecisionStats(client, prefix);
    const at = Math.floor(Date.now() / 60_000) * 60_000;
    await stats.add([
      {
        policy: 'reply',
        at,
        counts: {
          allowed: 1,
          rejected: 0,
          blocked: 0,
          delayed: 0,
          shadowRejected: 0,
          storeError: 0,
        },
      },
    ]);
    const secondTtl = await client.pttl(`${prefix}:{stats:reply}:s:${at}`);
    const minuteTtl = await client.pttl(`${prefix}:{stats:reply}:m:${at}`);
    const hourTtl = await client.pttl(
      `${prefix}:{stats:reply}:h:${Math.floor(at / 3_600_000) * 3_600_000}`,
    );
    expect(secondTtl).toBeGreaterThan(STATS_RETENTION_MS.second - 10_000);
    expect(secondTtl).toBeLessThanOrEqual(STATS_RETENTION_MS.second);
    expect(minuteTtl).toBeGreaterThan(STATS_RETENTION_MS.minute - 10_000);
    expect(minuteTtl).toBeLessThanOrEqual(STATS_RETENTION_MS.minute);
    expect(hourTtl).toBeGreaterThan(STATS_RETENTION_MS.hour - 10_000);
    expect(hourTtl).toBeLessThanOrEqual(STATS_RETENTION_MS.hour);
  });
});

describe('the decision tally of one instance', () => {
  it('counts each policy of a decision under one outcome, in the second it was decided', async () => {
    const clock = new ManualClock(START * 1_000);
    const stats = new LocalDecisionStats(clock.now);
    const tally = new DecisionTally(stats, clock.now);

    tally.count(decision([part('reply'), part('burst')]));
    tally.count(decision([part('reply', { allowed: false, reason: 'limit' }), part('burst')]));
    tally.count(decision([part('reply', { delayMs: 40 })]));
    clock.advance(SECOND * 1_000);
    tally.count(decision([part('reply', { allowed: false, reason: 'blocked' })]));
    tally.count(decision([part('reply', { allowed: false, reason: 'cache-block' })]));
    tally.count(decision([part('reply', { allowed: true, reason: 'shadow' })]));
    tally.count(decision([part('reply', { reason: 'store-error' })]));
    await tally.flush();

    const [first, second] = await stats.read('reply', 'second', START + SECOND, 2);
    expect(first!.counts).toEqual({
      allowed: 1,
      rejected: 1,
      blocked: 0,
      delayed: 1,
      shadowRejected: 0,
      storeError: 0,
    });
    expect(second!.counts).toEqual({
      allowed: 0,
      rejected: 0,
      blocked: 2,
      delayed: 0,
      shadowRejected: 1,
      storeError: 1,
    });
    // The policy that admitted a request another refused counts it neither way: the refusal is
    // the other policy's, counted once, and this one's charge was given back.
    expect((await stats.read('burst', 'second', START, 1))[0]!.counts).toMatchObject({
      allowed: 1,
      rejected: 0,
    });
  });

  it("counts a candidate's answers beside its policy's, by the candidate's own verdict", async () => {
    const clock = new ManualClock(START * 1_000);
    const stats = new LocalDecisionStats(clock.now);
    const tally = new DecisionTally(stats, clock.now);
    const withCandidate = (live: PolicyDecision, proposed: PolicyDecision): Decision => ({
      ...decision([live]),
      candidates: [proposed],
    });

    tally.count(withCandidate(part('reply'), part('reply')));
    tally.count(withCandidate(part('reply'), part('reply', { allowed: false, reason: 'limit' })));
    tally.count(withCandidate(part('reply'), part('reply', { allowed: false, reason: 'blocked' })));
    tally.count(withCandidate(part('reply', { allowed: false, reason: 'limit' }), part('reply')));
    // Outside the candidate's sample: counted live only.
    tally.count(decision([part('reply')]));
    await tally.flush();

    const [live] = await stats.read('reply', 'second', START, 1);
    const [candidate] = await stats.read('reply~c', 'second', START, 1);
    const [sampled] = await stats.read('reply~s', 'second', START, 1);
    expect(live!.counts).toMatchObject({ allowed: 4, rejected: 1, blocked: 0 });
    expect(candidate!.counts).toMatchObject({ allowed: 2, rejected: 1, blocked: 1 });
    // The live answers on the requests the candidate was decided for, to compare like with like.
    expect(sampled!.counts).toMatchObject({ allowed: 3, rejected: 1, blocked: 0 });
  });
});

describe('the decision tally of one instance, by tier', () => {
  it("counts a tier's decisions under the policy and again under the tier's own series", async () => {
    const clock = new ManualClock(START * 1_000);
    const stats = new LocalDecisionStats(clock.now);
    const tally = new DecisionTally(stats, clock.now);

    tally.count(decision([part('api', { tier: 'free' })]));
    tally.count(decision([part('api', { tier: 'free', allowed: false, reason: 'limit' })]));
    tally.count(decision([part('api', { tier: 'pro' })]));
    tally.count(decision([part('api')]));
    await tally.flush();

    const read = async (name: string) => (await stats.read(name, 'second', START, 1))[0]!.counts;
    expect(await read('api')).toMatchObject({ allowed: 3, rejected: 1 });
    expect(await read('api~t:free')).toMatchObject({ allowed: 1, rejected: 1 });
    expect(await read('api~t:pro')).toMatchObject({ allowed: 1, rejected: 0 });
  });
});

describe('the identifier tally of one instance', () => {
  it('keeps, per identifier, where a candidate and its policy answer differently', async () => {
    const stats = new LocalIdentifierStats();
    const tally = new IdentifierTally(stats, systemClock);
    const refused = { allowed: false, reason: 'limit' } as const;
    const answers: Array<[PolicyDecision, PolicyDecision, string]> = [
      [part('reply'), part('reply', refused), 'harry'],
      [part('reply'), part('reply', refused), 'harry'],
      [part('reply', refused), part('reply'), 'ron'],
      [part('reply'), part('reply'), 'hermione'],
    ];
    for (const [live, proposed, who] of answers) {
      tally.count({ ...decision([live]), candidates: [proposed] }, 'user', who);
    }
    await tally.flush();

    const differences = await stats.read('reply~c');
    expect(
      differences.map(({ identifier, passed, rejected }) => [identifier, passed, rejected]),
    ).toEqual([
      ['harry', 0, 2],
      ['ron', 1, 0],
    ]);
    expect((await stats.read('reply')).map((count) => count.identifier).sort()).toEqual([
      'harry',
      'hermione',
      'ron',
    ]);
  });
});
