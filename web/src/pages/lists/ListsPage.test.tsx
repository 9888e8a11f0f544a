import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { ListsPage } from './ListsPage';

const shadow = {
  id: '6f1c0e0e-3a51-4a43-9b0e-1d7b0c8f4a11',
  list: 'deny',
  kind: 'identifier',
  value: 'free-demo-1',
  keyKind: 'header:x-api-key',
  prefix: false,
  policies: null,
  mode: 'shadow',
  reason: 'watching',
  expiresAt: null,
  createdBy: 'olga',
  createdAt: '2026-11-27T09:00:00.000Z',
  expired: false,
  hits: { enforced: 0, shadow: 4 },
};

afterEach(cleanup);

describe('the Lists screen', () => {
  it('switches a shadow entry to enforce in place, asking first', async () => {
    const requests = answerFetch({
      'GET /lists': { body: { entries: [shadow], max: 1000 } },
      [`PATCH /lists/${shadow.id}`]: { body: { ...shadow, mode: 'enforce' } },
    });
    const user = userEvent.setup();
    renderScreen(<ListsPage />, { role: 'operator', path: '/lists' });
    await user.click(await screen.findByRole('button', { name: 'Enforce free-demo-1' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog.textContent).toContain('its counts stay');
    await user.click(within(dialog).getByRole('button', { name: 'Enforce' }));
    await screen.findByText(/free-demo-1 is enforced; every instance applies it within a second\./);
    const patched = requests.filter((request) => request.method === 'PATCH');
    expect(patched.map((request) => [request.url, request.body])).toEqual([
      [`/api/lists/${shadow.id}`, { mode: 'enforce' }],
    ]);
  });
});
