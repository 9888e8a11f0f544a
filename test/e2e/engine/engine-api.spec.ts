// The framework-free API (SluiceEngine), the same suite on a real single Redis server and on the
// in-memory store.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  ManualClock,
  PolicyValidationError,
  SluiceEngine,
  UnknownPolicyError,
  type Decision,
  type PolicyInput,
} from '@sluice/nest/internals';
import { MemoryStore, RedisStore } from '@sluice/nest/engine';
import { closeAll, connectRedis, filePrefixes } from '../../support/redis.clients.js';

const prefixes = filePrefixes('api');
let redis: Redis;
beforeAll(() => {
  redis = connectRedis();
});
afterAll(async () => {
  await prefixes.removeAll(redis);
  await closeAll();
});

interface Make {
  (options?: {
    clock?: ManualClock;
    /** The engine's own clock (override and candidate expiry), µs. */
    engineClock?: () => number;
    policies?: PolicyInput[];
  }): SluiceEngine;
}

const STORES: Array<[string, Make]> = [
  [
    'RedisStore (single server)',
    ({ clock, engineClock, policies } = {}) =>
      new SluiceEngine({
        store: new RedisStore(redis, clock ? { clock: clock.now } : {}),
        prefix: prefixes.next(),
        ...(engineClock ? { clock: engineClock } : {}),
        ...(policies ? { policies } : {}),
      }),
  ],
  [
    'RedisStore (single server, EVALSHA)',
    ({ clock, engineClock, policies } = {}) =>
      new SluiceEngine({
        store: new RedisStore(redis, { ...(clock ? { clock: clock.now } : {}), scripting: 'eval' }),
        prefix: prefixes.next(),
        ...(engineClock ? { clock: engineClock } : {}),
        ...(policies ? { policies } : {}),
      }),
  ],
  [
    'MemoryStore',
    ({ clock, engineClock, policies } = {}) =>
      new SluiceEngine({
        store: new MemoryStore(clock ? { clock: clock.now } : {}),
        ...(engineClock ? { clock: engineClock } : {}),
        ...(policies ? { policies } : {}),
      }),
  ],
];

