import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { REPLY } from '../../testing/policy-view.fixture';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { PolicyProfile } from './PolicyProfile';

/** A fixed window of 30 a minute, with a pro tier of 500. */
const SEARCH = {
  ...REPLY,
  name: 'search',
  algorithm: 'fixed-window',
  limit: 30,
  tiers: { pro: { limit: 500, burst: null, maxDelayMs: null } },
  version: 7,
} as const;

function recommendation(query: URLSearchParams) {
  const percentile = Number(query.get('percentile'));
  const headroom = Number(query.get('headroom'));
  const base = percentile === 99 ? 40 : 18;
  const refused = {
    identifierWindows: 12,
    identifierWindowShare: 0.005,
    requests: 6_000,
    requestShare: 0.2,
  };
  return {
    policy: 'search',
    range: 'day',
    tier: query.get('tier') === '-' ? '' : query.get('tier'),
    source: 'profile',
    algorithm: 'fixed-window',
    periodMs: 60_000,
    calendar: null,
    percentile,
    headroom,
    base,
    limit: Math.ceil(base * (1 + headroom / 100)),
    currentLimit: 30,
    refused,
    refusedNow: { ...refused, identifierWindows: 400, identifierWindowShare: 0.167 },
    identifiers: [
      { keyKind: 'ip', identifier: '203.0.113.9', key: null, tier: null, most: 700, limit: 30 },
    ],
    exact: true,
    windows: 120,
    identifierWindows: 2400,
    share: 1,
    replayed:
      query.get('tier') === 'pro'
        ? {
            from: '2026-11-30T08:00:00.000Z',
            decided: 900,
            refused: 40,
            liveRefused: 4,
            newlyRefused: 36,
          }
        : null,
  };
}

afterEach(cleanup);

function profile(tier: string | null, limit: number) {
  return {
    policy: 'search',
    range: 'day',
    tier,
    windowMs: 60_000,
    calendar: null,
    from: '2026-11-29T09:00:00.000Z',
    to: '2026-11-30T10:00:00.000Z',
    windows: 120,
    identifierWindows: 2400,
    requests: 30_000,
    percentiles: { p50: 9, p90: 18, p99: 40, p999: 95 },
    max: 700,
    histogram: [
      { from: 9, to: 9, identifierWindows: 2000 },
      { from: 40, to: 41, identifierWindows: 390 },
      { from: 640, to: 671, identifierWindows: 10 },
    ],
    busiest: [
      { keyKind: 'ip', identifier: '203.0.113.9', key: null, tier: null, most: 700, limit },
      { keyKind: 'ip', identifier: '198.51.100.4', key: null, tier: 'pro', most: 41, limit: 500 },
    ],
    share: 1,
    bucketError: 0.0625,
    late: 0,
    limit,
    periodMs: 60_000,
  };
}

