import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerFetch, renderScreen, type Answer } from '../../testing/render-screen';
import { IdentifiersPage } from './IdentifiersPage';

const decision = (policy: string, allowed: boolean, blockedUntil?: number) => ({
  allowed,
  policy,
  algorithm: 'sliding-log',
  limit: 2,
  remaining: allowed ? 2 : 0,
  resetMs: 0,
  retryAfterMs: allowed ? 0 : 30_000,
  delayMs: 0,
  reason: blockedUntil === undefined ? (allowed ? 'ok' : 'limit') : 'blocked',
  ...(blockedUntil === undefined
    ? {}
    : { blocked: { until: new Date(blockedUntil).toISOString(), offence: 1 } }),
  policies: [],
});

const routes: Record<string, Answer> = {
  'GET /policies': {
    body: {
      version: 2,
      enforcement: true,
      policies: [
        { name: 'reply', key: 'user' },
        { name: 'like', key: 'user' },
      ],
    },
  },
  'GET /inspect/reply/harry': { body: decision('reply', false, Date.now() + 600_000) },
  'GET /inspect/like/harry': { body: decision('like', true) },
  'GET /identifiers': {
    body: {
      identifiers: [
        {
          policy: 'reply',
          keyKind: 'user',
          identifier: 'harry',
          passed: 2,
          rejected: 3,
          lastSeen: '2026-11-24T12:00:00.000Z',
          state: { blocked: true, blockedUntil: null, remaining: 0, limit: 2, retryAfterMs: 0 },
        },
      ],
    },
  },
  'GET /penalties': { body: { penalties: [], nextCursor: null } },
  'GET /plans/harry': {
    body: {
      identifier: 'harry',
      keyKind: null,
      tier: null,
      expiresAt: null,
      policies: [],
      lastChange: null,
    },
  },
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the Identifiers screen', () => {
  it("shows the identifier's state under every policy and offers an operator the actions that fit", async () => {
    answerFetch(routes);
    renderScreen(<IdentifiersPage />, { role: 'operator', path: '/identifiers?q=harry' });

    const reply = (await screen.findByText(/blocked until/)).closest('tr') as HTMLElement;
    expect(within(reply).getByText(/2 passed, 3 rejected/)).toBeTruthy();
    expect(within(reply).getByRole('button', { name: 'Unblock harry' })).toBeTruthy();
    const like = (await screen.findByText('would pass')).closest('tr') as HTMLElement;
    expect(within(like).getByText('not seen')).toBeTruthy();
    expect(within(like).getByRole('button', { name: 'Block harry under like' })).toBeTruthy();
    expect(screen.getByText('Never blocked.')).toBeTruthy();
  });

  it('shows a viewer the same states and no action', async () => {
    answerFetch(routes);
    renderScreen(<IdentifiersPage />, { role: 'viewer', path: '/identifiers?q=harry' });

    await screen.findByText(/blocked until/);
    expect(screen.queryByRole('button', { name: /Unblock|Block|Reset/ })).toBeNull();
  });

  it('offers the other identifiers that contain the text, seen lately or penalized', async () => {
    const requests = answerFetch({
      ...routes,
      'GET /identifiers': {
        body: {
          identifiers: [
            {
              policy: 'reply',
              keyKind: 'user',
              identifier: '203.0.113.7/harry',
              passed: 1,
              rejected: 0,
              lastSeen: '2026-11-24T12:00:00.000Z',
              state: {
                blocked: false,
                blockedUntil: null,
                remaining: 1,
                limit: 2,
                retryAfterMs: 0,
              },
            },
          ],
        },
      },
      'GET /penalties': {
        body: {
          penalties: [{ id: '1', policy: 'reply', identifier: 'harry@example.org' }],
          nextCursor: null,
        },
      },
    });
    renderScreen(<IdentifiersPage />, { role: 'viewer', path: '/identifiers?q=harry' });
    const matches = await screen.findByRole('navigation', { name: 'Identifiers containing harry' });
    expect(
      within(matches)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['203.0.113.7/harry', 'harry@example.org']);
    expect(requests.some((request) => request.url.startsWith('/api/penalties?q=harry'))).toBe(true);
  });

  it("shows an identifier's plan and lets an operator move it everywhere at once, or take it off", async () => {
    const view = (tier: string | null) => ({
      identifier: 'harry',
      keyKind: null,
      tier,
      expiresAt: tier === 'pro' ? '2026-12-24T10:00:00.000Z' : null,
      policies: [
        { policy: 'api-burst', tier: tier === 'enterprise' ? null : tier, expiresAt: null },
        { policy: 'api-daily', tier, expiresAt: null },
      ],
      lastChange:
        tier === null
          ? null
          : {
              action: 'plan.assign',
              actor: 'olga',
              at: '2026-11-24T10:00:00.000Z',
              note: 'upgrade #12',
            },
    });
    let current: string | null = 'pro';
    const requests = answerFetch({
      ...routes,
      'GET /policies': {
        body: {
          version: 2,
          enforcement: true,
          policies: [
            { name: 'api-burst', key: 'header:x-api-key', tiers: { pro: { limit: 50 } } },
            {
              name: 'api-daily',
              key: 'header:x-api-key',
              tiers: { pro: { limit: 500 }, enterprise: { limit: 5000 } },
            },
          ],
        },
      },
      'GET /plans/harry': () => ({ body: view(current) }),
      'PUT /plans/harry': ({ body }) => {
        current = (body as { tier: string }).tier;
        return { body: view(current) };
      },
      'DELETE /plans/harry': () => {
        current = null;
        return { body: view(null) };
      },
    });
    const user = userEvent.setup();
    renderScreen(<IdentifiersPage />, { role: 'operator', path: '/identifiers?q=harry' });

    const plan = await screen.findByRole('region', { name: 'Plan of harry' });
    expect(
      within(plan).getByText(/^On pro until .*Set by olga on .*\(“upgrade #12”\)\.$/),
    ).toBeTruthy();

    await user.click(within(plan).getByRole('button', { name: 'Assign a plan to harry' }));
    const dialog = await screen.findByRole('dialog');
    await user.selectOptions(within(dialog).getByLabelText('Tier'), 'enterprise');
    await user.type(within(dialog).getByLabelText('For'), 'soon');
    await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
    expect(await within(dialog).findByText(/write it with its unit/)).toBeTruthy();
    await user.clear(within(dialog).getByLabelText('For'));
    await user.type(within(dialog).getByLabelText('For'), '30 d');
    await user.type(within(dialog).getByLabelText('Note'), 'annual contract');
    await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe(
        'harry is on enterprise under api-daily.',
      ),
    );
    const sent = requests.find((request) => request.method === 'PUT')?.body as {
      tier: string;
      expiresAt: string;
      note: string;
    };
    expect([sent.tier, sent.note]).toEqual(['enterprise', 'annual contract']);
    const days = (Date.parse(sent.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    await user.click(
      within(await screen.findByRole('region', { name: 'Plan of harry' })).getByRole('button', {
        name: 'Take harry off its plan',
      }),
    );
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Remove plan' }),
    );
    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe('harry is off its plan.'),
    );
    expect(requests.filter((request) => request.method === 'DELETE')).toHaveLength(1);
  });

  it('says why a limit is raised, and when the tier lookup failed and which one', async () => {
    const looked = { asked: true, tier: null, anchorDay: null, failure: null };
    const part = (policy: string, algorithm: string, limit: number, tier?: string) => ({
      ...decision(policy, true),
      algorithm,
      limit,
      remaining: limit,
      ...(tier === undefined ? {} : { tier }),
    });
    answerFetch({
      ...routes,
      'GET /policies': {
        body: {
          version: 2,
          enforcement: true,
          policies: [
            { name: 'api-daily', key: 'header:x-api-key', algorithm: 'fixed-window' },
            { name: 'api-burst', key: 'header:x-api-key', algorithm: 'gcra' },
          ],
        },
      },
      'GET /inspect/api-daily/harry': {
        body: {
          ...part('api-daily', 'fixed-window', 10),
          remaining: 21,
          policies: [{ ...part('api-daily', 'fixed-window', 10), remaining: 21 }],
          tierLookup: { ...looked, failure: 'tiers.ofIdentifier: no answer within 1000 ms' },
        },
      },
      'GET /inspect/api-burst/harry': {
        body: {
          ...part('api-burst', 'gcra', 50),
          policies: [part('api-burst', 'gcra', 50, 'pro')],
          tierLookup: { ...looked, tier: 'pro' },
        },
      },
      'GET /quotas/api-daily/harry': {
        body: {
          policy: 'api-daily',
          identifier: 'harry',
          used: 0,
          remaining: 21,
          limit: 10,
          granted: 11,
          resetAt: '2026-11-28T00:00:00.000Z',
          tier: null,
        },
      },
    });
    renderScreen(<IdentifiersPage />, { role: 'viewer', path: '/identifiers?q=harry' });

    const raised = (await screen.findByText('21 of 10')).closest('tr') as HTMLElement;
    expect(await within(raised).findByText('10 + 11 credits')).toBeTruthy();
    const tiered = (await screen.findByText('50 of 50')).closest('tr') as HTMLElement;
    expect(within(tiered).getByText('at tier pro')).toBeTruthy();
    expect((await screen.findByText(/tier lookup failed/)).textContent?.replace(/\s+/g, ' ')).toBe(
      "The app's tier lookup failed (tiers.ofIdentifier: no answer within 1000 ms): the figures below are at each policy's own rate, not harry's plan.",
    );
  });

  it("shows an API key's quota and in-flight requests, and lets an operator credit it", async () => {
    const quota = {
      policy: 'api-daily',
      identifier: 'harry',
      used: 18,
      remaining: 2,
      limit: 20,
      granted: 0,
      resetAt: '2026-11-28T00:00:00.000Z',
      tier: 'free',
    };
    const requests = answerFetch({
      ...routes,
      'GET /policies': {
        body: {
          version: 2,
          enforcement: true,
          policies: [
            { name: 'api-daily', key: 'header:x-api-key', algorithm: 'fixed-window' },
            { name: 'api-export', key: 'header:x-api-key', algorithm: 'concurrency' },
          ],
        },
      },
      'GET /inspect/api-daily/harry': { body: decision('api-daily', true) },
      'GET /inspect/api-export/harry': {
        body: { ...decision('api-export', true), algorithm: 'concurrency', limit: 3, remaining: 1 },
      },
      'GET /quotas/api-daily/harry': { body: quota },
      // The first answer is lost on the way (a proxy's 502); the retry finds the grant made.
      'POST /quotas/api-daily/harry/grant': () =>
        (grants += 1) === 1
          ? {
              status: 502,
              body: { statusCode: 502, error: 'Bad Gateway', message: 'upstream reset' },
            }
          : { body: { ...quota, granted: 500, remaining: 502, replayed: true } },
    });
    let grants = 0;
    const user = userEvent.setup();
    renderScreen(<IdentifiersPage />, { role: 'operator', path: '/identifiers?q=harry' });

    expect(await screen.findByText('2 in flight of 3')).toBeTruthy();
    const quotas = await screen.findByLabelText('Quotas of harry');
    const row = (await within(quotas).findByText(/18 of 20/)).closest('tr') as HTMLElement;
    expect(within(row).getByText('free')).toBeTruthy();
    // Only quotas are listed: the concurrency policy has none.
    expect(within(quotas).queryByText('api-export')).toBeNull();

    await user.click(
      within(row).getByRole('button', { name: 'Grant credits to harry under api-daily' }),
    );
    await user.type(await screen.findByLabelText('Amount'), '500');
    await user.type(screen.getByLabelText('Note'), 'goodwill after the outage');
    await user.click(screen.getByRole('button', { name: 'Grant' }));
    expect(await screen.findByText('upstream reset')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Grant' }));
    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe(
        'This grant was already made; nothing more was granted. harry has 502 left under api-daily (credits 500).',
      ),
    );
    const sent = requests.filter((request) => request.method === 'POST').map((r) => r.body);
    expect(sent).toEqual([
      {
        amount: 500,
        note: 'goodwill after the outage',
        key: expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
      },
      { amount: 500, note: 'goodwill after the outage', key: (sent[0] as { key: string }).key },
    ]);
  });

  it('shows a viewer the quotas without the control to credit them', async () => {
    answerFetch({
      ...routes,
      'GET /policies': {
        body: {
          version: 2,
          enforcement: true,
          policies: [{ name: 'api-daily', key: 'header:x-api-key', algorithm: 'fixed-window' }],
        },
      },
      'GET /inspect/api-daily/harry': { body: decision('api-daily', true) },
      'GET /quotas/api-daily/harry': {
        body: {
          policy: 'api-daily',
          identifier: 'harry',
          used: 3,
          remaining: 17,
          limit: 20,
          granted: 0,
          resetAt: '2026-11-28T00:00:00.000Z',
          tier: null,
        },
      },
    });
    renderScreen(<IdentifiersPage />, { role: 'viewer', path: '/identifiers?q=harry' });
    expect(await screen.findByText(/3 of 20/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Grant credits/ })).toBeNull();
  });

  it('reads everything again when the same identifier is searched again', async () => {
    const requests = answerFetch(routes);
    const user = userEvent.setup();
    renderScreen(<IdentifiersPage />, { role: 'viewer', path: '/identifiers?q=harry' });
    // The penalty history is read once and on demand only (no timer reads it again).
    const histories = () =>
      requests.filter((request) => request.url.startsWith('/api/penalties?identifier=harry'))
        .length;
    await waitFor(() => expect(histories()).toBe(1));
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(histories()).toBe(2));
  });
});
