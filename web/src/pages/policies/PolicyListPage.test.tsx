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
