// Calendar quotas under a controlled clock: a leap February's end, a 23-hour day in New York and
// a 25-hour day in Paris, decided alike by the Lua on a single Redis and a Cluster and by the
// TypeScript twin in memory.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ManualClock, SluiceEngine, type PolicyInput } from '@sluice/nest/internals';
import { MemoryStore, RedisStore } from '@sluice/nest/engine';
import { uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';

afterAll(closeAll);

const HOUR_MS = 3_600_000;
const at = (iso: string) => new ManualClock(Date.parse(iso) * 1000);

const STORES = [
  {
    name: 'a single Redis',
    store: (clock: ManualClock) =>
      new RedisStore(connectRedis(inject('redisUrl')), { clock: clock.now }),
  },
  {
    name: 'a Redis Cluster',
    store: (clock: ManualClock) => new RedisStore(connectCluster(), { clock: clock.now }),
  },
  { name: 'memory', store: (clock: ManualClock) => new MemoryStore({ clock: clock.now }) },
];

const engineOn = (
  store: (clock: ManualClock) => RedisStore | MemoryStore,
  clock: ManualClock,
  policy: PolicyInput,
) =>
  new SluiceEngine({
    store: store(clock),
    prefix: uniquePrefix('calendar-clock'),
    policies: [policy],
    clock: clock.now,
  });

describe.each(STORES)('calendar quotas under a manual clock, on $name', ({ store }) => {
  it('a month in Paris ends at local midnight after a leap day, and credits end with it', async () => {
    // 23:30 in Paris on 29 February 2028.
    const clock = at('2028-02-29T22:30:00Z');
    const engine = engineOn(store, clock, {
      name: 'monthly',
      algorithm: 'fixed-window',
      limit: 2,
      calendar: { unit: 'month', timeZone: 'Europe/Paris' },
    });
    expect((await engine.consume('monthly', 'k')).allowed).toBe(true);
    await engine.grant('monthly', 'k', 1);
    expect((await engine.consume('monthly', 'k')).allowed).toBe(true);
    expect((await engine.consume('monthly', 'k')).allowed).toBe(true);
    const refused = await engine.consume('monthly', 'k');
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: HOUR_MS / 2 });
    clock.advance((HOUR_MS / 2) * 1000);
    // March: the count and the credit are gone.
    expect(await engine.quota('monthly', 'k')).toMatchObject({ used: 0, granted: 0, remaining: 2 });
    expect((await engine.consume('monthly', 'k')).remaining).toBe(1);
  });

  it('the day summer time starts in New York lasts 23 hours', async () => {
    // Midnight in New York on Sunday 14 March 2027, still on standard time (UTC-5).
    const clock = at('2027-03-14T05:00:00Z');
    const engine = engineOn(store, clock, {
      name: 'daily',
      algorithm: 'fixed-window',
      limit: 1,
      calendar: { unit: 'day', timeZone: 'America/New_York' },
    });
    expect((await engine.consume('daily', 'k')).allowed).toBe(true);
    expect(await engine.consume('daily', 'k')).toMatchObject({
      allowed: false,
      retryAfterMs: 23 * HOUR_MS,
    });
    clock.advance((23 * HOUR_MS - 1) * 1000);
    expect((await engine.consume('daily', 'k')).allowed).toBe(false);
    clock.advance(1000);
    expect((await engine.consume('daily', 'k')).allowed).toBe(true);
  });

  it('the day summer time ends in Paris lasts 25 hours', async () => {
    // Midnight in Paris on Sunday 31 October 2027, still on summer time (UTC+2).
    const clock = at('2027-10-30T22:00:00Z');
    const engine = engineOn(store, clock, {
      name: 'daily',
      algorithm: 'fixed-window',
      limit: 1,
      calendar: { unit: 'day', timeZone: 'Europe/Paris' },
    });
    expect((await engine.consume('daily', 'k')).allowed).toBe(true);
    expect(await engine.consume('daily', 'k')).toMatchObject({
      allowed: false,
      retryAfterMs: 25 * HOUR_MS,
    });
    clock.advance(25 * HOUR_MS * 1000);
    expect((await engine.consume('daily', 'k')).allowed).toBe(true);
  });

  it("renews a month on each identifier's own day: an operator's, else the app's", async () => {
    // 23:30 in Paris on 14 March 2028.
    const clock = at('2028-03-14T22:30:00Z');
    const engine = engineOn(store, clock, {
      name: 'billing',
      algorithm: 'fixed-window',
      limit: 1,
      calendar: { unit: 'month', timeZone: 'Europe/Paris' },
      overrides: [{ identifier: 'acct-15', anchorDay: 15 }],
    });
    for (const account of ['acct-15', 'acct-plain', 'acct-20']) {
      const anchor = account === 'acct-20' ? { anchorDay: 20 } : {};
      expect((await engine.consume('billing', account, anchor)).allowed).toBe(true);
    }
    // The override's 15th: half an hour away, whatever the app says.
    expect(await engine.consume('billing', 'acct-15', { anchorDay: 20 })).toMatchObject({
      allowed: false,
      retryAfterMs: HOUR_MS / 2,
    });
    // The policy's 1st: 1 April at midnight in Paris (summer time from 26 March).
    expect((await engine.consume('billing', 'acct-plain')).retryAfterMs).toBe(
      Date.parse('2028-03-31T22:00:00Z') - Date.parse('2028-03-14T22:30:00Z'),
    );
    // The app's 20th.
    expect((await engine.consume('billing', 'acct-20', { anchorDay: 20 })).retryAfterMs).toBe(
      Date.parse('2028-03-19T23:00:00Z') - Date.parse('2028-03-14T22:30:00Z'),
    );
    clock.advance((HOUR_MS / 2) * 1000);
    expect((await engine.consume('billing', 'acct-15')).allowed).toBe(true);
    expect((await engine.consume('billing', 'acct-plain')).allowed).toBe(false);
    expect(await engine.quota('billing', 'acct-20', { anchorDay: 20 })).toMatchObject({
      used: 1,
      resetAt: Date.parse('2028-03-19T23:00:00Z'),
    });
  });
});
