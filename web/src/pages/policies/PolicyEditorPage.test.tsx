import type { PolicyView } from '@sluice/admin/api';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPLY } from '../../testing/policy-view.fixture';
import { answerFetch, renderScreen, TestEventSource } from '../../testing/render-screen';
import { PolicyEditorPage } from './PolicyEditorPage';

/** The page lists the allow and deny list entries that apply to the policy: none here. */
const NO_LIST_ENTRIES = { 'GET /lists': { body: { max: 1000, entries: [] } } };
/** reply's traffic profile before any window was counted. */
const NO_PROFILE = {
  'GET /policies/reply/profile': {
    body: {
      policy: 'reply',
      range: 'day',
      tier: null,
      windowMs: 60_000,
      from: '2026-11-29T09:00:00.000Z',
      to: '2026-11-30T10:00:00.000Z',
      windows: 0,
      identifierWindows: 0,
      requests: 0,
      percentiles: null,
      max: 0,
      histogram: [],
      busiest: [],
      share: 1,
      bucketError: 0.0625,
      late: 0,
      limit: 3,
      periodMs: 60_000,
    },
  },
};

const editor = (role: 'viewer' | 'operator' | 'admin') =>
  renderScreen(<PolicyEditorPage />, { role, path: '/policies/reply', route: '/policies/:name' });

