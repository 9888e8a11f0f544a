import { Controller, Get, UseGuards } from '@nestjs/common';
import type { RecommendationView, ReplayView, TrafficProfileView } from '@sluice/admin/api';
import { ManualClock, SLUICE_CLOCK, SluiceGuard, Throttle } from '@sluice/nest';
import { IdentifierTally } from '@sluice/nest/src/stats/identifier.tally.js';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../support/nest-app.js';
import { useAdminApp } from './admin.fixture.js';

// GET /policies/:name/profile: how many requests each identifier made per window of the
// policy's period, read by a viewer (docs/operations.md, "Choosing a limit").

const HOUR_MS = 3_600_000;
/** A sliding log: Redis decides on its own clock, and no window boundary falls in a test. */
const PLANS = {
  name: 'plans',
  algorithm: 'sliding-log',
  limit: 3,
  periodMs: 60_000,
  key: 'header:x-api-key',
  tiers: { pro: { limit: 50 } },
} as const;

@Controller('plans')
@UseGuards(SluiceGuard)
class PlansController {
  @Get()
  @Throttle('plans')
  read(): string {
    return 'plan';
  }
}

/** A period shorter than the profile's shortest window (1 s). */
const QUICK = {
  name: 'quick',
  algorithm: 'fixed-window',
  limit: 5,
  periodMs: 500,
  key: 'header:x-api-key',
} as const;

/** A calendar quota: its profile's windows are its months. */
const MONTHLY = {
  name: 'monthly',
  algorithm: 'fixed-window',
  limit: 100,
  calendar: { unit: 'month', timeZone: 'UTC' },
  key: 'header:x-api-key',
} as const;

@Controller('metered')
@UseGuards(SluiceGuard)
class MeteredController {
  @Get('quick')
  @Throttle('quick')
  quick(): string {
    return 'quick';
  }

  @Get('monthly')
  @Throttle('monthly')
  monthly(): string {
    return 'monthly';
  }
}