describe("a policy's traffic profile", () => {
  it('shows the percentiles against the limit, the share above it, and the busiest', async () => {
    const requests = answerFetch({
      'GET /policies/search/profile': (request) =>
        request.url.includes('tier=pro')
          ? { body: profile('pro', 500) }
          : { body: profile(null, 30) },
      'GET /policies/search/recommendation': (request) => ({
        body: recommendation(new URL(request.url, 'http://panel.test').searchParams),
      }),
    });
    renderScreen(<PolicyProfile policy={SEARCH} />, { role: 'viewer', path: '/' });

    const table = await screen.findByLabelText('Requests one identifier made in one window');
    const cells = within(table)
      .getAllByRole('cell')
      .map((cell) => cell.textContent);
    expect(cells).toEqual(['9', '18', '40', '95', '700', '30']);
    // 400 of 2 400 identifier-windows made more than 30; the proposal (48) drawn beside it.
    await waitFor(() =>
      expect(screen.getByRole('img').getAttribute('aria-label')).toMatch(
        /16.7 % of identifier-windows above the limit of 30; the limit proposed, 48, drawn beside it/,
      ),
    );
    expect(screen.getByTestId('proposed-limit').textContent).toMatch(/proposed 48/);
    const busiest = screen.getByLabelText('Busiest identifiers');
    expect(within(busiest).getByText('700 (over its limit of 30)')).toBeTruthy();
    // The pro key's 41 is within pro's 500.
    expect(within(busiest).getByText('41')).toBeTruthy();
    const profileCalls = () => requests.filter((each) => each.url.includes('/profile'));
    expect(profileCalls().at(-1)?.url).toBe('/api/policies/search/profile?range=day');

    // p99 (40) with 20 % headroom: 48, and what it and the limit now would refuse.
    const proposal = await screen.findByTestId('profile-proposal');
    expect(proposal.textContent).toMatch(/Proposed: 48 per 1 min \(p99 is 40, plus 20 %; now 30\)/);
    expect(proposal.textContent).toMatch(/refused 12 of 2400 identifier-windows \(0.5 %\)/);
    expect(proposal.textContent).toMatch(/limit now would have refused 400 of 2400/);
    expect(proposal.textContent).toMatch(/It would refuse first: 203.0.113.9 \(700\)/);
    // A viewer reads it; only an admin may try it.
    expect(screen.queryByRole('button', { name: /as a candidate/ })).toBeNull();

    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Percentile'), 'p90');
    await user.clear(screen.getByLabelText('Headroom (%)'));
    await user.type(screen.getByLabelText('Headroom (%)'), '50');
    await waitFor(() =>
      expect(screen.getByTestId('profile-proposal').textContent).toMatch(/Proposed: 27 per 1 min/),
    );
    await user.clear(screen.getByLabelText('Headroom (%)'));
    await user.type(screen.getByLabelText('Headroom (%)'), 'lots');
    expect(screen.getByText('a whole number of percent, 0 to 1000')).toBeTruthy();

    await user.click(screen.getByRole('radio', { name: 'Last week' }));
    await waitFor(() =>
      expect(profileCalls().at(-1)?.url).toBe('/api/policies/search/profile?range=week'),
    );
  });

  it('says when no window has been counted yet', async () => {
    answerFetch({
      'GET /policies/search/profile': {
        body: { ...profile(null, 30), windows: 0, percentiles: null, histogram: [], busiest: [] },
      },
    });
    renderScreen(<PolicyProfile policy={{ ...SEARCH, tiers: null }} />, {
      role: 'viewer',
      path: '/',
    });
    await screen.findByText('No window of 1 min has been counted in this range yet.');
  });

  it("proposes the pro tier's new limit as a candidate for an admin, nothing else changed", async () => {
    const requests = answerFetch({
      'GET /policies/search/profile': { body: profile('pro', 500) },
      'GET /policies/search/recommendation': (request) => ({
        body: recommendation(new URL(request.url, 'http://panel.test').searchParams),
      }),
      'POST /policies/search/candidate': { body: {} },
    });
    renderScreen(<PolicyProfile policy={SEARCH} />, { role: 'admin', path: '/' });
    const user = userEvent.setup();
    await screen.findByTestId('profile-proposal');
    // Over every tier together the proposal names no limit to change.
    expect(screen.queryByRole('button', { name: /as a candidate/ })).toBeNull();
    await user.click(screen.getByRole('combobox', { name: 'Tier' }));
    await user.click(await screen.findByRole('option', { name: 'pro' }));
    // One tier's proposal is also replayed on the record, through the policy's own algorithm.
    expect((await screen.findByTestId('proposal-replayed')).textContent).toMatch(
      /On the 900 requests recorded .* fixed-window at 48 would have refused 40 \(live refused 4; 36 of them newly\)/,
    );
    await user.click(await screen.findByRole('button', { name: 'Try 48 as a candidate' }));

    await waitFor(() => expect(requests.some((each) => each.method === 'POST')).toBe(true));
    const proposed = requests.find((each) => each.method === 'POST')?.body as {
      limit: number;
      version: number;
      tiers: Record<string, { limit: number }>;
    };
    expect(proposed).toMatchObject({ limit: 30, version: 7, tiers: { pro: { limit: 48 } } });
  });

  it('reads a calendar quota per month, and a period under a second from the record', async () => {
    answerFetch({
      'GET /policies/search/profile': {
        body: { ...profile(null, 30), windowMs: 30 * 86_400_000, calendar: 'month', windows: 1 },
      },
      'GET /policies/search/recommendation': (request) => ({
        body: {
          ...recommendation(new URL(request.url, 'http://panel.test').searchParams),
          calendar: 'month',
        },
      }),
    });
    renderScreen(<PolicyProfile policy={{ ...SEARCH, tiers: null }} />, {
      role: 'viewer',
      path: '/',
    });
    expect(
      (await screen.findByText(/^Per window of calendar month: 1 windows/)).textContent,
    ).toBeTruthy();
    expect((await screen.findByTestId('profile-proposal')).textContent).toMatch(
      /Proposed: 48 per calendar month/,
    );
    expect(screen.queryByTestId('proposal-source')).toBeNull();
    cleanup();

    answerFetch({
      'GET /policies/search/profile': { body: { ...profile(null, 30), windowMs: 1_000 } },
      'GET /policies/search/recommendation': (request) => ({
        body: {
          ...recommendation(new URL(request.url, 'http://panel.test').searchParams),
          source: 'record',
          periodMs: 200,
        },
      }),
    });
    renderScreen(<PolicyProfile policy={{ ...SEARCH, tiers: null, periodMs: 200 }} />, {
      role: 'viewer',
      path: '/',
    });
    expect((await screen.findByTestId('profile-proposal')).textContent).toMatch(
      /Proposed: 48 per 200 ms/,
    );
    expect(screen.getByTestId('proposal-source').textContent).toMatch(
      /Counted per 200 ms from the recorded requests/,
    );
  });
});
