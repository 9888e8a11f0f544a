import type { PolicyList, PolicyView } from '@sluice/admin/api';
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPLY } from '../../testing/policy-view.fixture';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { PolicyListPage } from './PolicyListPage';

const list = (policies: PolicyView[], file: PolicyList['file']): PolicyList => ({
  version: 12,
  enforcement: true,
  policies,
  file,
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the policy list', () => {
  it('marks the policies that drifted from the policy file applied and from their code', async () => {
    answerFetch({
      'GET /policies': {
        body: list(
          [
            { ...REPLY, drift: { fromCode: true, fromFile: 'differs' } },
            { ...REPLY, name: 'search', drift: { fromCode: null, fromFile: 'missing' } },
            { ...REPLY, name: 'browse', drift: { fromCode: false, fromFile: 'same' } },
          ],
          { version: 9, appliedBy: 'ci', appliedAt: '2026-11-28T10:00:00.000Z', comment: null },
        ),
      },
    });
    renderScreen(<PolicyListPage />, { role: 'viewer', path: '/policies' });

    const row = async (name: string) =>
      (await screen.findByRole('link', { name })).closest('tr') as HTMLElement;
    expect(within(await row('reply')).getByText('differs from file')).toBeTruthy();
    expect(within(await row('reply')).getByText('edited from code')).toBeTruthy();
    expect(within(await row('search')).getByText('not in file')).toBeTruthy();
    expect(within(await row('browse')).queryByText(/file|code/)).toBeNull();
    expect(screen.getByText(/policy file applied as version 9 by ci/)).toBeTruthy();
  });

  it("spells each rate as the editor does, a concurrency policy's as slots, and each tier's limit", async () => {
    answerFetch({
      'GET /policies': {
        body: list(
          [
            { ...REPLY, limit: 5, periodMs: 60_000, burst: null, tiers: null },
            {
              ...REPLY,
              name: 'api-export',
              algorithm: 'concurrency',
              limit: 1,
              periodMs: 60_000,
              tiers: { pro: { limit: 3 } } as unknown as PolicyView['tiers'],
            },
            {
              ...REPLY,
              name: 'api-burst',
              algorithm: 'gcra',
              limit: 10,
              periodMs: 1_000,
              burst: 20,
              tiers: {
                pro: { limit: 50 },
                enterprise: { limit: 500 },
              } as unknown as PolicyView['tiers'],
            },
          ],
          null,
        ),
      },
    });
    renderScreen(<PolicyListPage />, { role: 'viewer', path: '/policies' });
    const row = async (name: string) =>
      (await screen.findByRole('link', { name })).closest('tr') as HTMLElement;
    expect(within(await row('reply')).getByText('5 per minute')).toBeTruthy();
    expect(within(await row('api-export')).getByText('1 at a time; pro 3')).toBeTruthy();
    expect(
      within(await row('api-burst')).getByText('10 per second, burst 20; pro 50, enterprise 500'),
    ).toBeTruthy();
  });

  it('says when no policy file was applied, and marks nothing against one', async () => {
    answerFetch({
      'GET /policies': {
        body: list([{ ...REPLY, drift: { fromCode: false, fromFile: null } }], null),
      },
    });
    renderScreen(<PolicyListPage />, { role: 'viewer', path: '/policies' });
    expect(await screen.findByText(/no policy file applied/)).toBeTruthy();
    expect(screen.queryByText(/differs from file|not in file/)).toBeNull();
  });
});
