// The traffic profile and the replay on a policy's page in a real browser (Debian's Chromium):
// an admin reads the percentiles against the limit, the histogram with the limit drawn on it,
// the busiest, a proposed limit, one tier apart, the record replayed at a limit as edited, and
// tries a limit as a candidate; axe finds nothing serious (docs/operations.md, "Choosing a
// limit").
import { Controller, Get, UseGuards } from '@nestjs/common';
import { ManualClock, SLUICE_CLOCK, SluiceGuard, Throttle } from '@sluice/nest';
import { periodAt } from '@sluice/nest/src/clock/calendar.js';
import { IdentifierTally } from '@sluice/nest/src/stats/identifier.tally.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { ensureDemoBuilt } from '../../system/support/demo-process.js';
import { adminApp, TOKENS } from '../../system/admin-api/app.module.js';
import { launchChromium, screenshot, seriousAccessibilityViolations } from './support/browser.js';

const HOUR_MS = 3_600_000;
const SEARCH = {
  name: 'search',
  algorithm: 'fixed-window',
  limit: 30,
  periodMs: 60_000,
  key: 'header:x-api-key',
  tiers: { pro: { limit: 500 } },
} as const;

/** A calendar quota: profiled per month in its time zone. */
const MONTHLY = {
  name: 'monthly',
  algorithm: 'fixed-window',
  limit: 100,
  calendar: { unit: 'month', timeZone: 'Europe/Paris' },
  key: 'header:x-api-key',
} as const;

@Controller('search')
@UseGuards(SluiceGuard)
class SearchController {
  @Get()
  @Throttle('search')
  search(): string {
    return 'results';
  }

  @Get('monthly')
  @Throttle('monthly')
  monthly(): string {
    return 'metered';
  }
}

