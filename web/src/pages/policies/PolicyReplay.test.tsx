import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { PolicyReplay } from './PolicyReplay';

afterEach(cleanup);

const REPLAYED = {
  policy: 'search',
  rule: {
    algorithm: 'fixed-window',
    limit: 10,
    periodMs: 60_000,
    burst: null,
    segments: null,
    maxDelayMs: null,
    calendar: null,
    tiers: null,
  },
  from: '2026-11-30T09:00:00.000Z',
  to: '2026-11-30T10:00:00.000Z',
  oldest: '2026-11-30T08:12:00.000Z',
  history: '2026-11-30T09:00:00.000Z',
  complete: true,
  records: 420,
  identifiers: 12,
  decided: 400,
  liveRefused: 30,
  refused: 55,
  newlyRefused: 27,
  newlyAdmitted: 2,
  byIdentifier: [
    {
      keyKind: 'ip',
      identifier: '203.0.113.9',
      key: null,
      requests: 90,
      liveRefused: 20,
      refused: 40,
    },
    {
      keyKind: 'ip',
      identifier: '198.51.100.4',
      key: null,
      requests: 30,
      liveRefused: 10,
      refused: 15,
    },
  ],
  timeline: [
    { at: '2026-11-30T09:00:00.000Z', requests: 200, liveRefused: 10, refused: 25 },
    { at: '2026-11-30T09:01:00.000Z', requests: 200, liveRefused: 20, refused: 30 },
  ],
};

describe('replaying recorded traffic', () => {
  it('sends the rule as edited and the range, and shows what it would refuse beside live', async () => {
    const requests = answerFetch({ 'POST /policies/search/replay': { body: REPLAYED } });
    renderScreen(
      <PolicyReplay
        name="search"
        rule={() => ({ algorithm: 'fixed-window', limit: 10, periodMs: 60_000 })}
      />,
      { role: 'viewer', path: '/' },
    );
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Over'), 'the last 15 minutes');
    await user.click(screen.getByRole('button', { name: 'Replay' }));

    const result = await screen.findByTestId('replay-result');
    expect(requests.at(-1)).toMatchObject({
      method: 'POST',
      body: { rule: { algorithm: 'fixed-window', limit: 10, periodMs: 60_000 }, minutes: 15 },
    });
    expect(result.textContent).toMatch(
      /400 requests from 12 identifiers .*live refused 30, this rule would refuse 55 — 27 that live admitted, and admit 2 that live refused/,
    );
    const rows = within(screen.getByLabelText('Replayed identifiers')).getAllByRole('row');
    expect(
      within(rows[1]!)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['203.0.113.9', '90', '20', '40']);
    expect(screen.getByRole('img').getAttribute('aria-label')).toMatch(
      /live at most 20 a minute, the rule replayed at most 30/,
    );
    expect(screen.queryByTestId('replay-incomplete')).toBeNull();
  });

  it("says when a calendar quota's record begins after its period did", async () => {
    answerFetch({
      'POST /policies/search/replay': {
        body: {
          ...REPLAYED,
          rule: {
            ...REPLAYED.rule,
            calendar: { unit: 'month', timeZone: 'UTC', anchorDay: null },
          },
          history: '2026-11-01T00:00:00.000Z',
          complete: false,
        },
      },
    });
    renderScreen(
      <PolicyReplay name="search" rule={() => ({ algorithm: 'fixed-window', limit: 10 })} />,
      { role: 'viewer', path: '/' },
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Replay' }));
    expect((await screen.findByTestId('replay-result')).textContent).toMatch(
      /Counted per calendar month\./,
    );
    expect(screen.getByTestId('replay-incomplete').textContent).toMatch(
      /The record begins after .*requests made before its first are not known/,
    );
  });

  it('says what to fix when the form holds no rule, and sends nothing', async () => {
    const requests = answerFetch({});
    renderScreen(
      <PolicyReplay name="search" rule={() => 'Enter a whole number for Limit to replay'} />,
      { role: 'viewer', path: '/' },
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Replay' }));
    await waitFor(() =>
      expect(screen.getByText('Enter a whole number for Limit to replay')).toBeTruthy(),
    );
    expect(requests.filter((each) => each.method === 'POST')).toEqual([]);
  });
});
