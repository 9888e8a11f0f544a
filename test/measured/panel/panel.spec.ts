// The panel in a real browser (Debian's Chromium through playwright-core) against two demo
// instances sharing one Redis and one PostgreSQL: the flows of an operator's day, a viewer who
// may only look, a screenshot of every screen, axe, and every control reached by keyboard.
import type { PolicyFileDocument } from '@sluice/admin/api';
import { runSluiceCli } from '@sluice/admin/src/cli/cli.command.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { recordDocsFile } from '../../support/measured-figures.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import {
  ensureDemoBuilt,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoProcess,
} from '../../system/support/demo-process.js';
import { send } from '../../system/support/http.js';
import {
  adminCall,
  adminDemoEnv,
  ADMINS,
  showDemoOutputOnFailure,
  startAdminDemos,
  waitFor,
  type AdminName,
} from '../../system/admin/support/admin-demo.js';
import {
  controlsNotReachedByKeyboard,
  launchChromium,
  README_SCREENSHOT,
  screenshot,
  seriousAccessibilityViolations,
} from './support/browser.js';

const LIVE_MS = 10_000;

/** What the panel says above a table wider than the screen (web/src/shared/WideTable.tsx). */
const SCROLL_HINT = 'More columns to the right: scroll the table sideways.';

/** Every screen, as the panel's own links reach them. */
const SCREENS = [
  '',
  'policies',
  'policies/reply',
  'policies/reply/revisions',
  'blocked',
  'lists',
  'identifiers?q=harry',
  'penalties',
  'audit',
];