describe.each(ADAPTERS)('the traffic profile through the admin API on %s', (adapter) => {
  // Half an hour into an hour, so the windows read end in it.
  const clock = new ManualClock((Math.floor(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS / 2) * 1000);
  const admin = useAdminApp(
    adapter,
    {
      policies: [PLANS, QUICK, MONTHLY],
      controllers: [PlansController, MeteredController],
      tiers: {
        resolve: (request) => (request as { headers: Record<string, string> }).headers['x-plan'],
      },
    },
    (builder) => builder.overrideProvider(SLUICE_CLOCK).useValue(clock.now),
  );

  const call = (key: string, plan?: string) =>
    fetch(`${admin.app.url}/plans`, {
      headers: { 'x-api-key': key, ...(plan === undefined ? {} : { 'x-plan': plan }) },
    });

  it('reads requests per identifier per window, refusals counted, each tier apart', async () => {
    const statuses: number[] = [];
    for (const [key, times, plan] of [
      ['key-a', 1],
      ['key-b', 2],
      ['key-c', 5],
      ['key-pro', 7, 'pro'],
    ] as const) {
      for (let n = 0; n < times; n++) statuses.push((await call(key, plan)).status);
    }
    // key-c's last two were refused by the limit of 3; they count in its profile all the same.
    expect(statuses.filter((status) => status === 429)).toHaveLength(2);
    await admin.app.app.get(IdentifierTally).flush();
    // The window ends, and 5 s later it is added up: a read folds it.
    clock.advance(66_000_000);

    const all = await admin.api<TrafficProfileView>('GET', '/policies/plans/profile', {
      as: 'viewer',
    });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body).toMatchObject({
      policy: 'plans',
      range: 'hour',
      tier: null,
      windowMs: 60_000,
      windows: 1,
      identifierWindows: 4,
      requests: 15,
      max: 7,
      percentiles: { p50: 2, p90: 7, p99: 7, p999: 7 },
      share: 1,
      limit: 3,
      periodMs: 60_000,
    });
    expect(
      all.body.busiest.map((each) => [each.identifier, each.tier, each.most, each.limit]),
    ).toEqual([
      ['key-pro', 'pro', 7, 50],
      ['key-c', null, 5, 3],
      ['key-b', null, 2, 3],
      ['key-a', null, 1, 3],
    ]);

    const pro = await admin.api<TrafficProfileView>(
      'GET',
      '/policies/plans/profile?tier=pro&range=day',
    );
    expect(pro.body).toMatchObject({ tier: 'pro', range: 'day', identifierWindows: 1, limit: 50 });
    const none = await admin.api<TrafficProfileView>('GET', '/policies/plans/profile?tier=-');
    expect(none.body).toMatchObject({ tier: '', identifierWindows: 3, requests: 8, limit: 3 });

    // The median (2 requests) as the limit: key-c's 5 and key-pro's 7 go over it by 3 and 5.
    const median = await admin.api<RecommendationView>(
      'GET',
      '/policies/plans/recommendation?percentile=50&headroom=0',
      { as: 'viewer' },
    );
    expect(median.status, JSON.stringify(median.body)).toBe(200);
    expect(median.body).toMatchObject({
      percentile: 50,
      headroom: 0,
      base: 2,
      limit: 2,
      currentLimit: 3,
      // A sliding log refuses at least what the profile's fixed windows show.
      exact: false,
      refused: { identifierWindows: 2, identifierWindowShare: 0.5, requests: 8 },
      refusedNow: { identifierWindows: 2, requests: 6 },
    });
    expect(median.body.refused.requestShare).toBeCloseTo(8 / 15, 6);
    expect(median.body.identifiers.map((each) => each.identifier)).toEqual(['key-pro', 'key-c']);
    // Over every tier of a tiered policy no one limit is proposed, so nothing is replayed.
    expect(median.body.replayed).toBeNull();
    // Requests of no tier at their median (2): the sliding log itself, on the record, refuses
    // key-c's third to fifth where live refused its fourth and fifth.
    const noTier = await admin.api<RecommendationView>(
      'GET',
      '/policies/plans/recommendation?tier=-&percentile=50&headroom=0',
    );
    expect(noTier.body).toMatchObject({
      limit: 2,
      replayed: { decided: 8, refused: 3, liveRefused: 2, newlyRefused: 1 },
    });
    // The default: p99 with 20 % headroom, 7 × 1.2 rounded up.
    const usual = await admin.api<RecommendationView>('GET', '/policies/plans/recommendation');
    expect(usual.body).toMatchObject({ percentile: 99, headroom: 20, base: 7, limit: 9 });
    expect(usual.body.refused.identifierWindows).toBe(0);

    // The recorded requests replayed through the rule as it is: what live refused, no more.
    const same = await admin.api<ReplayView>('POST', '/policies/plans/replay', {
      as: 'viewer',
      body: {},
    });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toMatchObject({
      records: 15,
      identifiers: 4,
      decided: 15,
      liveRefused: 2,
      refused: 2,
      newlyRefused: 0,
      newlyAdmitted: 0,
    });
    // A limit of 1 (pro keeps its 50): key-b's second and key-c's 2nd to 3rd are refused anew.
    const strict = await admin.api<ReplayView>('POST', '/policies/plans/replay', {
      body: { rule: { limit: 1 }, minutes: 5 },
    });
    expect(strict.body).toMatchObject({
      rule: { algorithm: 'sliding-log', limit: 1, periodMs: 60_000, tiers: { pro: { limit: 50 } } },
      refused: 5,
      newlyRefused: 3,
      newlyAdmitted: 0,
    });
    expect(
      strict.body.byIdentifier.map((each) => [each.identifier, each.liveRefused, each.refused]),
    ).toEqual([
      ['key-c', 2, 4],
      ['key-b', 0, 1],
      ['key-pro', 0, 0],
      ['key-a', 0, 0],
    ]);
    expect(strict.body.timeline.map((minute) => minute.refused)).toEqual([5]);
  });

  it.each([
    ['a minutes of 0', { minutes: 0 }, 'minutes'],
    ['a limit below 1', { rule: { limit: 0 } }, 'rule.limit'],
    ['an algorithm it cannot replay', { rule: { algorithm: 'concurrency' } }, 'rule.algorithm'],
    ['a field it does not take', { rule: { mode: 'off' } }, 'mode'],
  ])('refuses a replay with %s, naming the field', async (_label, body, field) => {
    const reply = await admin.api<{ message: string }>('POST', '/policies/plans/replay', {
      as: 'viewer',
      body,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain(field);
  });

  it.each([
    ['a range it does not know', '/policies/plans/profile?range=month', 400, 'range'],
    ['a tier the policy lacks', '/policies/plans/profile?tier=gold', 400, 'tier'],
    ['a tier name with a space', '/policies/plans/profile?tier=a%20b', 400, 'tier'],
    ['a field it does not take', '/policies/plans/profile?limit=3', 400, 'limit'],
    ['a percentile under 50', '/policies/plans/recommendation?percentile=40', 400, 'percentile'],
    [
      'a headroom that is not a number',
      '/policies/plans/recommendation?headroom=lots',
      400,
      'headroom',
    ],
    [
      'a limit for a period under a second with no record',
      '/policies/quick/recommendation',
      409,
      '500 ms',
    ],
  ])('refuses %s, naming the field', async (_label, path, status, field) => {
    const reply = await admin.api<{ message: string }>('GET', path, { as: 'viewer' });
    expect(reply.status).toBe(status);
    expect(reply.body.message).toContain(field);
  });

  it('answers 404 for a policy not in force', async () => {
    const reply = await admin.api<{ message: string }>('GET', '/policies/nope/profile');
    expect(reply.status).toBe(404);
    expect(reply.body.message).toContain('nope');
  });

  it('recommends for a period under a second from the record, and for a calendar month from the month that ended', async () => {
    const from = (path: string, key: string) =>
      fetch(`${admin.app.url}/metered/${path}`, { headers: { 'x-api-key': key } });
    for (const [key, times] of [
      ['key-1', 1],
      ['key-2', 2],
      ['key-3', 4],
    ] as const) {
      for (let n = 0; n < times; n++) {
        await from('quick', key);
        await from('monthly', key);
        await from('monthly', key);
      }
    }
    await admin.app.app.get(IdentifierTally).flush();

    // 500 ms is profiled per second; the record, on the test's clock, holds every request in
    // one 500 ms window: 1, 2 and 4 requests.
    const quick = await admin.api<RecommendationView>(
      'GET',
      '/policies/quick/recommendation?percentile=50&headroom=0',
      { as: 'viewer' },
    );
    expect(quick.status, JSON.stringify(quick.body)).toBe(200);
    expect(quick.body).toMatchObject({
      source: 'record',
      periodMs: 500,
      base: 2,
      limit: 2,
      exact: true,
      identifierWindows: 3,
      refused: { identifierWindows: 1, requests: 2 },
    });

    // The month replayed at 3: key-2's 4th and key-3's 4th to 8th refused, in the policy's months.
    const replay = await admin.api<ReplayView>('POST', '/policies/monthly/replay', {
      as: 'viewer',
      body: { rule: { limit: 3 }, minutes: 5 },
    });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body).toMatchObject({
      rule: { limit: 3, calendar: { unit: 'month', timeZone: 'UTC', anchorDay: null } },
      decided: 14,
      liveRefused: 0,
      refused: 6,
      // The record begins after the month did: who asked before it is not known.
      complete: false,
    });
    // Two minutes on, key-1 makes two more; a replay of the last minute counts those two, after
    // the two key-1 made before it in the same month: the 4th is refused at 3.
    clock.advance(120_000_000);
    await from('monthly', 'key-1');
    await from('monthly', 'key-1');
    await admin.app.app.get(IdentifierTally).flush();
    const lastMinute = await admin.api<ReplayView>('POST', '/policies/monthly/replay', {
      body: { rule: { limit: 3 }, minutes: 1 },
    });
    expect(lastMinute.body).toMatchObject({ records: 2, decided: 2, refused: 1 });
    const notFixed = await admin.api<{ message: string }>('POST', '/policies/monthly/replay', {
      body: { rule: { algorithm: 'gcra', calendar: { unit: 'day' } } },
    });
    expect(notFixed.status).toBe(400);
    expect(notFixed.body.message).toContain('rule.calendar');

    // Before the month ends there is no whole month to read.
    const early = await admin.api<TrafficProfileView>('GET', '/policies/monthly/profile');
    expect(early.body).toMatchObject({ calendar: 'month', windows: 0 });
    // Five seconds past the end of the month, the month is added up.
    const now = new Date(clock.now() / 1000);
    const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    clock.set((monthEnd + 6_000) * 1000);
    const profile = await admin.api<TrafficProfileView>('GET', '/policies/monthly/profile', {
      as: 'viewer',
    });
    expect(profile.body).toMatchObject({
      calendar: 'month',
      windowMs: 30 * 86_400_000,
      windows: 1,
      identifierWindows: 3,
      requests: 16,
      percentiles: { p50: 4, p99: 8 },
    });
    const monthly = await admin.api<RecommendationView>(
      'GET',
      '/policies/monthly/recommendation?percentile=50&headroom=50',
    );
    expect(monthly.status, JSON.stringify(monthly.body)).toBe(200);
    expect(monthly.body).toMatchObject({
      source: 'profile',
      calendar: 'month',
      base: 4,
      limit: 6,
      exact: true,
      refused: { identifierWindows: 1, requests: 2 },
      // The record replayed in the policy's months at 6: key-3's 7th and 8th.
      replayed: { decided: 16, refused: 2, liveRefused: 0, newlyRefused: 2, complete: false },
    });
  });
});
