import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { RouteRegistry, ThrottleTier } from '@sluice/nest';
import { resolverCalls, tiersApp } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);
beforeEach(() => {
  resolverCalls.length = 0;
});

const REDIS = [
  ['one Redis', () => connectRedis()],
  ['a Redis Cluster', () => connectCluster()],
] as const;

interface Seen {
  status: number;
  policy: string | null;
}

/** GETs /quote `times` times with the API key and plan given. */
async function quotes(url: string, key: string, plan: string | undefined, times: number) {
  const seen: Seen[] = [];
  for (let i = 0; i < times; i++) {
    const headers: Record<string, string> = { 'x-api-key': key };
    if (plan !== undefined) headers['x-plan'] = plan;
    const response = await fetch(`${url}/quote`, { headers });
    await response.text();
    seen.push({ status: response.status, policy: response.headers.get('ratelimit-policy') });
  }
  return seen;
}

const admitted = (seen: Seen[]) => seen.filter((each) => each.status === 200).length;

describe.each(ADAPTERS)('tiers resolved per request on %s', (adapter) => {
  describe.each(REDIS)('with %s', (_, connect) => {
    const start = async () =>
      (await startApp(adapter, tiersApp({ redis: connect(), prefix: uniquePrefix('tiers') }))).url;

    it('asks the resolver once per request for two tiered policies, and announces the tier quota', async () => {
      const url = await start();
      const seen = await quotes(url, 'k-pro', 'pro', 6);
      expect(seen.map((each) => each.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(resolverCalls).toEqual(Array<string>(6).fill('pro'));
      expect(seen[0]?.policy).toBe('"quote-burst";q=5;w=60, "quote-hourly";q=50;w=3600');
      const free = await quotes(url, 'k-free', 'free', 4);
      expect(free.map((each) => each.status)).toEqual([200, 200, 200, 429]);
      expect(free[0]?.policy).toBe('"quote-burst";q=3;w=60, "quote-hourly";q=30;w=3600');
      await quotes(url, 'k-gold', 'gold', 1);
      // Each tier's decisions are counted under its name; a name no policy has makes no series.
      const metrics = await (await fetch(`${url}/metrics`)).text();
      const tierSeries = metrics
        .split('\n')
        .filter((line) => line.startsWith('sluice_tier_decisions_total{'));
      expect(tierSeries.sort()).toEqual([
        'sluice_tier_decisions_total{policy="quote-burst",tier="free",outcome="allowed"} 3',
        'sluice_tier_decisions_total{policy="quote-burst",tier="free",outcome="rejected"} 1',
        'sluice_tier_decisions_total{policy="quote-burst",tier="pro",outcome="allowed"} 5',
        'sluice_tier_decisions_total{policy="quote-burst",tier="pro",outcome="rejected"} 1',
        'sluice_tier_decisions_total{policy="quote-hourly",tier="free",outcome="allowed"} 3',
        'sluice_tier_decisions_total{policy="quote-hourly",tier="pro",outcome="allowed"} 5',
      ]);
    });

    it("lists the @ThrottleTier('pro') route with its tier among the app's routes", async () => {
      const { app } = await startApp(
        adapter,
        tiersApp({ redis: connect(), prefix: uniquePrefix('tiers') }),
      );
      const tiers = app
        .get(RouteRegistry)
        .all()
        .map((route) => [route.path, route.tier]);
      expect(tiers).toEqual(
        expect.arrayContaining([
          ['/quote', null],
          ['/partner-quote', 'pro'],
        ]),
      );
    });

    it("decides a @ThrottleTier('pro') route at pro without asking the resolver", async () => {
      const url = await start();
      const statuses: number[] = [];
      let policy: string | null = null;
      for (let i = 0; i < 6; i++) {
        const response = await fetch(`${url}/partner-quote`, {
          headers: { 'x-api-key': 'k-partner', 'x-plan': 'free' },
        });
        statuses.push(response.status);
        policy ??= response.headers.get('ratelimit-policy');
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect(policy).toBe('"quote-burst";q=5;w=60, "quote-hourly";q=50;w=3600');
      expect(resolverCalls).toEqual([]);
      expect(() => ThrottleTier('not a tier!')).toThrow(
        /@ThrottleTier\(\): "not a tier!" is not a tier name/,
      );
    });

    it('keeps the count when a key moves from pro to free mid-window', async () => {
      const url = await start();
      expect(admitted(await quotes(url, 'k-moves', 'pro', 4))).toBe(4);
      // Free allows 3 a minute and 4 are used: refused, not reset.
      expect(admitted(await quotes(url, 'k-moves', 'free', 2))).toBe(0);
      expect(admitted(await quotes(url, 'k-moves', 'pro', 2))).toBe(1);
    });

    it("decides at the policies' own rates when the resolver fails, is late or answers no tier", async () => {
      const url = await start();
      for (const plan of ['boom', 'slow', 'gold', 'not a tier!', undefined]) {
        const seen = await quotes(url, `k-${String(plan)}`, plan, 3);
        expect(
          seen.map((each) => each.status),
          String(plan),
        ).toEqual([200, 200, 429]);
        expect(seen[0]?.policy, String(plan)).toBe(
          '"quote-burst";q=2;w=60, "quote-hourly";q=20;w=3600',
        );
      }
    });
  });
});