/** The text of the message an input's aria-describedby points at. */
function describedBy(input: HTMLElement): string {
  return (input.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the policy editor', () => {
  it("shows the server's validation messages at the fields they name", async () => {
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: REPLY },
      'PUT /policies/reply': {
        status: 400,
        body: {
          statusCode: 400,
          error: 'Bad Request',
          message: 'Policy "reply" is invalid',
          issues: [
            { field: 'limit', message: 'must be an integer from 1 to 1000000000' },
            { field: 'penalty.blockMs', message: 'must be an integer from 1 to 31536000000' },
          ],
        },
      },
    });
    const user = userEvent.setup();
    editor('admin');

    const limit = await screen.findByLabelText('Limit');
    await user.clear(limit);
    await user.type(limit, '0');
    await user.click(screen.getByLabelText('Block repeat offenders'));
    await user.clear(screen.getByLabelText('Block for'));
    await user.type(screen.getByLabelText('Block for'), '0 s');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(limit.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(limit)).toContain('must be an integer from 1 to 1000000000');
    const blockFor = screen.getByLabelText('Block for');
    expect(blockFor.getAttribute('aria-invalid')).toBe('true');
    expect(describedBy(blockFor)).toContain('must be an integer from 1 to 31536000000');
    expect(screen.getByRole('alert').textContent).toMatch(/refused some fields/);
    const sent = requests.find((request) => request.method === 'PUT')?.body as Record<
      string,
      unknown
    >;
    expect(sent).toMatchObject({
      version: 4,
      limit: 0,
      penalty: { afterViolations: 3, blockMs: 0 },
    });
  });

  it('takes the window as people write it, spells the rate out and sends milliseconds', async () => {
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: REPLY },
      'PUT /policies/reply': ({ body }) => ({
        body: { ...REPLY, ...(body as object), version: 5 },
      }),
    });
    const user = userEvent.setup();
    editor('admin');

    const windowField = await screen.findByLabelText<HTMLInputElement>('Window');
    expect(windowField.value).toBe('1 min');
    expect(screen.getByTestId('rate-sentence').textContent).toBe('5 per minute');

    await user.clear(windowField);
    await user.type(windowField, 'soon');
    expect(screen.queryByTestId('rate-sentence')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(windowField.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(windowField)).toContain('write a duration such as');
    expect(requests.some((request) => request.method === 'PUT')).toBe(false);

    await user.clear(windowField);
    await user.type(windowField, '1 h 30 min');
    expect(screen.getByTestId('rate-sentence').textContent).toBe('5 per 1 h 30 min');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText(/Saved/);
    const sent = requests.find((request) => request.method === 'PUT')?.body;
    expect(sent).toMatchObject({ periodMs: 5_400_000, version: 4 });
  });

  it('asks before a save the server says resets the counts, then sends it confirmed', async () => {
    const resets =
      'Changing windows of 60000 ms to windows of 5400000 ms starts a new period for every identifier now. Save with confirm=reset if you mean it.';
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: REPLY },
      'PUT /policies/reply': ({ url, body }) =>
        url.includes('confirm=reset')
          ? { body: { ...REPLY, ...(body as object), version: 5 } }
          : {
              status: 400,
              body: {
                statusCode: 400,
                error: 'Bad Request',
                message: `confirm: ${resets}`,
                issues: [{ field: 'confirm', message: resets }],
              },
            },
    });
    const user = userEvent.setup();
    editor('admin');

    const windowField = await screen.findByLabelText<HTMLInputElement>('Window');
    await user.clear(windowField);
    await user.type(windowField, '1 h 30 min');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const question = await screen.findByRole('alertdialog');
    expect(within(question).getByText(resets)).toBeTruthy();
    expect(screen.queryByText(/Saved/)).toBeNull();

    // Cancelled, nothing more is sent; asked again and agreed, the same body goes confirmed.
    await user.click(within(question).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', {
        name: 'Save and reset',
      }),
    );
    await screen.findByText(/Saved as version 5/);
    const puts = requests.filter((request) => request.method === 'PUT');
    expect(puts.map((request) => request.url)).toEqual([
      '/api/policies/reply',
      '/api/policies/reply',
      '/api/policies/reply?confirm=reset',
    ]);
    expect(puts[2]?.body).toEqual(puts[0]?.body);
  });

  it("charts the policy's traffic live and over the range picked, with its headline", async () => {
    const minute = (at: string) => ({
      at,
      policies: {
        reply: {
          allowed: 100,
          rejected: 20,
          blocked: 0,
          delayed: 0,
          shadowRejected: 0,
          storeError: 0,
        },
      },
    });
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: REPLY },
      'GET /blocked': { body: { blocked: [], total: 2 } },
      'GET /instances': { body: { version: null, instances: [] } },
      'GET /stats': ({ url }) =>
        url.includes('minutes=60')
          ? {
              body: {
                resolution: 'minute',
                points: [minute('2026-11-26T12:00:00.000Z'), minute('2026-11-26T12:01:00.000Z')],
              },
            }
          : { body: { resolution: 'second', points: [] } },
    });
    const user = userEvent.setup();
    editor('viewer');

    await waitFor(() => expect(screen.getByTestId('headline-blocked').textContent).toBe('2'));
    TestEventSource.send('instances', {
      version: 4,
      instances: [
        { id: 'a', upToDate: true, stale: false },
        { id: 'b', upToDate: false, stale: false },
      ],
    });
    TestEventSource.send('stats', {
      at: '2026-11-26T12:05:00.000Z',
      policies: {
        reply: {
          allowed: 6,
          rejected: 1,
          blocked: 1,
          delayed: 0,
          shadowRejected: 0,
          storeError: 0,
        },
        other: {
          allowed: 500,
          rejected: 0,
          blocked: 0,
          delayed: 0,
          shadowRejected: 0,
          storeError: 0,
        },
      },
    });
    await waitFor(() => expect(screen.getByTestId('headline-rate').textContent).toBe('8.0'));
    expect(screen.getByTestId('headline-refused').textContent).toBe('25.0 %');
    expect(screen.getByTestId('headline-instances').textContent).toBe('1 of 2');

    await user.click(screen.getByRole('radio', { name: '1 h' }));
    // Over an hour the headline counts per minute, as the chart's points do: 2 a second is 120.
    await waitFor(() => expect(screen.getByTestId('headline-rate').textContent).toBe('120'));
    expect(screen.getByText('Decisions per minute')).toBeTruthy();
    expect(screen.getByTestId('headline-refused').textContent).toBe('16.7 %');
    expect(screen.getByTestId('rejected-reply').textContent).toBe('40');
    expect(
      screen.getByLabelText(/Decisions for reply over the last hour, per minute/),
    ).toBeTruthy();
    const asked = requests.filter((request) => request.url.startsWith('/api/stats'));
    expect(asked.map((request) => request.url)).toEqual([
      '/api/stats?seconds=300',
      '/api/stats?minutes=60&policy=reply',
    ]);
  });

  it('proposes the edit as a candidate, shows where it differs, and promotes it on confirmation', async () => {
    const withCandidate: PolicyView = {
      ...REPLY,
      candidate: {
        proposedBy: 'alice',
        proposedAt: '2026-11-26T12:00:00.000Z',
        expiresAt: '2026-11-27T12:00:00.000Z',
        baseVersion: 4,
        samplePercent: 25,
      },
    };
    let promotions = 0;
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: withCandidate },
      'POST /policies/reply/candidate': { status: 201, body: {} },
      'GET /policies/reply/candidate': {
        body: {
          policy: 'reply',
          rules: { ...REPLY, limit: 3 },
          baseVersion: 4,
          liveVersion: 5,
          stale: true,
          proposedBy: 'alice',
          proposedAt: '2026-11-26T12:00:00.000Z',
          expiresAt: '2026-11-27T12:00:00.000Z',
          comment: null,
          samplePercent: 25,
          changedFields: ['limit'],
          differences: [
            {
              keyKind: 'user',
              identifier: 'harry',
              candidateRefuses: 2,
              liveRefuses: 0,
              lastSeen: '2026-11-26T12:01:00.000Z',
            },
          ],
        },
      },
      'POST /policies/reply/candidate/promote': () =>
        ++promotions === 1
          ? {
              status: 409,
              body: { statusCode: 409, error: 'Conflict', message: 'changed', currentVersion: 5 },
            }
          : { body: { ...REPLY, limit: 3, version: 6 } },
    });
    const user = userEvent.setup();
    editor('admin');

    const limit = await screen.findByLabelText('Limit');
    await user.clear(limit);
    await user.type(limit, '3');
    const sample = screen.getByLabelText('Candidate sample, % of identifiers');
    await user.clear(sample);
    await user.type(sample, '0');
    await user.click(screen.getByRole('button', { name: 'Try as candidate' }));
    expect(await screen.findByText('must be a whole number of percent from 1 to 100')).toBeTruthy();
    expect(requests.some((request) => request.method === 'POST')).toBe(false);

    await user.clear(sample);
    await user.type(sample, '25');
    await user.click(screen.getByRole('button', { name: 'Try as candidate' }));
    await screen.findByText(/Proposed as this policy's candidate/);
    const proposal = requests.find((request) => request.method === 'POST')?.body;
    expect(proposal).toMatchObject({ limit: 3, version: 4, samplePercent: 25 });
    expect(requests.some((request) => request.method === 'PUT')).toBe(false);

    const candidate = await screen.findByLabelText('Candidate');
    await waitFor(() => expect(candidate.textContent).toContain('Candidate: 3 per minute'));
    expect(candidate.textContent).toContain('the policy changed since');
    expect(candidate.textContent).toContain('25 % of identifiers');
    expect(
      screen.getByLabelText(/Decisions for reply — live, on the candidate's sample/),
    ).toBeTruthy();
    const harry = screen.getByRole('rowheader', { name: /harry/ }).closest('tr');
    expect(harry?.textContent).toMatch(/harry.*2.*0/);

    await user.click(screen.getByRole('button', { name: 'Promote' }));
    const dialog = await screen.findByRole('alertdialog');
    await user.click(within(dialog).getByRole('button', { name: 'Promote' }));
    await within(dialog).findByRole('button', { name: 'Promote anyway' });
    expect(dialog.textContent).toMatch(/The policy changed since this candidate was proposed/);
    await user.click(within(dialog).getByRole('button', { name: 'Promote anyway' }));
    await waitFor(() => expect(promotions).toBe(2));
    const sent = requests
      .filter((request) => request.url.endsWith('/candidate/promote'))
      .map((request) => request.body);
    expect(sent).toEqual([{}, { confirm: true }]);
  });

  it('shows the fields the chosen algorithm takes, and only those', async () => {
    answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: REPLY },
    });
    const user = userEvent.setup();
    editor('admin');
    const algorithm = await screen.findByLabelText('Algorithm');

    expect(screen.getByLabelText('Window')).toBeTruthy();
    expect(screen.queryByLabelText('Burst')).toBeNull();

    await user.selectOptions(algorithm, 'token-bucket');
    expect(screen.getByLabelText('Burst')).toBeTruthy();
    expect(screen.getByLabelText('Period')).toBeTruthy();
    expect(screen.queryByLabelText('Segments')).toBeNull();

    await user.selectOptions(algorithm, 'sliding-window');
    expect(screen.getByLabelText('Segments')).toBeTruthy();
    expect(screen.queryByLabelText('Burst')).toBeNull();

    await user.selectOptions(algorithm, 'leaky-bucket');
    expect(screen.getByLabelText('Longest delay')).toBeTruthy();
    expect(screen.getByLabelText('Burst')).toBeTruthy();
  });

  it('limits requests in flight, and settles a quota after the response', async () => {
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: REPLY },
      'PUT /policies/reply': ({ body }) => ({
        body: { ...REPLY, ...(body as object), version: 5 },
      }),
    });
    const user = userEvent.setup();
    editor('admin');
    const algorithm = await screen.findByLabelText('Algorithm');

    await user.selectOptions(algorithm, 'concurrency');
    expect(screen.getByLabelText('Lease lapses after')).toBeTruthy();
    // Slots, not a rate: "5 at a time", where a window policy says "5 per minute".
    expect(screen.getByTestId('rate-sentence').textContent).toMatch(/^\d+ at a time$/);
    expect(screen.queryByLabelText('Burst')).toBeNull();
    expect(screen.queryByText('Charge after the response')).toBeNull();

    await user.selectOptions(algorithm, 'fixed-window');
    await user.click(screen.getByLabelText('Settle the real cost once the response is known'));
    await user.type(screen.getByLabelText('Usage header'), 'x-usage-tokens');
    await user.type(screen.getByLabelText('Most per request'), '4000');
    await user.selectOptions(screen.getByLabelText('A failed or aborted request'), 'keep');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText(/Saved/);
    const sent = requests.find((request) => request.method === 'PUT')?.body;
    expect(sent).toMatchObject({
      algorithm: 'fixed-window',
      usage: { header: 'x-usage-tokens', maxCost: 4000, onFailure: 'keep' },
    });
  });

  it('shows a viewer the rules and no control to change them', async () => {
    answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: REPLY },
    });
    editor('viewer');

    await screen.findByText('Rules');
    expect(screen.getByText('Sliding log (sliding-log)')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    expect(screen.queryByLabelText('Limit')).toBeNull();
    expect(screen.queryByRole('button', { name: /Delete|Return to code default/ })).toBeNull();
  });

  it('lets an operator add an override while the rules stay as stored', async () => {
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: REPLY },
      'PUT /policies/reply': ({ body }) => ({
        body: { ...REPLY, ...(body as object), version: 5 },
      }),
    });
    const user = userEvent.setup();
    editor('operator');

    const limit = await screen.findByLabelText('Limit');
    expect((limit as HTMLInputElement).disabled).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Add override' }));
    await user.type(screen.getByLabelText('Identifier'), 'alice');
    await user.type(screen.getByLabelText('Its limit'), '50');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await screen.findByText(/Saved/);
    const sent = requests.find((request) => request.method === 'PUT')?.body;
    expect(sent).toMatchObject({
      algorithm: 'sliding-log',
      limit: 5,
      periodMs: 60_000,
      version: 4,
      overrides: [{ identifier: 'alice', limit: 50, expiresAt: null }],
    });
  });

  it('writes an override for the kind of identifier it names, and reads it back so', async () => {
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': {
        body: {
          ...REPLY,
          overrides: [
            { identifier: 'ginny', keyKind: 'user', limit: 9, unlimited: false, expiresAt: null },
          ],
        },
      },
      'PUT /policies/reply': ({ body }) => ({
        body: { ...REPLY, ...(body as object), version: 5 },
      }),
    });
    const user = userEvent.setup();
    editor('operator');

    const [ginny] = await screen.findAllByRole('group', { name: /^Override \d$/ });
    const ginnyKind = within(ginny!).getByLabelText<HTMLInputElement>('Counted as');
    expect(ginnyKind.value).toBe('');
    expect(describedBy(ginnyKind)).toContain("Empty: user, the policy's key");
    await user.click(screen.getByRole('button', { name: 'Add override' }));
    const added = screen.getByRole('group', { name: 'Override 2' });
    await user.type(within(added).getByLabelText('Identifier'), '198.51.100.9');
    await user.type(within(added).getByLabelText('Counted as'), 'ip');
    await user.type(within(added).getByLabelText('Its limit'), '50');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await screen.findByText(/Saved/);
    const sent = requests.find((request) => request.method === 'PUT')?.body;
    expect(sent).toMatchObject({
      overrides: [
        { identifier: 'ginny', limit: 9, expiresAt: null },
        { identifier: '198.51.100.9', keyKind: 'ip', limit: 50, expiresAt: null },
      ],
    });
    expect((sent as { overrides: object[] }).overrides[0]).not.toHaveProperty('keyKind');
  });

  it("keeps and edits an identifier's own renewal day on a monthly quota", async () => {
    const monthly = {
      ...REPLY,
      algorithm: 'fixed-window' as const,
      periodMs: 2_682_000_000,
      calendar: { unit: 'month' as const, timeZone: 'UTC', anchorDay: null },
      overrides: [
        {
          identifier: 'acct-15',
          prefix: false,
          keyKind: 'user',
          limit: null,
          unlimited: false,
          tier: null,
          anchorDay: 15,
          expiresAt: null,
        },
      ],
    };
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': { body: monthly },
      'PUT /policies/reply': ({ body }) => ({
        body: { ...monthly, ...(body as object), version: 5 },
      }),
    });
    const user = userEvent.setup();
    editor('operator');

    const first = await screen.findByRole('group', { name: 'Override 1' });
    expect(within(first).getByLabelText<HTMLSelectElement>('Treatment').value).toBe('anchor');
    expect(within(first).getByLabelText<HTMLInputElement>('Renews on day').value).toBe('15');
    await user.click(screen.getByRole('button', { name: 'Add override' }));
    const added = screen.getByRole('group', { name: 'Override 2' });
    await user.type(within(added).getByLabelText('Identifier'), 'acct-20');
    await user.type(within(added).getByLabelText('Its limit'), '3');
    await user.type(within(added).getByLabelText('Renews on day'), '20');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await screen.findByText(/Saved/);
    const sent = requests.find((request) => request.method === 'PUT')?.body as {
      overrides: object[];
    };
    expect(sent.overrides).toEqual([
      { identifier: 'acct-15', anchorDay: 15, expiresAt: null },
      { identifier: 'acct-20', limit: 3, anchorDay: 20, expiresAt: null },
    ]);
  });

  it('edits tiers and assigns an identifier to one, keeping the tiers it read', async () => {
    const requests = answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': {
        body: { ...REPLY, tiers: { free: { limit: 5, burst: null, maxDelayMs: null } } },
      },
      'PUT /policies/reply': ({ body }) => ({
        body: { ...REPLY, ...(body as object), version: 5 },
      }),
    });
    const user = userEvent.setup();
    editor('admin');

    const free = await screen.findByRole('group', { name: 'Tier 1' });
    expect(within(free).getByLabelText<HTMLInputElement>('Tier').value).toBe('free');
    await user.click(screen.getByRole('button', { name: 'Add tier' }));
    const pro = screen.getByRole('group', { name: 'Tier 2' });
    await user.type(within(pro).getByLabelText('Tier'), 'pro');
    await user.type(within(pro).getByLabelText('Tier limit'), '50');
    await user.click(screen.getByRole('button', { name: 'Add override' }));
    const override = screen.getByRole('group', { name: 'Override 1' });
    await user.type(within(override).getByLabelText('Identifier'), 'partner-1');
    await user.selectOptions(within(override).getByLabelText('Treatment'), 'tier');
    await user.selectOptions(within(override).getByLabelText('Its tier'), 'pro');
    await user.click(within(override).getByLabelText('Prefix: all that start with it'));
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await screen.findByText(/Saved/);
    const sent = requests.find((request) => request.method === 'PUT')?.body;
    expect(sent).toMatchObject({
      tiers: { free: { limit: 5 }, pro: { limit: 50 } },
      overrides: [{ identifier: 'partner-1', prefix: true, tier: 'pro', expiresAt: null }],
    });
  });

  it("places the server's issue about a tier at that tier's field, and flags a repeated name", async () => {
    answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': {
        body: { ...REPLY, tiers: { pro: { limit: 50, burst: null, maxDelayMs: null } } },
      },
      'PUT /policies/reply': {
        status: 400,
        body: {
          statusCode: 400,
          error: 'Bad Request',
          message: 'Policy "reply" is invalid',
          issues: [{ field: 'tiers.pro.limit', message: 'must not exceed periodMs × 1000' }],
        },
      },
    });
    const user = userEvent.setup();
    editor('admin');

    const pro = await screen.findByRole('group', { name: 'Tier 1' });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const limit = within(pro).getByLabelText('Tier limit');
    await waitFor(() => expect(limit.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(limit)).toContain('must not exceed periodMs × 1000');

    await user.click(screen.getByRole('button', { name: 'Add tier' }));
    const again = screen.getByRole('group', { name: 'Tier 2' });
    await user.type(within(again).getByLabelText('Tier'), 'pro');
    expect(describedBy(within(again).getByLabelText('Tier'))).toContain(
      'Another tier has this name',
    );
  });

  it("marks an expired override, says its time zone, and that the policy's burst still caps it", async () => {
    answerFetch({
      ...NO_LIST_ENTRIES,
      ...NO_PROFILE,
      'GET /policies/reply': {
        body: {
          ...REPLY,
          algorithm: 'token-bucket',
          burst: 23,
          overrides: [
            {
              identifier: 'neville',
              keyKind: 'user',
              limit: 100,
              unlimited: false,
              expiresAt: Date.now() - 60_000,
            },
            { identifier: 'luna', keyKind: 'user', limit: 100, unlimited: false, expiresAt: null },
          ],
        },
      },
    });
    editor('operator');
    const [neville, luna] = await screen.findAllByRole('group', { name: /^Override \d$/ });
    expect(neville!.textContent).toContain('expired: no longer applies');
    expect(luna!.textContent).not.toContain('expired');
    const limit = within(luna!).getByLabelText('Its limit');
    expect(describedBy(limit)).toContain('at most 23 at once: the burst still applies');
    const expires = within(luna!).getByLabelText('Expires');
    expect(describedBy(expires)).toContain(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