describe('the admin panel in Chromium', () => {
  let database: TestDatabase;
  let demos: DemoProcess[] = [];
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let postId: number;
  /** What Chromium reported the panel's Content Security Policy refused, on any screen. */
  const cspViolations: string[] = [];

  const panel = (path = '') => `${demos[0]!.url}/sluice/${path}`;

  async function signIn(target: Page, who: AdminName): Promise<void> {
    await target.goto(panel());
    await target.getByLabel('Name').fill(who);
    await target.getByLabel('Token').fill(ADMINS[who].token);
    await target.getByRole('button', { name: 'Sign in' }).click();
    await target.getByTestId('session-name').filter({ hasText: who }).waitFor();
  }

  const reply = (url: string, user = 'harry') =>
    send(`${url}/posts/${postId}/replies`, {
      json: { body: 'me too' },
      headers: { 'x-user': user },
    });

  /** Every instance applies the policy version the admin last published. */
  const bothOnLatest = () =>
    waitFor(
      'both instances on the latest version',
      async () => {
        const list = await adminCall(demos[0]!.url, 'alice', 'GET', '/instances');
        const instances = list.body.instances as Array<{ policyVersion: number; stale: boolean }>;
        const latest = list.body.version as number;
        return instances.length === 2 &&
          instances.every((each) => each.policyVersion === latest && !each.stale)
          ? latest
          : undefined;
      },
      { timeoutMs: LIVE_MS, intervalMs: 100 },
    );

  /** The statuses of replies by `user`, sent to the two instances in turn. */
  const repliesBy = async (user: string, count: number): Promise<number[]> => {
    const statuses: number[] = [];
    for (let index = 0; index < count; index++) {
      statuses.push((await reply(demos[index % 2]!.url, user)).status);
    }
    return statuses;
  };

  beforeAll(async () => {
    [database] = await Promise.all([createTestDatabase(), ensureDemoBuilt()]);
    demos = await startAdminDemos(
      {
        ...adminDemoEnv({
          redisUrl: inject('redisUrl'),
          databaseUrl: database.url,
          prefix: uniqueDemoPrefix('panel'),
          heartbeatIntervalMs: 500,
        }),
      },
      2,
    );
    // Posts live in each process; every instance starts with the same seeded ones.
    const posts = await send(`${demos[1]!.url}/posts`);
    postId = (JSON.parse(posts.text) as Array<{ id: number }>)[0]!.id;
    browser = await launchChromium();
    // A reader in Paris, whatever this machine's zone: a server time must show in theirs, named.
    context = await browser.newContext({
      acceptDownloads: true,
      viewport: { width: 1400, height: 900 },
      locale: 'en-GB',
      timezoneId: 'Europe/Paris',
    });
    // A step that never happens fails within LIVE_MS naming its locator, not at the test's end.
    context.setDefaultTimeout(LIVE_MS);
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
    });
  }, 240_000);

  showDemoOutputOnFailure(() => demos);

  afterAll(async () => {
    await browser?.close();
    await stopAllDemos();
    await database?.drop();
  });

  it('signs in and shows who you are and your role', async () => {
    await page.goto(panel());
    await screenshot(page, 'sign-in');
    await signIn(page, 'alice');
    await expect.poll(() => page.getByTestId('session-role').textContent()).toBe('admin');
  });

  it("writes each policy's rate as the editor does, with its tiers", async () => {
    await page.goto(panel('policies'));
    const rateOf = async (name: string) => {
      const row = page
        .getByRole('row')
        .filter({ has: page.getByRole('link', { name, exact: true }) });
      return (await row.getByRole('cell').allTextContents()).join(' | ');
    };
    await page.getByRole('link', { name: 'api-export', exact: true }).waitFor();
    expect(await rateOf('api-export')).toContain('1 at a time; free 1, pro 3');
    expect(await rateOf('api-daily')).toContain('20 per day (UTC); free 20, pro 1000');
    expect(await rateOf('api-burst')).toContain('5 per 10 s; free 5, pro 50');
    expect(await rateOf('reply')).toContain('5 per minute');
  });

  it('tries reply at 3 a minute as a candidate beside the live 5, then promotes it on both instances', async () => {
    await page.goto(panel('policies/reply'));
    const limit = page.getByLabel('Limit', { exact: true });
    await expect.poll(() => limit.inputValue()).toBe('5');
    await limit.fill('3');
    // Every identifier, so Ron's replies are decided by it too (the default is a 5 % sample).
    await page.getByLabel('Candidate sample, % of identifiers').fill('100');
    await page.getByRole('button', { name: 'Try as candidate' }).click();
    await page.getByText(/Proposed as this policy's candidate/).waitFor();
    await bothOnLatest();

    // Live admits all four of Ron's replies; the candidate would have refused the fourth.
    expect(await repliesBy('ron', 4)).toEqual([201, 201, 201, 201]);
    await page.reload();
    const candidate = page.getByLabel('Candidate', { exact: true });
    await candidate.getByText('Candidate: 3 per minute').waitFor();
    const ron = candidate.getByRole('row').filter({ hasText: 'ron' });
    await ron.waitFor({ timeout: LIVE_MS });
    await expect.poll(() => ron.getByRole('cell').first().textContent()).toBe('1');
    await screenshot(page, 'policy-candidate');

    await candidate.getByRole('button', { name: 'Promote' }).click();
    const promotion = page.getByRole('alertdialog');
    await promotion.getByLabel('Change note').fill('three is plenty');
    await promotion.getByRole('button', { name: 'Promote' }).click();
    await candidate.waitFor({ state: 'detached', timeout: LIVE_MS });
    await expect.poll(() => limit.inputValue(), { timeout: LIVE_MS }).toBe('3');
    await bothOnLatest();
    expect(await repliesBy('luna', 4)).toEqual([201, 201, 201, 429]);
  });

  it('changes reply from 3 to 2 a minute, and both instances report the new version on Overview', async () => {
    await page.goto(panel('policies'));
    await page.getByRole('link', { name: 'reply', exact: true }).click();
    const limit = page.getByLabel('Limit', { exact: true });
    await expect.poll(() => limit.inputValue()).toBe('3');
    await screenshot(page, 'policy-editor');
    await limit.fill('2');
    await page.getByLabel('Block repeat offenders').check();
    await page.getByLabel('Block after violations').fill('1');
    await page.getByLabel('Block for').fill('10 min');
    await page.getByLabel('Change note').fill('Harry replies too often');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Saved as version/).waitFor();
    const saved = await waitFor(
      'the saved policy',
      async () => {
        const answer = await adminCall(demos[0]!.url, 'alice', 'GET', '/policies/reply');
        return answer.body.limit === 2 ? (answer.body.version as number) : undefined;
      },
      { timeoutMs: LIVE_MS, intervalMs: 100 },
    );
    const instances = await adminCall(demos[0]!.url, 'alice', 'GET', '/instances');
    const version = instances.body.version as number;
    expect(version).toBeGreaterThanOrEqual(saved);

    await page.goto(panel());
    await expect
      .poll(() => page.getByTestId('instances-on-version').textContent(), { timeout: LIVE_MS })
      .toMatch(new RegExp(`\\b2 of 2\\b.*\\b${version}\\b`));
  });

  it("shows Harry's rejections on Overview and Harry in Blocked; after unblocking him his next reply passes", async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++)
      statuses.push((await reply(demos[1]!.url)).status);
    expect(statuses.slice(0, 2)).toEqual([201, 201]);
    expect(statuses.slice(2)).toEqual([429, 429]);

    await page.goto(panel());
    await expect
      .poll(async () => Number(await page.getByTestId('rejected-reply').textContent()), {
        timeout: LIVE_MS,
      })
      .toBeGreaterThanOrEqual(2);
    await recordDocsFile(await screenshot(page, 'overview'), README_SCREENSHOT);

    // The stored ranges chart the same policies from the minute and hour roll-ups.
    for (const [range, description] of [
      ['1 h', 'over the last hour, per minute'],
      ['7 d', 'over the last 7 days, per hour'],
    ] as const) {
      await page.getByRole('radio', { name: range }).click();
      await page.getByText(`Decisions per policy ${description}`).waitFor();
      await page.getByLabel(`reply, ${description}`).waitFor();
    }
    await screenshot(page, 'overview-7d');
    await page.getByRole('radio', { name: '5 min' }).click();

    await page.getByRole('link', { name: 'Blocked' }).click();
    await page.getByRole('heading', { name: 'Blocked' }).waitFor();
    const harry = page.getByRole('row').filter({ hasText: 'harry' }).filter({ hasText: 'reply' });
    await harry.waitFor({ timeout: LIVE_MS });
    await screenshot(page, 'blocked');
    // On a phone's width, harry and his Unblock button are on screen together.
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByText('More columns to the right: scroll the table sideways.').waitFor();
    const onScreen = (box: { x: number; width: number } | null) =>
      box !== null && box.x >= 0 && box.x + box.width <= 390;
    expect(onScreen(await harry.getByRole('link', { name: 'harry' }).boundingBox())).toBe(true);
    expect(onScreen(await page.getByRole('button', { name: 'Unblock harry' }).boundingBox())).toBe(
      true,
    );
    await screenshot(page, 'blocked-phone');
    if (wide !== null) await page.setViewportSize(wide);
    await page.getByRole('button', { name: 'Unblock harry' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog
      .getByLabel('Also forget its offences, so a next block counts as its first')
      .check();
    await dialog.getByRole('button', { name: 'Unblock' }).click();
    // Told once the block is lifted and the counters are reset (the list may refresh between).
    await page.getByText('harry is no longer blocked under reply.').waitFor({ timeout: LIVE_MS });
    await harry.waitFor({ state: 'detached', timeout: LIVE_MS });

    expect((await reply(demos[1]!.url)).status).toBe(201);
    const audit = await fetch(`${demos[0]!.url}/sluice/api/audit?action=block.lift`, {
      headers: { authorization: `Bearer ${ADMINS.alice.token}` },
    });
    const lifts = ((await audit.json()) as { entries: Array<{ actor: string; after: unknown }> })
      .entries;
    expect(lifts[0]).toMatchObject({ actor: 'alice', after: { offencesForgotten: true } });
  });

  it('finds the penalty under Penalties and downloads it as CSV', async () => {
    await page.getByRole('link', { name: 'Penalties' }).click();
    await page.getByLabel('Identifier').fill('harry');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: 'harry' })
      .filter({ hasText: 'reply' })
      .first()
      .waitFor();
    await screenshot(page, 'penalties');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = await readFile(await download.path(), 'utf8');
    expect(csv.split('\n')[0]).toMatch(/identifier/);
    expect(csv).toMatch(/harry/);
    expect(csv).toMatch(/reply/);
  });

  it('finds the change under Audit, with its before and after', async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    const change = page
      .getByRole('row')
      .filter({ hasText: 'policy.replace' })
      .filter({ hasText: 'alice' })
      .first();
    await change.waitFor();
    await change.getByRole('button', { name: 'Show change' }).click();
    await expect.poll(() => page.getByText('Harry replies too often').count()).toBeGreaterThan(0);
    await expect
      .poll(() => page.locator('main').textContent())
      .toMatch(/"limit": 3[\s\S]*"limit": 2/);
    await screenshot(page, 'audit');
  });

  it('simulates a burst in the editor and plots how many would be admitted', async () => {
    await page.goto(panel('policies/reply'));
    await page.getByLabel('Pattern', { exact: true }).selectOption({ label: 'Burst' });
    await page.getByLabel('Requests', { exact: true }).fill('20');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await expect.poll(() => page.getByTestId('simulated-admitted').textContent()).toBe('2');
    await screenshot(page, 'simulator');
  });

  it('shows every other screen, and Identifiers finds Harry under every policy', async () => {
    await page.goto(panel('policies'));
    await screenshot(page, 'policies');
    await page.goto(panel('policies/reply/revisions'));
    await page.getByRole('heading', { name: 'Revisions of reply' }).waitFor();
    await expect
      .poll(() => page.getByRole('region', { name: /^Changes from version/ }).textContent())
      .toMatch(/"limit": 2/);
    await screenshot(page, 'policy-revisions');
    await page.goto(panel('identifiers?q=harry'));
    await page.getByRole('heading', { name: /harry/ }).first().waitFor();
    await screenshot(page, 'identifiers');
  });

  it('shows a viewer no editing controls, and refuses a forced write with 403', async () => {
    const viewer = await browser.newContext();
    viewer.setDefaultTimeout(LIVE_MS);
    const victor = await viewer.newPage();
    try {
      await signIn(victor, 'victor');
      await victor.goto(panel('policies/reply'));
      await victor.getByRole('heading', { name: 'Rules' }).waitFor();
      expect(await victor.getByRole('button', { name: 'Save' }).count()).toBe(0);
      expect(await victor.getByRole('form', { name: 'Policy' }).count()).toBe(0);
      expect(await victor.getByLabel('Limit', { exact: true }).count()).toBe(0);
      await victor.goto(panel('blocked'));
      await victor.getByRole('heading', { name: 'Blocked' }).waitFor();
      expect(
        await victor.getByRole('button', { name: /Unblock|Block by hand|Reset counters/ }).count(),
      ).toBe(0);
      await victor.goto(panel());
      await victor.getByTestId('instances-on-version').waitFor();
      expect(await victor.getByRole('switch').count()).toBe(0);
      await screenshot(victor, 'viewer-overview');

      const forced = await victor.evaluate(async () => {
        const answer = await fetch('/sluice/api/policies/reply', {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-requested-with': 'sluice' },
          body: JSON.stringify({
            algorithm: 'fixed-window',
            limit: 1000,
            periodMs: 1000,
            key: 'user',
          }),
        });
        return answer.status;
      });
      expect(forced).toBe(403);
    } finally {
      await viewer.close();
    }
  });

  it('blocks Draco by hand, and the switch turned off lets even him through until it is on again', async () => {
    await page.goto(panel('blocked'));
    await page.getByRole('button', { name: 'Block by hand' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Policy').selectOption('reply');
    await dialog.getByLabel('Identifier').fill('draco');
    await dialog.getByLabel('Duration').fill('10 min');
    await dialog.getByLabel('Reason').fill('spam');
    await dialog.getByRole('button', { name: 'Block' }).click();
    const blockedAt = Date.now();
    const draco = page.getByRole('row').filter({ hasText: 'draco' });
    await draco.waitFor({ timeout: LIVE_MS });
    // The end in the reader's zone, named; the 429 in the same words as the panel's durations.
    const until = /until (\d{1,2} [A-Z][a-z]{2} \d{4}), (\d\d):(\d\d):\d\d (CET|CEST)/.exec(
      (await draco.textContent()) ?? '',
    );
    expect(until, (await draco.textContent()) ?? '').not.toBeNull();
    const inParis = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Paris',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    const ends = [0, 60_000].map((late) => inParis.format(blockedAt + 600_000 + late));
    expect(ends).toContain(`${until![2]}:${until![3]}`);
    const refused = await reply(demos[1]!.url, 'draco');
    expect(refused.status).toBe(429);
    expect((JSON.parse(refused.text) as { message: string }).message).toMatch(
      /^Blocked by policy "reply"; retry in (10 min|9 min \d+ s)$/,
    );

    await page.goto(panel());
    await page.getByRole('switch').click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByLabel('Change note').fill('Sluice itself is under suspicion');
    await confirm.getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('off: nothing is refused').waitFor();
    await bothOnLatest();
    expect((await reply(demos[0]!.url, 'draco')).status).toBe(201);
    await screenshot(page, 'enforcement-off');
    await page.getByRole('switch').click();
    const resume = page.getByRole('alertdialog');
    await resume.getByText('Turn enforcement on?').waitFor();
    await resume.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('on: policies refuse').waitFor();
    await bothOnLatest();
    expect((await reply(demos[0]!.url, 'draco')).status).toBe(429);
  });

  it('gives Neville an override that expires, and restores an earlier revision', async () => {
    await page.goto(panel('policies/reply'));
    await page.getByRole('button', { name: 'Add override' }).click();
    const override = page.getByLabel('Override 1');
    await override.getByLabel('Identifier').fill('neville');
    await override.getByLabel('Its limit').fill('10');
    await override.getByLabel('Expires').fill('2099-01-01T12:00');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Saved as version/).waitFor();
    const saved = await adminCall(demos[0]!.url, 'alice', 'GET', '/policies/reply');
    const overrides = saved.body.overrides as Array<{ identifier: string; expiresAt: string }>;
    expect(overrides.map((each) => each.identifier)).toEqual(['neville']);
    // Noon where the browser is (Paris, UTC+1 in January), written as the API writes every
    // time: ISO 8601 in UTC.
    expect(overrides[0]!.expiresAt).toBe('2099-01-01T11:00:00.000Z');

    await page.goto(panel('policies/reply/revisions'));
    const promoted = page.getByRole('row').filter({ hasText: 'policy.promote' });
    const version = Number(await promoted.getByRole('rowheader').textContent());
    await page.getByRole('button', { name: `Restore version ${version}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Restore' }).click();
    await waitFor(
      'the restored revision',
      async () => {
        const now = await adminCall(demos[0]!.url, 'alice', 'GET', '/policies/reply');
        return now.body.limit === 3 && (now.body.overrides as unknown[]).length === 0
          ? true
          : undefined;
      },
      { timeoutMs: LIVE_MS, intervalMs: 100 },
    );
  });

  it("raises api-burst's free tier and moves a key to pro, and the quote API follows on both instances", async () => {
    const quotes = async (key: string, count: number) => {
      let admitted = 0;
      for (let index = 0; index < count; index++) {
        const answer = await send(`${demos[index % 2]!.url}/api/quote`, {
          headers: { 'x-api-key': key },
        });
        if (answer.status === 200) admitted++;
      }
      return admitted;
    };
    expect(await quotes('free-demo-1', 7)).toBe(5);

    await page.goto(panel('policies/api-burst'));
    const free = page.getByLabel('Tier 1');
    await expect.poll(() => free.getByLabel('Tier', { exact: true }).inputValue()).toBe('free');
    await free.getByLabel('Tier limit').fill('7');
    await page.getByRole('button', { name: 'Add override' }).click();
    const override = page.getByLabel('Override 1');
    await override.getByLabel('Identifier').fill('free-demo-2');
    await override.getByLabel('Treatment').selectOption('tier');
    await override.getByLabel('Its tier').selectOption('pro');
    await page.getByLabel('Change note').fill('free gets 7; free-demo-2 tries pro');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Saved as version/).waitFor();
    await bothOnLatest();
    await screenshot(page, 'policy-tiers');

    // free-demo-1 used 5 of the new 7; free-demo-2 is decided at pro's 50.
    expect(await quotes('free-demo-1', 4)).toBe(2);
    expect(await quotes('free-demo-2', 12)).toBe(12);
    // The policy's traffic is charted by tier too: free refused 2 of the first 7 and 2 of these 4.
    await page.getByRole('heading', { name: 'api-burst — tier pro' }).waitFor();
    await expect
      .poll(() => page.getByTestId('rejected-api-burst~t:free').textContent(), { timeout: LIVE_MS })
      .toBe('4');

    await page.getByLabel('At the rate of').selectOption({ label: 'tier pro' });
    await page.getByLabel('Pattern', { exact: true }).selectOption({ label: 'Burst' });
    await page.getByLabel('Requests', { exact: true }).fill('60');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await expect.poll(() => page.getByTestId('simulated-admitted').textContent()).toBe('50');
  });

  it('denies an API key from the Lists screen on both instances, counts it, and lifts it', async () => {
    const quote = async (at: number) =>
      (await send(`${demos[at]!.url}/api/quote`, { headers: { 'x-api-key': 'pro-demo-1' } }))
        .status;
    expect(await quote(0)).toBe(200);
    await page.goto(panel('lists'));
    await page.getByText('No entries').waitFor();
    await page.getByRole('button', { name: 'Add an entry' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Which list').selectOption('deny');
    await dialog.getByLabel('Match on').selectOption('identifier');
    await dialog.getByLabel('Value', { exact: true }).fill('pro-demo-1');
    await dialog.getByLabel('Counted as').fill('header:x-api-key');
    await dialog.getByRole('radio', { name: 'Only the policies ticked' }).check();
    await dialog.getByRole('checkbox', { name: 'api-burst', exact: true }).check();
    await dialog.getByLabel('Reason').fill('a leaked key');
    await dialog.getByLabel('Expires after').fill('7 d');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText(/pro-demo-1 is on the deny list for 7 d/).waitFor();
    await bothOnLatest();
    expect([await quote(0), await quote(1)]).toEqual([429, 429]);
    // Each instance sends its matches once a second; the screen reads them every two.
    await page.getByRole('cell', { name: 'refused 2' }).waitFor();
    await screenshot(page, 'lists');
    // The policy's own page lists the entry that decides it before its rate.
    await page.goto(panel('policies/api-burst'));
    const applying = page.getByLabel('List entries applying to api-burst');
    await applying.getByRole('cell', { name: 'refused 2' }).waitFor();
    await page.goto(panel('lists'));

    await page.getByRole('button', { name: 'Remove pro-demo-1' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('pro-demo-1 is off the deny list.').waitFor();
    await bothOnLatest();
    expect([await quote(0), await quote(1)]).toEqual([200, 200]);
    const audit = await adminCall(demos[0]!.url, 'alice', 'GET', '/audit?action=list.add');
    expect((audit.body.entries as Array<{ actor: string }>).map((entry) => entry.actor)).toEqual([
      'alice',
    ]);
  });

  it('asks before an entry that denies everyone or its own writer, and the admin stays reachable', async () => {
    // Another client of the apps: 127.0.0.2, while the panel and the admin calls come from .1.
    const quote = async (at: number) =>
      (
        await send(`${demos[at]!.url}/api/quote`, {
          headers: { 'x-api-key': 'pro-demo-1' },
          from: '127.0.0.2',
        })
      ).status;
    const entries = async () =>
      ((await adminCall(demos[1]!.url, 'alice', 'GET', '/lists')).body.entries as unknown[]).length;
    await page.goto(panel('lists'));
    await page.getByText('No entries').waitFor();
    const open = async (value: string, expiresAfter = '') => {
      await page.getByRole('button', { name: 'Add an entry' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Which list').selectOption('deny');
      await dialog.getByLabel('Match on').selectOption('address');
      await dialog.getByLabel('Value', { exact: true }).fill(value);
      await dialog.getByLabel('Reason').fill('an outage drill');
      await dialog.getByLabel('Expires after').fill(expiresAfter);
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      return dialog;
    };
    // The writer's own address: only the server knows it, and the panel passes its word on.
    const own = await open('127.0.0.1');
    await own
      .getByRole('alert')
      .getByText(/127\.0\.0\.1 holds your own address/)
      .waitFor();
    await own.getByRole('button', { name: 'Cancel' }).click();
    expect(await entries()).toBe(0);

    // Every address: the panel asks before anything is sent.
    const everyone = await open('0.0.0.0/0', '10 min');
    const question = everyone.getByRole('alert');
    await question
      .getByText('0.0.0.0/0 holds every address of its family: it would deny all traffic.', {
        exact: false,
      })
      .waitFor();
    expect(await entries()).toBe(0);
    await question.getByRole('button', { name: 'Add it anyway' }).click();
    await page.getByText(/0\.0\.0\.0\/0 is on the deny list for 10 min/).waitFor();
    await bothOnLatest();
    expect([await quote(0), await quote(1)]).toEqual([429, 429]);
    // The admin is not behind the lists: the same addresses reach it on both instances.
    expect(await entries()).toBe(1);
    expect((await adminCall(demos[0]!.url, 'victor', 'GET', '/policies')).status).toBe(200);
    await page.reload();
    await page.getByRole('button', { name: 'Remove 0.0.0.0/0' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('0.0.0.0/0 is off the deny list.').waitFor();
    await bothOnLatest();
    expect([await quote(0), await quote(1)]).toEqual([200, 200]);
  });

  it("credits an API key's daily quota from its page, and shows its exports in flight", async () => {
    // free-demo-1 used 7 quotes of its 20 today above (5, then 2 of 4).
    await page.goto(panel('identifiers?q=free-demo-1'));
    const quotas = page.getByLabel('Quotas of free-demo-1');
    const daily = quotas.getByRole('row').filter({ hasText: 'api-daily' });
    await daily.getByText('7 of 20').waitFor();
    await daily
      .getByRole('button', { name: 'Grant credits to free-demo-1 under api-daily' })
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Amount').fill('100');
    await dialog.getByLabel('Note').fill('goodwill after the outage');
    const granted = Date.now();
    await dialog.getByRole('button', { name: 'Grant' }).click();
    await page.getByText('free-demo-1 has 113 left under api-daily (credits 100).').waitFor();
    await daily.getByText('+100').waitFor();
    // The day renews at midnight UTC, shown in the reader's zone (Paris), the zone named.
    const day = new Date(granted + 86_400_000).toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    });
    await daily.getByText(`${day}, 01:00:00 CET`, { exact: true }).waitFor();

    await screenshot(page, 'identifier-quotas');
    // The other instance decides with the credits.
    const read = await adminCall(demos[1]!.url, 'victor', 'GET', '/quotas/api-daily/free-demo-1');
    expect(read.body).toMatchObject({ used: 7, granted: 100, remaining: 113, tier: 'free' });
    // The key's own responses announce the day's 20 with the 100 credits.
    const quote = await send(`${demos[1]!.url}/api/quote`, {
      headers: { 'x-api-key': 'free-demo-1' },
    });
    expect(quote.headers['ratelimit-policy']).toContain('"api-daily";q=120;w=86400');
    const audit = await adminCall(demos[0]!.url, 'alice', 'GET', '/audit?action=quota.grant');
    expect(audit.body.entries).toEqual([
      expect.objectContaining({ actor: 'alice', comment: 'goodwill after the outage' }),
    ]);

    const exporting = send(`${demos[1]!.url}/api/export?ms=3000`, {
      headers: { 'x-api-key': 'pro-demo-1' },
    });
    await page.goto(panel('identifiers?q=pro-demo-1'));
    await page.getByText('1 in flight of 3').waitFor();
    expect((await exporting).status).toBe(200);
  });

  it('marks a per-user route counted by address once a request there had no user', async () => {
    const anonymous = await send(`${demos[0]!.url}/posts/${postId}/likes`, { json: {} });
    expect(anonymous.status).toBe(201);
    const routes = await adminCall(demos[0]!.url, 'victor', 'GET', '/routes');
    const like = (routes.body.routes as Array<{ policies: string[]; countedByAddress: string[] }>)
      .filter((route) => route.policies.includes('like'))
      .map((route) => route.countedByAddress);
    expect(like).toEqual([['like']]);
    await page.goto(panel('policies'));
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /^like/ }) });
    await row.getByText('counted by address').waitFor();
    const replyRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /^reply/ }) });
    expect(await replyRow.getByText('counted by address').count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('deletes a policy the admin created', async () => {
    const created = await adminCall(demos[0]!.url, 'alice', 'PUT', '/policies/temp', {
      json: { algorithm: 'fixed-window', limit: 10, periodMs: 60_000, key: 'ip' },
    });
    expect(created.status).toBe(201);
    await page.goto(panel('policies/temp'));
    await page.getByRole('button', { name: 'Delete policy' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/sluice\/policies$/);
    expect((await adminCall(demos[0]!.url, 'alice', 'GET', '/policies/temp')).status).toBe(404);
  });

  it('applies a policy file with npx sluice, then marks the policy edited in the panel since', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sluice-panel-'));
    const sluice = async (args: string[]) => {
      const run = { code: 0, out: '', err: '' };
      run.code = await runSluiceCli(args, {
        env: { SLUICE_ADMIN_URL: panel(), SLUICE_ADMIN_TOKEN: ADMINS.alice.token },
        cwd: folder,
        out: (text) => (run.out += text),
        err: (text) => (run.err += text),
      });
      return run;
    };
    try {
      const exported = await sluice(['export', '--out', 'policies.yaml']);
      expect(exported.code, exported.err).toBe(0);
      const file = join(folder, 'policies.yaml');
      const document = parse(await readFile(file, 'utf8')) as PolicyFileDocument;
      document.policies.reply = { ...document.policies.reply!, description: 'Kept in git' };
      await writeFile(file, stringify(document));
      const applied = await sluice(['apply', 'policies.yaml', '-m', 'from the repository']);
      expect(applied.code, applied.err).toBe(0);
      expect(applied.out).toContain('~ policy reply\n    description:');

      await page.goto(panel('policies'));
      await page.getByText(/policy file applied as version \d+ by alice/).waitFor();
      const row = (name: string) =>
        page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
      expect(await row('reply').getByText('differs from file').count()).toBe(0);
      await row('reply').getByRole('link', { name: 'reply', exact: true }).click();
      const limit = page.getByLabel('Limit', { exact: true });
      await expect.poll(() => limit.inputValue()).not.toBe('');
      await limit.fill(String(Number(await limit.inputValue()) + 1));
      await page.getByLabel('Change note').fill('one more, in the panel');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText(/Saved as version/).waitFor();

      await page.goto(panel('policies'));
      await row('reply').getByText('differs from file').waitFor();
      expect(await row('api-burst').getByText('differs from file').count()).toBe(0);
      const diff = await sluice(['diff', 'policies.yaml']);
      expect(diff.code).toBe(1);
      expect(diff.out).toContain('~ policy reply\n    limit:');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("skips to the content of the screen it is on, under the panel's <base>", async () => {
    await page.goto(panel('penalties'));
    await page.locator('main h2, main h1').first().waitFor();
    await page.getByRole('link', { name: 'Skip to content' }).focus();
    await page.keyboard.press('Enter');
    expect(page.url()).toBe(panel('penalties'));
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  let overflowing = 0;
  it.each(SCREENS)(
    'says above each table wider than a phone (390 px) that it scrolls, and above no other, on /sluice/%s',
    async (path) => {
      const wide = page.viewportSize();
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.goto(panel(path));
        await page.locator('main h2, main h1').first().waitFor();
        // The screens that list something here; the editor and an empty Lists screen have none.
        if (!['policies/reply', 'lists'].includes(path)) {
          await page.locator('.wide-table table').first().waitFor();
        }
        // Tables fill in as their data comes: each must agree with its hint once it has.
        let found = 0;
        await expect
          .poll(
            async () => {
              const tables = await page.evaluate((hint) => {
                return [...document.querySelectorAll<HTMLElement>('.wide-table')].map((box) => {
                  const table = box.querySelector('table') as HTMLTableElement;
                  const says = box.querySelector(':scope > p')?.textContent === hint;
                  return { over: table.scrollWidth > box.clientWidth + 1, says };
                });
              }, SCROLL_HINT);
              found = tables.filter((table) => table.over).length;
              return tables.filter((table) => table.over !== table.says).length;
            },
            { timeout: 5_000 },
          )
          .toBe(0);
        overflowing += found;
      } finally {
        if (wide !== null) await page.setViewportSize(wide);
      }
    },
  );

  it('found tables wider than a phone above, so the hint was tested where it shows', () => {
    expect(overflowing).toBeGreaterThan(2);
  });

  it.each(SCREENS)(
    'has no serious accessibility violation and every control reachable by keyboard on /sluice/%s',
    async (path) => {
      await page.goto(panel(path));
      await page.locator('main h2, main h1').first().waitFor();
      // Messages in full: vitest cuts an array in a diff down to its length.
      const violations = await seriousAccessibilityViolations(page);
      expect(violations, violations.join('\n')).toEqual([]);
      const missed = await controlsNotReachedByKeyboard(page);
      expect(missed, missed.join('\n')).toEqual([]);
    },
  );

  it('ran every screen above under its Content Security Policy with nothing refused', () => {
    expect(cspViolations).toEqual([]);
  });

  it('cannot be framed by another page', async () => {
    const framer = await context.newPage();
    const refusals: string[] = [];
    framer.on('console', (message) => refusals.push(message.text()));
    await framer.setContent(`<iframe src="${panel()}"></iframe>`);
    await expect
      .poll(() => refusals.some((text) => text.includes("frame-ancestors 'none'")))
      .toBe(true);
    await framer.close();
  });
});