describe('the traffic profile in Chromium', () => {
  // Half an hour into an hour: the window counted ends in it.
  const clock = new ManualClock((Math.floor(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS / 2) * 1000);
  let database: TestDatabase;
  let app: RunningApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensureDemoBuilt();
    database = await createTestDatabase();
    app = await startApp(
      'express',
      adminApp({
        redisUrl: inject('redisUrl'),
        prefix: uniquePrefix('panel-profile'),
        databaseUrl: database.url,
        policies: [SEARCH, MONTHLY],
        controllers: [SearchController],
        tiers: {
          resolve: (request) => (request as { headers: Record<string, string> }).headers['x-plan'],
        },
      }),
      undefined,
      (builder) => builder.overrideProvider(SLUICE_CLOCK).useValue(clock.now),
    );
    // 20 keys making 1 to 20 requests in the window, and one pro key making 60.
    const calls: Array<Promise<Response>> = [];
    for (let key = 1; key <= 20; key++) {
      for (let n = 0; n < key; n++) {
        calls.push(fetch(`${app.url}/search`, { headers: { 'x-api-key': `key-${key}` } }));
      }
    }
    for (let n = 0; n < 60; n++) {
      calls.push(
        fetch(`${app.url}/search`, { headers: { 'x-api-key': 'key-pro', 'x-plan': 'pro' } }),
      );
    }
    await Promise.all(calls);
    await app.app.get(IdentifierTally).flush();
    clock.advance(66_000_000);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await database?.drop();
  });

  async function signIn(): Promise<void> {
    await page.goto(`${app.url}/sluice/`);
    await page.getByLabel('Name').fill('alice');
    await page.getByLabel('Token').fill(TOKENS.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('session-name').filter({ hasText: 'alice' }).waitFor();
  }

  it('shows the profile against the limit, proposes a limit, replays the record, tries a candidate', async () => {
    await signIn();
    await page.goto(`${app.url}/sluice/policies/search`);

    const figures = page.getByLabel('Requests one identifier made in one window');
    await figures.waitFor();
    // 21 identifier-windows: 1 … 20 and 60; p50 is the 11th, p90 the 19th, p99 the 21st.
    expect(await figures.getByRole('cell').allTextContents()).toEqual([
      '11',
      '19',
      '60',
      '60',
      '60',
      '30',
    ]);
    expect(await page.getByTestId('profile-histogram').getAttribute('aria-label')).toMatch(
      /4.8 % of identifier-windows above the limit of 30/,
    );
    const busiest = page.getByLabel('Busiest identifiers');
    expect(await busiest.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual([
      'key-pro',
      'header:x-api-key',
      'pro',
      '60',
    ]);
    // key-20 made 20 of its limit of 30; no identifier here went over its own limit.
    expect(await busiest.getByText(/over its limit/).count()).toBe(0);
    // p99 of every request is key-pro's 60; with 20 % headroom, 72.
    const proposal = page.getByTestId('profile-proposal');
    await expect.poll(() => proposal.textContent()).toMatch(/Proposed: 72 per 1 min/);
    // p90 (19) with none: 19, refusing key-20 (one over) and key-pro (41 over).
    await page.getByLabel('Percentile').selectOption('p90');
    await page.getByLabel('Headroom (%)').fill('0');
    await expect.poll(() => proposal.textContent()).toMatch(/Proposed: 19 per 1 min/);
    // The histogram draws it beside the limit in force.
    expect(await page.getByTestId('proposed-limit').textContent()).toMatch(/proposed 19/);
    expect(await proposal.textContent()).toMatch(
      /refused 2 of 21 identifier-windows \(9.5 %\) and about 42 requests/,
    );

    // The recorded requests replayed at a limit of 10 as edited: keys 11 to 20 go over by 1 to
    // 10, 55 refusals where live refused none; key-pro keeps pro's 500.
    await page.getByLabel('Limit', { exact: true }).fill('10');
    await page.getByLabel('Over', { exact: true }).selectOption('the last 15 minutes');
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    const replayed = page.getByTestId('replay-result');
    await replayed.waitFor();
    expect(await replayed.textContent()).toMatch(
      /270 requests from 21 identifiers .*live refused 0, this rule would refuse 55 — 55 that live admitted/,
    );
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'policy-profile');

    await page.getByRole('combobox', { name: 'Tier' }).click();
    await page.getByRole('option', { name: 'pro' }).click();
    await expect
      .poll(() => figures.getByRole('cell').allTextContents())
      .toEqual(['60', '60', '60', '60', '60', '500']);
    // The pro tier's p90 is 60: tried as a candidate, the candidate's card shows what it changes.
    await expect.poll(() => proposal.textContent()).toMatch(/Proposed: 60 per 1 min/);
    await page.getByRole('button', { name: 'Try 60 as a candidate' }).click({ timeout: 5_000 });
    const candidate = page.getByLabel('Candidate', { exact: true });
    await candidate.waitFor({ timeout: 5_000 });
    expect(await candidate.textContent()).toMatch(/It changes tiers/);
  });

  it('replays a calendar quota in its months, reads its profile once a month ended, proposes a limit', async () => {
    // Nine keys use 2, 4, … 18 of their month's 100, and key-m10 130 (30 of them refused).
    for (let key = 1; key <= 10; key++) {
      for (let n = 0; n < (key === 10 ? 130 : 2 * key); n++) {
        await fetch(`${app.url}/search/monthly`, { headers: { 'x-api-key': `key-m${key}` } });
      }
    }
    await app.app.get(IdentifierTally).flush();

    // The record replayed at 5 a month as edited, in the policy's calendar months: 1, 3, … 13
    // over it from key-m3 to key-m9, and key-m10's 125, where live refused key-m10's last 30.
    await page.goto(`${app.url}/sluice/policies/monthly`);
    await page.getByLabel('Limit', { exact: true }).fill('5');
    await page.getByLabel('Over', { exact: true }).selectOption('the last 15 minutes');
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    const replayed = page.getByTestId('replay-result');
    await replayed.waitFor();
    expect(await replayed.textContent()).toMatch(
      /220 requests from 10 identifiers .*live refused 30, this rule would refuse 174 — 144 that live admitted.*Counted per calendar month\./,
    );

    const month = periodAt(clock.now() / 1000, { ...MONTHLY.calendar, anchorDay: null });
    clock.set((month.end + 6_000) * 1000);

    // A month on. Whether the session of the test before outlived the jump depends on the hour the
    // run started (sessions last 8 h; the month's end may be minutes or weeks away): the browser
    // forgets it, and a fresh one starts either way.
    await page.context().clearCookies();
    await signIn();
    await page.goto(`${app.url}/sluice/policies/monthly`);
    await page.getByText(/^Per window of calendar month: 1 windows/).waitFor();
    const figures = page.getByLabel('Requests one identifier made in one window');
    // Nearest rank of ten: p50 is the 5th (10), p90 the 9th (18), p99 key-m10's 130.
    expect(await figures.getByRole('cell').allTextContents()).toEqual([
      '10',
      '18',
      '130',
      '130',
      '130',
      '100',
    ]);
    await page.getByLabel('Percentile').selectOption('p90');
    await page.getByLabel('Headroom (%)').fill('0');
    const proposal = page.getByTestId('profile-proposal');
    await expect.poll(() => proposal.textContent()).toMatch(/Proposed: 18 per calendar month/);
    expect(await proposal.textContent()).toMatch(/It would refuse first: key-m10 \(130\)/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Try 18 as a candidate' }).click({ timeout: 5_000 });
    const candidate = page.getByLabel('Candidate', { exact: true });
    await candidate.waitFor({ timeout: 5_000 });
    expect(await candidate.textContent()).toMatch(/It changes limit\./);
  });
});