const MINUTE = 60_000;
const HOUR = 3_600_000;

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe.each(STORES)('SluiceEngine on %s', (_, make) => {
  describe('isActionAllowed', () => {
    it("twenty calls of isActionAllowed('Harry', 'reply', 60, 5): five true, then fifteen false", async () => {
      const engine = make();
      const answers: boolean[] = [];
      for (let i = 0; i < 20; i++)
        answers.push(await engine.isActionAllowed('Harry', 'reply', 60, 5));
      expect(answers).toEqual([...Array<boolean>(5).fill(true), ...Array<boolean>(15).fill(false)]);
    });

    it('counts each user and each action separately', async () => {
      const engine = make();
      for (let i = 0; i < 5; i++) await engine.isActionAllowed('Harry', 'reply', 60, 5);
      expect(await engine.isActionAllowed('Harry', 'reply', 60, 5)).toBe(false);
      expect(await engine.isActionAllowed('Ron', 'reply', 60, 5)).toBe(true);
      expect(await engine.isActionAllowed('Harry', 'like', 60, 5)).toBe(true);
      // a different limit is a different rule
      expect(await engine.isActionAllowed('Harry', 'reply', 60, 6)).toBe(true);
    });

    it('refuses a bad actionKey', async () => {
      const engine = make();
      for (const actionKey of ['', 'a b', 'x{y}', 'a'.repeat(33), 'a:b']) {
        const error = await rejection(engine.isActionAllowed('Harry', actionKey, 60, 5));
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toMatch(/^actionKey/);
      }
    });

    it('refuses a bad period or count, naming the argument', async () => {
      const engine = make();
      for (const periodSec of [0, -1, Number.NaN, Infinity, 0.0001, 1e9]) {
        const error = await rejection(engine.isActionAllowed('Harry', 'reply', periodSec, 5));
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toMatch(/^periodSec/);
      }
      for (const maxCount of [0, -1, 1.5, Number.NaN, 100_001]) {
        const error = await rejection(engine.isActionAllowed('Harry', 'reply', 60, maxCount));
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toMatch(/^maxCount/);
      }
    });
  });

  describe('consume and peek', () => {
    it('consume counts down remaining; peek does not charge', async () => {
      const engine = make({
        policies: [{ name: 'reply', algorithm: 'sliding-log', limit: 5, periodMs: MINUTE }],
      });
      for (let i = 0; i < 10; i++) {
        const peeked = await engine.peek('reply', 'alice');
        expect(peeked).toMatchObject({ allowed: true, reason: 'ok', remaining: 5, limit: 5 });
      }
      const remaining: number[] = [];
      for (let i = 0; i < 5; i++) {
        const decision = await engine.consume('reply', 'alice');
        expect(decision).toMatchObject({
          allowed: true,
          reason: 'ok',
          policy: 'reply',
          algorithm: 'sliding-log',
        });
        remaining.push(decision.remaining);
      }
      expect(remaining).toEqual([4, 3, 2, 1, 0]);
      const peeked = await engine.peek('reply', 'alice');
      expect(peeked).toMatchObject({ allowed: false, reason: 'limit', remaining: 0 });
      const rejected = await engine.consume('reply', 'alice');
      expect(rejected).toMatchObject({ allowed: false, reason: 'limit', remaining: 0 });
      expect(rejected.retryAfterMs).toBeGreaterThan(MINUTE - 5_000);
      expect(rejected.retryAfterMs).toBeLessThanOrEqual(MINUTE);
    });

    it.each(ALGORITHMS)('%s: a cost charges that many units', async (algorithm) => {
      const engine = make({ policies: [{ name: 'p', algorithm, limit: 6, periodMs: HOUR }] });
      expect((await engine.consume('p', 'bob', { cost: 4 })).allowed).toBe(true);
      if (algorithm !== 'leaky-bucket') {
        expect((await engine.peek('p', 'bob')).remaining).toBe(2);
        expect((await engine.consume('p', 'bob', { cost: 3 })).allowed).toBe(false);
        expect((await engine.consume('p', 'bob', { cost: 2 })).allowed).toBe(true);
        expect((await engine.consume('p', 'bob')).allowed).toBe(false);
      }
    });
  });

  describe('refund', () => {
    // A concurrency slot comes back with its release, below, not with a refund.
    const RATES = ALGORITHMS.filter((algorithm) => algorithm !== 'concurrency');

    it.each(RATES)('%s: refund gives back what consume took', async (algorithm) => {
      const engine = make({ policies: [{ name: 'p', algorithm, limit: 3, periodMs: HOUR }] });
      let admitted = 0;
      while ((await engine.consume('p', 'carol')).allowed) admitted += 1;
      expect(admitted).toBeGreaterThanOrEqual(3);
      await engine.refund('p', 'carol');
      expect((await engine.consume('p', 'carol')).allowed).toBe(true);
      expect((await engine.consume('p', 'carol')).allowed).toBe(false);
      await engine.refund('p', 'carol', { cost: 2 });
      expect((await engine.consume('p', 'carol', { cost: 2 })).allowed).toBe(true);
      expect((await engine.consume('p', 'carol')).allowed).toBe(false);
    });

    it('concurrency: release gives back the slot its lease held, a refund does not', async () => {
      const engine = make({
        policies: [{ name: 'p', algorithm: 'concurrency', limit: 2, periodMs: HOUR }],
      });
      const first = await engine.consume('p', 'carol');
      const second = await engine.consume('p', 'carol');
      expect([first.allowed, second.allowed]).toEqual([true, true]);
      expect(first.lease).not.toBe(second.lease);
      expect((await engine.consume('p', 'carol')).allowed).toBe(false);
      await engine.refund('p', 'carol');
      expect((await engine.peek('p', 'carol')).remaining).toBe(0);
      await engine.release('p', 'carol', first.lease as string);
      // Released twice: nothing more comes back.
      await engine.release('p', 'carol', first.lease as string);
      expect((await engine.peek('p', 'carol')).remaining).toBe(1);
      expect((await engine.consume('p', 'carol')).allowed).toBe(true);
      expect((await engine.consume('p', 'carol')).allowed).toBe(false);
      await expect(engine.release('p', 'carol', 'not a lease')).rejects.toThrow(/lease/);
    });

    it('credits raise a quota for its period, debits lower it; both end with it', async () => {
      const clock = new ManualClock(1_800_000_000_000_000);
      const engine = make({
        clock,
        engineClock: clock.now,
        policies: [{ name: 'q', algorithm: 'fixed-window', limit: 2, periodMs: HOUR }],
      });
      expect((await engine.consume('q', 'dave')).allowed).toBe(true);
      expect(await engine.grant('q', 'dave', 3)).toMatchObject({
        used: 1,
        granted: 3,
        remaining: 4,
        limit: 2,
        tier: null,
      });
      for (let i = 0; i < 4; i++) expect((await engine.consume('q', 'dave')).allowed).toBe(true);
      expect((await engine.consume('q', 'dave')).allowed).toBe(false);
      expect(await engine.grant('q', 'dave', -2)).toMatchObject({
        used: 5,
        granted: 1,
        remaining: 0,
      });
      await expect(engine.grant('q', 'dave', 0)).rejects.toThrow(/amount/);
      await expect(engine.grant('q', 'dave', 1.5)).rejects.toThrow(/amount/);
      // The next window starts from the plain limit.
      clock.advance(HOUR * 1000);
      expect(await engine.quota('q', 'dave')).toMatchObject({ used: 0, granted: 0, remaining: 2 });
    });

    it('refund of an identifier never charged is harmless', async () => {
      const engine = make({
        policies: [{ name: 'p', algorithm: 'fixed-window', limit: 2, periodMs: HOUR }],
      });
      await engine.refund('p', 'nobody', { cost: 2 });
      expect((await engine.peek('p', 'nobody')).remaining).toBe(2);
    });
  });

  describe('reset, block, unblock', () => {
    const policies: PolicyInput[] = [
      { name: 'p', algorithm: 'fixed-window', limit: 2, periodMs: HOUR },
    ];

    it('reset clears the counters', async () => {
      const engine = make({ policies });
      await engine.consume('p', 'dan');
      await engine.consume('p', 'dan');
      expect((await engine.consume('p', 'dan')).allowed).toBe(false);
      await engine.reset('p', 'dan');
      expect((await engine.peek('p', 'dan')).remaining).toBe(2);
      expect((await engine.consume('p', 'dan')).allowed).toBe(true);
    });

    it("block rejects with reason 'blocked' and blocked.untilMs", async () => {
      const engine = make({ policies });
      expect((await engine.consume('p', 'eve')).allowed).toBe(true);
      const before = Date.now();
      const { untilMs } = await engine.block('p', 'eve', 30_000);
      expect(untilMs).toBeGreaterThanOrEqual(before + 30_000 - 1_000);
      expect(untilMs).toBeLessThanOrEqual(Date.now() + 30_000 + 1_000);
      for (const decide of [() => engine.consume('p', 'eve'), () => engine.peek('p', 'eve')]) {
        const decision = await decide();
        expect(decision.allowed).toBe(false);
        expect(decision.reason).toBe('blocked');
        expect(decision.blocked?.untilMs).toBe(untilMs);
        expect(decision.retryAfterMs).toBeGreaterThan(29_000);
        expect(decision.retryAfterMs).toBeLessThanOrEqual(30_000);
      }
      // other identifiers are not affected
      expect((await engine.consume('p', 'frank')).allowed).toBe(true);
    });

    it('reset clears counters but not blocks', async () => {
      const engine = make({ policies });
      await engine.consume('p', 'gail');
      await engine.consume('p', 'gail');
      await engine.block('p', 'gail', 30_000);
      await engine.reset('p', 'gail');
      expect((await engine.consume('p', 'gail')).reason).toBe('blocked');
      expect(await engine.unblock('p', 'gail')).toBe(true);
      // the counters were reset while blocked
      expect((await engine.consume('p', 'gail')).remaining).toBe(1);
    });

    it('unblock admits again and returns true; false when not blocked', async () => {
      const engine = make({ policies });
      expect(await engine.unblock('p', 'hank')).toBe(false);
      await engine.block('p', 'hank', 30_000);
      expect((await engine.consume('p', 'hank')).allowed).toBe(false);
      expect(await engine.unblock('p', 'hank')).toBe(true);
      const decision = await engine.consume('p', 'hank');
      expect(decision).toMatchObject({ allowed: true, reason: 'ok' });
      expect(decision.blocked).toBeUndefined();
      expect(await engine.unblock('p', 'hank')).toBe(false);
    });

    it('refuses a bad block duration', async () => {
      const engine = make({ policies });
      for (const durationMs of [0, -1, 1.5, Number.NaN, 366 * 86_400_000]) {
        const error = await rejection(engine.block('p', 'ian', durationMs));
        expect(error).toBeInstanceOf(RangeError);
        expect(error.message).toMatch(/^durationMs/);
      }
    });
  });

  describe('overrides', () => {
    const NOW = 1_800_000_000_000;
    const withOverrides = (overrides: PolicyInput['overrides']): PolicyInput[] => [
      { name: 'plan', algorithm: 'gcra', limit: 2, periodMs: HOUR, overrides },
    ];

    it('a higher limit applies to that identifier only, and the decision says so', async () => {
      const engine = make({ policies: withOverrides([{ identifier: '42', limit: 5 }]) });
      const vip: boolean[] = [];
      for (let i = 0; i < 7; i++) vip.push((await engine.consume('plan', '42')).allowed);
      expect(vip).toEqual([true, true, true, true, true, false, false]);
      const decision = await engine.peek('plan', '42');
      expect(decision.limit).toBe(5);
      expect(decision.override).toEqual({
        identifier: '42',
        prefix: false,
        keyKind: 'user',
        limit: 5,
        unlimited: false,
        tier: null,
        anchorDay: null,
        expiresAt: null,
      });

      const regular: boolean[] = [];
      for (let i = 0; i < 4; i++) regular.push((await engine.consume('plan', '43')).allowed);
      expect(regular).toEqual([true, true, false, false]);
      const other = await engine.peek('plan', '43');
      expect(other.limit).toBe(2);
      expect(other.override).toBeUndefined();
    });

    it("limit 0 denies the identifier: reason 'denylist'", async () => {
      const engine = make({ policies: withOverrides([{ identifier: 'spammer', limit: 0 }]) });
      for (const decide of [
        () => engine.consume('plan', 'spammer'),
        () => engine.peek('plan', 'spammer'),
      ]) {
        const decision = await decide();
        expect(decision).toMatchObject({ allowed: false, reason: 'denylist', policy: 'plan' });
        expect(decision.override?.limit).toBe(0);
        expect(decision.retryAfterMs).toBeGreaterThan(0);
      }
      expect((await engine.consume('plan', 'someone-else')).allowed).toBe(true);
    });

    it('unlimited always allows', async () => {
      const engine = make({ policies: withOverrides([{ identifier: 'ops', unlimited: true }]) });
      for (let i = 0; i < 50; i++) {
        const decision = await engine.consume('plan', 'ops');
        expect(decision.allowed).toBe(true);
        expect(decision.reason).toBe('ok');
        expect(decision.override?.unlimited).toBe(true);
      }
    });

    it('an expired override is ignored (expiry judged by the engine clock)', async () => {
      let now = NOW;
      const engine = make({
        engineClock: () => now * 1000,
        policies: withOverrides([
          { identifier: 'trial', limit: 5, expiresAt: NOW + MINUTE },
          { identifier: 'banned', limit: 0, expiresAt: new Date(NOW + MINUTE).toISOString() },
          { identifier: 'free', unlimited: true, expiresAt: NOW + MINUTE },
        ]),
      });
      // before expiry
      expect((await engine.peek('plan', 'trial')).limit).toBe(5);
      expect((await engine.peek('plan', 'trial')).override?.expiresAt).toBe(NOW + MINUTE);
      const banned = await engine.consume('plan', 'banned');
      expect(banned.reason).toBe('denylist');
      expect(banned.retryAfterMs).toBe(MINUTE);
      expect((await engine.consume('plan', 'free')).override?.unlimited).toBe(true);

      now = NOW + MINUTE; // expiresAt is exclusive: at that instant the override is gone
      const trial = await engine.peek('plan', 'trial');
      expect(trial.limit).toBe(2);
      expect(trial.override).toBeUndefined();
      const unbanned = await engine.consume('plan', 'banned');
      expect(unbanned).toMatchObject({ allowed: true, reason: 'ok' });
      expect(unbanned.override).toBeUndefined();
      const results: boolean[] = [];
      for (let i = 0; i < 3; i++) results.push((await engine.consume('plan', 'free')).allowed);
      // 'free' was never counted while unlimited: two admitted, then the limit
      expect(results).toEqual([true, true, false]);
    });
  });

  describe('tiers', () => {
    const plans = (overrides: PolicyInput['overrides'] = []): PolicyInput[] => [
      {
        name: 'api',
        algorithm: 'sliding-log',
        limit: 2,
        periodMs: HOUR,
        key: 'header:x-api-key',
        tiers: { free: { limit: 3 }, pro: { limit: 6 } },
        overrides,
      },
      { name: 'flat', algorithm: 'sliding-log', limit: 4, periodMs: HOUR, key: 'header:x-api-key' },
    ];
    const admitted = async (engine: SluiceEngine, key: string, times: number, tier?: string) => {
      const seen: boolean[] = [];
      for (let i = 0; i < times; i++) {
        seen.push((await engine.consume('api', key, tier === undefined ? {} : { tier })).allowed);
      }
      return seen.filter(Boolean).length;
    };

    it("decides at the request's tier, says which, and at its own rate without one", async () => {
      const engine = make({ policies: plans() });
      expect(await admitted(engine, 'k-pro', 8, 'pro')).toBe(6);
      expect(await admitted(engine, 'k-free', 5, 'free')).toBe(3);
      expect(await admitted(engine, 'k-none', 4)).toBe(2);
      // A tier the policy does not name: its own rate, no tier in the decision.
      expect(await admitted(engine, 'k-gold', 4, 'gold')).toBe(2);
      const decision = await engine.peek('api', 'k-pro', { tier: 'pro' });
      expect(decision).toMatchObject({ limit: 6, remaining: 0, tier: 'pro' });
      expect((await engine.peek('api', 'k-gold', { tier: 'gold' })).tier).toBeUndefined();
      // A policy without tiers ignores the request's tier, in the same call.
      const both = await engine.consume(['api', 'flat'], 'k-both', { tier: 'pro' });
      expect(both.policies.map((each) => [each.policy, each.limit, each.tier])).toEqual([
        ['api', 6, 'pro'],
        ['flat', 4, undefined],
      ]);
    });

    it('keeps the count when a key moves between tiers', async () => {
      const engine = make({ policies: plans() });
      expect(await admitted(engine, 'k', 5, 'pro')).toBe(5);
      // Moved to free (3 an hour) having used 5: refused until the log makes room.
      expect(await admitted(engine, 'k', 2, 'free')).toBe(0);
      expect((await engine.peek('api', 'k', { tier: 'free' })).remaining).toBe(0);
      // Back to pro: 1 of its 6 is left.
      expect(await admitted(engine, 'k', 3, 'pro')).toBe(1);
    });

    it("an operator's assignment wins over the request's tier, until it expires", async () => {
      const clock = new ManualClock(1_800_000_000_000_000);
      const engine = make({
        engineClock: clock.now,
        policies: plans([{ identifier: 'k-partner', tier: 'pro', expiresAt: 1_800_000_060_000 }]),
      });
      expect(await admitted(engine, 'k-partner', 4, 'free')).toBe(4);
      const decision = await engine.peek('api', 'k-partner', { tier: 'free' });
      expect(decision).toMatchObject({ tier: 'pro', limit: 6 });
      expect(decision.override).toMatchObject({ identifier: 'k-partner', tier: 'pro' });
      clock.advance(61_000_000);
      // Expired: the request's own tier again, against what it used.
      expect(await engine.peek('api', 'k-partner', { tier: 'free' })).toMatchObject({
        tier: 'free',
        limit: 3,
        remaining: 0,
      });
    });

    it('assigns every key that starts with a prefix, exact overrides and longer prefixes first', async () => {
      const engine = make({
        policies: plans([
          { identifier: 'partner-', prefix: true, tier: 'pro' },
          { identifier: 'partner-eu-', prefix: true, tier: 'free' },
          { identifier: 'partner-eu-9', limit: 1 },
          // Written for another kind of identifier: no key of this policy gets it.
          { identifier: 'partner-', prefix: true, keyKind: 'ip', unlimited: true },
        ]),
      });
      expect(await admitted(engine, 'partner-1', 8)).toBe(6);
      expect(await admitted(engine, 'partner-eu-1', 8)).toBe(3);
      expect(await admitted(engine, 'partner-eu-9', 3)).toBe(1);
      expect(await admitted(engine, 'partne', 3)).toBe(2);
      expect((await engine.peek('api', 'partner-2')).override).toMatchObject({
        identifier: 'partner-',
        prefix: true,
        tier: 'pro',
      });
    });

    it('refunds at the tier the request was charged at', async () => {
      const engine = make({ policies: plans() });
      expect(await admitted(engine, 'k', 6, 'pro')).toBe(6);
      await engine.refund('api', 'k', { tier: 'pro' });
      expect((await engine.peek('api', 'k', { tier: 'pro' })).remaining).toBe(1);
    });
  });

  describe('shadow mode', () => {
    it("never rejects, but reports reason 'shadow' past the limit", async () => {
      const engine = make({
        policies: [
          { name: 'trial', algorithm: 'sliding-window', limit: 2, periodMs: HOUR, mode: 'shadow' },
        ],
      });
      const reasons: string[] = [];
      for (let i = 0; i < 6; i++) {
        const decision = await engine.consume('trial', 'jack');
        expect(decision.allowed).toBe(true);
        reasons.push(decision.reason);
      }
      expect(reasons).toEqual(['ok', 'ok', 'shadow', 'shadow', 'shadow', 'shadow']);
    });

    it('a shadow policy beside an enforced one: only the enforced one can reject', async () => {
      const engine = make({
        policies: [
          { name: 'trial', algorithm: 'fixed-window', limit: 1, periodMs: HOUR, mode: 'shadow' },
          { name: 'real', algorithm: 'fixed-window', limit: 3, periodMs: HOUR },
        ],
      });
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await engine.consume(['trial', 'real'], 'kate'));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(decisions[1]?.reason).toBe('shadow');
      expect(decisions[3]).toMatchObject({ reason: 'limit', policy: 'real' });
    });

    it('a shadow policy still enforces a block set by hand, and only while it lasts', async () => {
      const clock = new ManualClock(1_700_000_000_000_000);
      const engine = make({
        clock,
        policies: [
          {
            name: 'trial',
            algorithm: 'fixed-window',
            limit: 100,
            periodMs: HOUR,
            mode: 'shadow',
          },
        ],
      });
      await engine.block('trial', 'mona', 60_000);
      expect(await engine.consume('trial', 'mona')).toMatchObject({
        allowed: false,
        reason: 'blocked',
      });
      // Another identifier, not blocked, passes as shadow mode lets everyone pass.
      expect((await engine.consume('trial', 'nell')).allowed).toBe(true);
      clock.advance(60_000_000);
      expect(await engine.consume('trial', 'mona')).toMatchObject({ allowed: true, reason: 'ok' });
      // Lifted early, it no longer refuses.
      await engine.block('trial', 'mona', 60_000);
      await engine.unblock('trial', 'mona');
      expect((await engine.consume('trial', 'mona')).allowed).toBe(true);
    });

    it('a shadow policy is never blocked by its penalty', async () => {
      const engine = make({
        policies: [
          {
            name: 'trial',
            algorithm: 'token-bucket',
            limit: 1,
            periodMs: HOUR,
            mode: 'shadow',
            penalty: { afterViolations: 1, blockMs: HOUR },
          },
        ],
      });
      for (let i = 0; i < 5; i++)
        expect((await engine.consume('trial', 'liam')).allowed).toBe(true);
    });

    it('a denylist override on a shadow policy reports, but does not reject', async () => {
      const engine = make({
        policies: [
          {
            name: 'trial',
            algorithm: 'fixed-window',
            limit: 5,
            periodMs: HOUR,
            mode: 'shadow',
            overrides: [{ identifier: 'suspect', limit: 0 }],
          },
        ],
      });
      const decision = await engine.consume('trial', 'suspect');
      expect(decision.allowed, 'shadow mode must never reject').toBe(true);
      expect(decision.reason).toBe('shadow');
    });

    it("a denylist override on a policy that is 'off' does not reject", async () => {
      const engine = make({
        policies: [
          {
            name: 'dormant',
            algorithm: 'fixed-window',
            limit: 5,
            periodMs: HOUR,
            mode: 'off',
            overrides: [{ identifier: 'suspect', limit: 0 }],
          },
        ],
      });
      expect((await engine.consume('dormant', 'suspect')).allowed).toBe(true);
    });

    it("mode 'off' allows everything without counting", async () => {
      const engine = make({
        policies: [{ name: 'off', algorithm: 'gcra', limit: 1, periodMs: HOUR, mode: 'off' }],
      });
      for (let i = 0; i < 5; i++) {
        expect(await engine.consume('off', 'mia')).toMatchObject({ allowed: true, reason: 'ok' });
      }
    });
  });

  describe('shadow candidates', () => {
    const candidate = (rules: Record<string, unknown>, expiresAt = Date.now() + HOUR) => ({
      rules: { algorithm: 'sliding-log', periodMs: MINUTE, ...rules },
      expiresAt,
      proposedBy: 'olga',
      proposedAt: new Date().toISOString(),
      baseVersion: 0,
    });
    const reply = (extra: Record<string, unknown> = {}) =>
      ({
        name: 'reply',
        algorithm: 'sliding-log',
        limit: 5,
        periodMs: MINUTE,
        ...extra,
      }) as PolicyInput;

    it('a tighter candidate refuses where live admits, and never refuses a request', async () => {
      const engine = make({ policies: [reply({ candidate: candidate({ limit: 3 }) })] });
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push(await engine.consume('reply', 'harry'));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(decisions.map((d) => d.candidates?.[0]?.reason)).toEqual([
        'ok',
        'ok',
        'ok',
        'limit',
        'limit',
        'limit',
      ]);
      expect(decisions[2]?.candidates?.[0]).toMatchObject({ policy: 'reply', limit: 3 });
      expect(decisions.every((d) => d.policies.length === 1)).toBe(true);
      // Live counted only its own requests: five of five.
      expect((await engine.peek('reply', 'harry')).policies[0]?.remaining).toBe(0);
    });

    it("a candidate that changes a tier is decided at the request's tier, beside live", async () => {
      const tiers = { free: { limit: 2 }, pro: { limit: 6 } };
      const engine = make({
        policies: [
          reply({
            tiers,
            candidate: candidate({ limit: 5, tiers: { ...tiers, pro: { limit: 3 } } }),
          }),
        ],
      });
      const decisions = [];
      for (let i = 0; i < 4; i++) {
        decisions.push(await engine.consume('reply', 'cho', { tier: 'pro' }));
      }
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true]);
      expect(decisions.map((d) => d.candidates?.[0]?.reason)).toEqual(['ok', 'ok', 'ok', 'limit']);
      expect(decisions[0]?.candidates?.[0]).toMatchObject({ tier: 'pro', limit: 3 });
      expect(decisions[0]).toMatchObject({ tier: 'pro', limit: 6 });
    });

    it('a looser candidate admits what live refuses, counting as if it were live', async () => {
      const engine = make({ policies: [reply({ limit: 2, candidate: candidate({ limit: 4 }) })] });
      const decisions = [];
      for (let i = 0; i < 5; i++) decisions.push(await engine.consume('reply', 'ron'));
      expect(decisions.map((d) => [d.allowed, d.candidates?.[0]?.reason])).toEqual([
        [true, 'ok'],
        [true, 'ok'],
        [false, 'ok'],
        [false, 'ok'],
        [false, 'limit'],
      ]);
    });

    it('is not charged when another live policy refuses the request', async () => {
      const engine = make({
        policies: [
          reply({ candidate: candidate({ limit: 3 }) }),
          { name: 'burst', algorithm: 'fixed-window', limit: 1, periodMs: HOUR },
        ],
      });
      const first = await engine.consume(['reply', 'burst'], 'neville');
      const second = await engine.consume(['reply', 'burst'], 'neville');
      expect([first.allowed, second.allowed]).toEqual([true, false]);
      expect(second.candidates?.[0]?.remaining).toBe(2);
      expect((await engine.peek('reply', 'neville')).candidates?.[0]?.remaining).toBe(2);
    });

    it("simulates the candidate's penalty without ever blocking the identifier", async () => {
      const penalty = { afterViolations: 1, blockMs: HOUR };
      const engine = make({
        policies: [reply({ limit: 10, candidate: candidate({ limit: 1, penalty }) })],
      });
      await engine.consume('reply', 'draco');
      const violating = await engine.consume('reply', 'draco');
      expect(violating.allowed).toBe(true);
      expect(violating.candidates?.[0]).toMatchObject({ reason: 'limit', blocked: { offence: 1 } });
      const next = await engine.consume('reply', 'draco');
      expect(next).toMatchObject({ allowed: true, reason: 'ok' });
      expect(next.blocked).toBeUndefined();
      expect(next.candidates?.[0]?.reason).toBe('blocked');
    });

    it('is no longer decided once expired, and reset reaches it', async () => {
      let now = Date.now();
      const engine = make({
        engineClock: () => now * 1000,
        policies: [reply({ candidate: candidate({ limit: 2 }, now + MINUTE) })],
      });
      await engine.consume('reply', 'luna');
      await engine.consume('reply', 'luna');
      expect((await engine.peek('reply', 'luna')).candidates?.[0]?.remaining).toBe(0);
      await engine.reset('reply', 'luna');
      expect((await engine.peek('reply', 'luna')).candidates?.[0]?.remaining).toBe(2);
      now += MINUTE;
      expect((await engine.consume('reply', 'luna')).candidates).toBeUndefined();
    });

    it('decides a sampled candidate for its share of identifiers, the same ones on every instance', async () => {
      const policies = [reply({ candidate: { ...candidate({ limit: 3 }), samplePercent: 30 } })];
      const first = make({ policies });
      const second = make({ policies });
      const users = Array.from({ length: 200 }, (_, index) => `user-${index}`);
      const sampled = async (engine: SluiceEngine) => {
        const decided: string[] = [];
        for (const user of users) {
          if ((await engine.consume('reply', user)).candidates !== undefined) decided.push(user);
        }
        return decided;
      };
      const onFirst = await sampled(first);
      expect(onFirst.length).toBeGreaterThanOrEqual(40);
      expect(onFirst.length).toBeLessThanOrEqual(80);
      expect(await sampled(first)).toEqual(onFirst);
      expect(await sampled(second)).toEqual(onFirst);
      // An identifier outside the sample has no candidate state to refund or reset either.
      const outside = users.find((user) => !onFirst.includes(user)) as string;
      expect((await first.peek('reply', outside)).candidates).toBeUndefined();
    });

    it('a candidate that fails validation names its field under candidate.rules', () => {
      const engine = make();
      let error: unknown;
      try {
        engine.policies.set(reply({ candidate: candidate({ limit: 0, segments: 4 }) }));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(PolicyValidationError);
      expect((error as PolicyValidationError).issues.map((issue) => issue.field).sort()).toEqual([
        'candidate.rules.limit',
        'candidate.rules.segments',
      ]);
    });
  });

  describe('shaping (leaky-bucket)', () => {
    it('delayMs is the wait to the nearest millisecond: a turn a few µs away is not held', async () => {
      const clock = new ManualClock(1_700_000_000_000_000);
      const engine = make({
        clock,
        // 2500 per second: one request every 400 µs, up to 20 queued
        policies: [
          { name: 'feed', algorithm: 'leaky-bucket', limit: 2500, periodMs: 1000, burst: 20 },
        ],
      });
      // Made in one turn, so Redis decides them in one FCALL: its keys' TTLs (a few ms of real
      // time, set from the test clock) cannot run out between them on a slow machine.
      const decisions: Array<Promise<Decision>> = [];
      for (let i = 0; i < 7; i++) decisions.push(engine.consume('feed', 'ola'));
      clock.advance(2_100);
      decisions.push(engine.consume('feed', 'ola'));
      const delays = (await Promise.all(decisions)).map((decision) => decision.delayMs);
      // waits of 0, 400, 800, 1200, 1600, 2000 and 2400 µs; then, 2.1 ms later, the queue
      // drains 700 µs from now: 0.7 ms rounds to 1
      expect(delays).toEqual([0, 0, 1, 1, 2, 2, 2, 1]);
    });
  });

  describe('penalties', () => {
    it('escalate: blocks of 1000, 2000, 3000 and again 3000 ms (ManualClock)', async () => {
      const clock = new ManualClock(1_700_000_000_000_000);
      const engine = make({
        clock,
        policies: [
          {
            name: 'login',
            algorithm: 'sliding-log',
            limit: 1,
            periodMs: HOUR,
            penalty: { afterViolations: 2, blockMs: 1000, escalation: 2, maxBlockMs: 3000 },
          },
        ],
      });
      const nowMs = () => clock.now() / 1000;
      expect((await engine.consume('login', 'nina')).allowed).toBe(true);

      const blocks: number[] = [];
      for (const [offence, expected] of [
        [1, 1000],
        [2, 2000],
        [3, 3000],
        [4, 3000],
      ] as const) {
        const first = await engine.consume('login', 'nina');
        expect(first).toMatchObject({ allowed: false, reason: 'limit' });
        expect(
          first.blocked,
          `violation 1 before offence ${offence} does not block`,
        ).toBeUndefined();
        clock.advance(10_000); // 10 ms: both violations fall within the period
        const second = await engine.consume('login', 'nina');
        expect(second.allowed).toBe(false);
        expect(second.blocked?.offence).toBe(offence);
        const duration = (second.blocked?.untilMs ?? 0) - nowMs();
        blocks.push(duration);
        expect(duration).toBe(expected);
        expect(second.retryAfterMs).toBeGreaterThanOrEqual(expected);

        // blocked until the end, to the millisecond
        clock.advance((expected - 1) * 1000);
        const during = await engine.consume('login', 'nina');
        expect(during).toMatchObject({ allowed: false, reason: 'blocked' });
        expect((during.blocked?.untilMs ?? 0) - nowMs()).toBe(1);
        clock.advance(1000);
        // the block is over; the sliding log still holds the first request, so the limit rejects
        const after = await engine.peek('login', 'nina');
        expect(after.reason).toBe('limit');
        // so the wait given during the block was the log's, not the block's: a caller who
        // honours it is not refused again, which would be a new offence
        expect(during.retryAfterMs).toBe(after.retryAfterMs + 1);
      }
      expect(blocks).toEqual([1000, 2000, 3000, 3000]);
    });

    it('forgetOffences: the next block is a first offence again, and a block in force ends', async () => {
      const clock = new ManualClock(1_700_000_000_000_000);
      const engine = make({
        clock,
        policies: [
          {
            name: 'login',
            algorithm: 'fixed-window',
            limit: 1,
            periodMs: 1000,
            penalty: { afterViolations: 1, blockMs: 1000, escalation: 2, forgetAfterMs: HOUR },
          },
        ],
      });
      const offenceOfNextBlock = async () => {
        clock.advance(10_000_000); // a new window, past any block
        expect((await engine.consume('login', 'pia')).allowed).toBe(true);
        return (await engine.consume('login', 'pia')).blocked?.offence;
      };
      expect(await offenceOfNextBlock()).toBe(1);
      expect(await offenceOfNextBlock()).toBe(2);
      // Lifting a block keeps the offence level.
      expect(await engine.unblock('login', 'pia')).toBe(true);
      expect(await offenceOfNextBlock()).toBe(3);
      await engine.forgetOffences('login', 'pia');
      // The block of offence 3 ended with it (its window is still full: the limit refuses).
      expect((await engine.peek('login', 'pia')).reason).toBe('limit');
      expect(await engine.unblock('login', 'pia')).toBe(false);
      expect(await offenceOfNextBlock()).toBe(1);
    });

    it('violations spread wider than the period do not add up', async () => {
      const clock = new ManualClock(1_700_000_000_000_000);
      const engine = make({
        clock,
        policies: [
          {
            name: 'p',
            algorithm: 'fixed-window',
            limit: 1,
            periodMs: 1000,
            penalty: { afterViolations: 2, blockMs: 5000 },
          },
        ],
      });
      for (let i = 0; i < 4; i++) {
        // one request and one violation per window: never two violations within one period
        clock.set(1_700_000_000_000_000 + i * 2_000_000);
        expect((await engine.consume('p', 'olga')).allowed).toBe(true);
        const rejected = await engine.consume('p', 'olga');
        expect(rejected.reason).toBe('limit');
        expect(rejected.blocked).toBeUndefined();
      }
    });
  });

  describe('several policies in one call', () => {
    it('are all-or-nothing: when one rejects, none is charged', async () => {
      const engine = make({
        policies: [
          { name: 'minute', algorithm: 'token-bucket', limit: 5, periodMs: MINUTE },
          { name: 'burst', algorithm: 'fixed-window', limit: 2, periodMs: HOUR },
          { name: 'log', algorithm: 'sliding-log', limit: 10, periodMs: HOUR },
        ],
      });
      const names = ['minute', 'burst', 'log'];
      expect((await engine.consume(names, 'pat')).allowed).toBe(true);
      const second = await engine.consume(names, 'pat');
      expect(second.allowed).toBe(true);
      expect(second.policy).toBe('burst'); // the one with the least left
      expect(second.remaining).toBe(0);
      for (let i = 0; i < 3; i++) {
        const rejected = await engine.consume(names, 'pat');
        expect(rejected).toMatchObject({ allowed: false, reason: 'limit', policy: 'burst' });
        expect(rejected.policies.map((p) => [p.policy, p.allowed])).toEqual([
          ['minute', true],
          ['burst', false],
          ['log', true],
        ]);
      }
      expect((await engine.peek('minute', 'pat')).remaining).toBe(3);
      expect((await engine.peek('log', 'pat')).remaining).toBe(8);
    });

    it('policies with different key kinds in one call are a clear error', async () => {
      const engine = make({
        policies: [
          { name: 'per-user', algorithm: 'fixed-window', limit: 5, periodMs: MINUTE, key: 'user' },
          { name: 'per-ip', algorithm: 'fixed-window', limit: 5, periodMs: MINUTE, key: 'ip' },
        ],
      });
      const error = await rejection(engine.consume(['per-user', 'per-ip'], '42'));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toContain('per-user counts by user');
      expect(error.message).toContain('per-ip counts by ip');
      // naming the kind makes it one decision again
      expect(
        (await engine.consume(['per-user', 'per-ip'], '42', { keyKind: 'user' })).allowed,
      ).toBe(true);
    });

    it('unknown policy names: UnknownPolicyError listing every missing name', async () => {
      const engine = make({
        policies: [{ name: 'defined', algorithm: 'gcra', limit: 5, periodMs: MINUTE }],
      });
      const error = await rejection(engine.consume(['nope', 'defined', 'missing'], 'quinn'));
      expect(error).toBeInstanceOf(UnknownPolicyError);
      expect((error as UnknownPolicyError).missing).toEqual(['nope', 'missing']);
      expect(error.message).toContain('nope');
      expect(error.message).toContain('missing');
      expect(error.message).not.toContain('defined');
      for (const call of [
        () => engine.peek('nope', 'quinn'),
        () => engine.refund('nope', 'quinn'),
        () => engine.reset('nope', 'quinn'),
        () => engine.block('nope', 'quinn', 1000),
        () => engine.unblock('nope', 'quinn'),
      ]) {
        expect(await rejection(call())).toBeInstanceOf(UnknownPolicyError);
      }
      const none = await rejection(engine.consume([], 'quinn'));
      expect(none).toBeInstanceOf(RangeError);
    });

    it('a policy named twice in one call is refused: it would be charged once for two', async () => {
      const engine = make({
        policies: [{ name: 'defined', algorithm: 'gcra', limit: 5, periodMs: MINUTE }],
      });
      const error = await rejection(engine.consume(['defined', 'defined'], 'quinn'));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toBe('policies: "defined" is named twice');
      expect((await engine.peek('defined', 'quinn')).remaining).toBe(5);
    });

    it('takes policies resolved from the registry as they are, with the same checks as names', async () => {
      const engine = make({
        policies: [
          { name: 'defined', algorithm: 'gcra', limit: 5, periodMs: MINUTE },
          { name: 'other', algorithm: 'fixed-window', limit: 2, periodMs: MINUTE },
        ],
      });
      const resolved = engine.policies.resolve(['defined', 'other']);
      // A later change does not reach a request that already resolved its policies.
      engine.policies.set({ name: 'defined', algorithm: 'gcra', limit: 1, periodMs: MINUTE });
      const decision = await engine.consume(resolved, 'quinn');
      expect(decision.policies.map((part) => [part.policy, part.limit, part.remaining])).toEqual([
        ['defined', 5, 4],
        ['other', 2, 1],
      ]);
      const twice = await rejection(engine.consume([resolved[1], resolved[1]] as never, 'quinn'));
      expect(twice.message).toBe('policies: "other" is named twice');
      const mixed = await rejection(engine.consume(['defined', resolved[1]] as never, 'quinn'));
      expect(mixed.message).toBe('policies: give names or resolved policies, not both');
      await engine.refund(resolved, 'quinn');
      expect((await engine.peek('other', 'quinn')).remaining).toBe(2);
    });

    it('a bad cost is a RangeError naming cost', async () => {
      const engine = make({
        policies: [
          { name: 'win', algorithm: 'fixed-window', limit: 5, periodMs: MINUTE },
          { name: 'bucket', algorithm: 'token-bucket', limit: 5, burst: 8, periodMs: MINUTE },
        ],
      });
      for (const [names, cost] of [
        ['win', 0],
        ['win', -1],
        ['win', 1.5],
        ['win', Number.NaN],
        ['win', Number.POSITIVE_INFINITY],
        ['win', 6],
        ['bucket', 9],
        [['win', 'bucket'], 6],
      ] as const) {
        for (const call of [
          () => engine.consume(names, 'rita', { cost }),
          () => engine.peek(names, 'rita', { cost }),
          () => engine.refund(names, 'rita', { cost }),
        ]) {
          const error = await rejection(call());
          expect(error, `cost ${cost} on ${String(names)}`).toBeInstanceOf(RangeError);
          expect(error.message).toMatch(/^cost/);
        }
      }
      // the burst, not the limit, bounds a bucket's cost
      expect((await engine.consume('bucket', 'rita', { cost: 8 })).allowed).toBe(true);
      // nothing was charged by the refused calls
      expect((await engine.peek('win', 'rita')).remaining).toBe(5);
    });
  });
});
