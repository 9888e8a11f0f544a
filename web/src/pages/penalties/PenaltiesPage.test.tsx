import type { PenaltyPage } from '@sluice/admin/api';
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { PenaltiesPage } from './PenaltiesPage';

const PAGE: PenaltyPage = {
  nextCursor: 'c2',
  penalties: [
    {
      id: 'p1',
      policy: 'reply',
      policyVersion: 3,
      keyKind: 'user',
      identifier: 'harry',
      key: null,
      offence: 1,
      trigger: { count: 3, limit: 2, windowMs: 60_000, algorithm: 'sliding-log' },
      startedAt: '2026-11-24T12:00:00.000Z',
      expiresAt: '2026-11-24T12:10:00.000Z',
      durationMs: 600_000,
      source: 'auto',
      createdBy: null,
      reason: null,
      state: 'lifted',
      liftedAt: '2026-11-24T12:01:00.000Z',
      liftedBy: 'olga',
      liftReason: 'talked to him',
      instanceId: 'web-1',
      route: 'PostsController.reply',
    },
  ],
};

const POLICIES = { version: 3, enforcement: true, policies: [{ name: 'reply' }, { name: 'like' }] };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the Penalties screen', () => {
  it('sends the filters as query parameters and pages on with the cursor', async () => {
    const requests = answerFetch({
      'GET /penalties': { body: PAGE },
      'GET /policies': { body: POLICIES },
    });
    const user = userEvent.setup();
    renderScreen(<PenaltiesPage />, { role: 'viewer', path: '/penalties' });

    await screen.findByText('talked to him', { exact: false });
    // What set the block off, read as the rule it is, and where.
    expect(screen.getByText('after 3 refusals over 2 per 1 min (sliding-log)')).toBeTruthy();
    expect(screen.getByText('set off on PostsController.reply')).toBeTruthy();
    await user.type(screen.getByLabelText('Identifier'), 'harry');
    await user.selectOptions(screen.getByLabelText('Policy'), 'reply');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() =>
      expect(requests.at(-1)?.url).toMatch(/\/penalties\?identifier=harry&policy=reply&limit=50$/),
    );
    await user.click(await screen.findByRole('button', { name: 'Next page' }));

    await waitFor(() => expect(requests.at(-1)?.url).toMatch(/cursor=c2/));
    expect(await screen.findByText('Page 2')).toBeTruthy();
  });

  it("downloads the server's CSV for the applied filters as penalties.csv", async () => {
    const csv = 'id,policy,identifier\np1,reply,harry\n';
    const requests = answerFetch({
      'GET /penalties': ({ url }) => (url.includes('limit=') ? { body: PAGE } : { body: csv }),
      'GET /policies': { body: POLICIES },
    });
    let saved: Blob | undefined;
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: (blob: Blob) => ((saved = blob), 'blob:csv'),
        revokeObjectURL: () => undefined,
      }),
    );
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      names.push(this.download);
    });
    const user = userEvent.setup();
    renderScreen(<PenaltiesPage />, { role: 'viewer', path: '/penalties?identifier=harry' });

    await screen.findByText('talked to him', { exact: false });
    await user.click(screen.getByRole('button', { name: 'Download CSV' }));

    await waitFor(() => expect(names).toEqual(['penalties.csv']));
    expect(await saved?.text()).toBe(csv);
    expect(requests.at(-1)?.url).toMatch(/\/penalties\?identifier=harry$/);
  });
});
