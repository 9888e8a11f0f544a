import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { PolicyProfile } from './PolicyProfile';

afterEach(cleanup);

function profile(tier: string | null, limit: number) {
  return {
    policy: 'search',
    range: 'day',
    tier,
    windowMs: 60_000,
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
    });
    renderScreen(<PolicyProfile name="search" tiers={['pro']} />, { role: 'viewer', path: '/' });

    const table = await screen.findByLabelText('Requests one identifier made in one window');
    const cells = within(table)
      .getAllByRole('cell')
      .map((cell) => cell.textContent);
    expect(cells).toEqual(['9', '18', '40', '95', '700', '30']);
    // 400 of 2 400 identifier-windows made more than 30.
    expect(screen.getByRole('img').getAttribute('aria-label')).toMatch(
      /16.7 % of identifier-windows above the limit of 30/,
    );
    const busiest = screen.getByLabelText('Busiest identifiers');
    expect(within(busiest).getByText('700 (over its limit of 30)')).toBeTruthy();
    // The pro key's 41 is within pro's 500.
    expect(within(busiest).getByText('41')).toBeTruthy();
    expect(requests.at(-1)?.url).toBe('/api/policies/search/profile?range=day');

    await userEvent.setup().click(screen.getByRole('radio', { name: 'Last week' }));
    await screen.findByRole('img');
    expect(requests.at(-1)?.url).toBe('/api/policies/search/profile?range=week');
  });

  it('says when no window has been counted yet', async () => {
    answerFetch({
      'GET /policies/search/profile': {
        body: { ...profile(null, 30), windows: 0, percentiles: null, histogram: [], busiest: [] },
      },
    });
    renderScreen(<PolicyProfile name="search" tiers={[]} />, { role: 'viewer', path: '/' });
    await screen.findByText('No window of 1 min has been counted in this range yet.');
  });
});
