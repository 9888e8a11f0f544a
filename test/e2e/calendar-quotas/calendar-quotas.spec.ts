import { afterAll, describe, expect, inject, it } from 'vitest';
import { periodAt } from '@sluice/nest/src/clock/calendar.js';
import { SluiceService } from '@sluice/nest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { calendarApp } from './app.module.js';

afterAll(closeAll);

const STORES = [
  { name: 'Redis', connect: () => connectRedis(inject('redisUrl')) },
  { name: 'a Redis Cluster', connect: () => connectCluster() },
];

/** Seconds from now to the end of the period holding now, as a client reads Retry-After. */
function secondsToBoundary(calendar: Parameters<typeof periodAt>[1]): number {
  return (periodAt(Date.now(), calendar).end - Date.now()) / 1000;
}

describe.each(ADAPTERS)('calendar quotas on %s', (adapter) => {
  const startApp = closeAppsAfterEach();

  it.each(STORES)('refuse past the allowance until the next boundary, on $name', async (store) => {
    const { url } = await startApp(
      adapter,
      calendarApp({ redis: store.connect(), prefix: uniquePrefix('calendar') }),
    );
    const key = `key-${Date.now()}`;
    const ask = (path: string, plan?: string) =>
      fetch(`${url}/${path}`, {
        headers: { 'x-api-key': key, ...(plan === undefined ? {} : { 'x-plan': plan }) },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await ask('report')).status);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await ask('report');
    // The window announced is a day's usual length; the reset, the real boundary.
    expect(refused.headers.get('ratelimit-policy')).toBe('"reports-daily";q=2;w=86400');
    const retryAfter = Number(refused.headers.get('retry-after'));
    const toMidnight = secondsToBoundary({
      unit: 'day',
      timeZone: 'Europe/Paris',
      anchorDay: null,
    });
    // Whole seconds, rounded up, measured a moment before the test's own clock reading.
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(toMidnight) - 2);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(toMidnight) + 1);
    // The pro tier's allowance counts the same key's use: 4 in all, 2 already used.
    expect([(await ask('report', 'pro')).status, (await ask('report', 'pro')).status]).toEqual([
      200, 200,
    ]);
    expect((await ask('report', 'pro')).status).toBe(429);

    // A month renewed on the 15th in New York: Retry-After points at that boundary.
    expect((await ask('export')).status).toBe(200);
    const monthly = await ask('export');
    expect(monthly.status).toBe(429);
    const toRenewal = secondsToBoundary({
      unit: 'month',
      timeZone: 'America/New_York',
      anchorDay: 15,
    });
    expect(Math.abs(Number(monthly.headers.get('retry-after')) - toRenewal)).toBeLessThanOrEqual(3);
  });

  it.each(STORES)(
    'the headers count the credits granted for the period, on $name',
    async (store) => {
      const { app, url } = await startApp(
        adapter,
        calendarApp({ redis: store.connect(), prefix: uniquePrefix('calendar-credits') }),
      );
      const key = `key-${Date.now()}`;
      const ask = () => fetch(`${url}/report`, { headers: { 'x-api-key': key } });
      expect((await ask()).headers.get('ratelimit')).toMatch(/^"reports-daily";r=1;t=\d+$/);
      await app.get(SluiceService).grant('reports-daily', key, 5);
      const after = await ask();
      // A limit of 2 with 5 credits: 7 for the day, 2 of them used.
      expect(after.headers.get('ratelimit-policy')).toBe('"reports-daily";q=7;w=86400');
      expect(after.headers.get('ratelimit')).toMatch(/^"reports-daily";r=5;t=\d+$/);
      // A debit lowers what the day admits below the limit.
      await app.get(SluiceService).grant('reports-daily', key, -6);
      const debited = await ask();
      expect(debited.status).toBe(429);
      expect(debited.headers.get('ratelimit-policy')).toBe('"reports-daily";q=1;w=86400');
    },
  );

  it.each(STORES)(
    "renews a monthly quota on the customer's billing day, on $name",
    async (store) => {
      const { url } = await startApp(
        adapter,
        calendarApp({ redis: store.connect(), prefix: uniquePrefix('calendar-billing') }),
      );
      const key = `key-${Date.now()}`;
      const ask = (billingDay: string) =>
        fetch(`${url}/export`, { headers: { 'x-api-key': key, 'x-billing-day': billingDay } });
      expect((await ask('2')).status).toBe(200);
      const refused = await ask('2');
      expect(refused.status).toBe(429);
      const toRenewal = secondsToBoundary({
        unit: 'month',
        timeZone: 'America/New_York',
        anchorDay: 2,
      });
      expect(Math.abs(Number(refused.headers.get('retry-after')) - toRenewal)).toBeLessThanOrEqual(
        3,
      );
      // Not a day of the month: the policy's own 15th, whose count is its own.
      expect((await ask('40')).status).toBe(200);
    },
  );
});
