import type { AuditPage as AuditPageBody } from '@sluice/admin/api';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { AuditPage } from './AuditPage';

const PAGE: AuditPageBody = {
  nextCursor: null,
  entries: [
    {
      id: 12,
      occurredAt: '2026-11-24T12:00:00.000Z',
      actor: 'alice',
      ip: '127.0.0.1',
      userAgent: 'Chromium',
      action: 'policy.replace',
      target: 'reply',
      before: { name: 'reply', limit: 5, periodMs: 60_000 },
      after: { name: 'reply', limit: 2, periodMs: 60_000 },
      comment: 'Harry replies too often',
      version: 8,
    },
  ],
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the Audit screen', () => {
  it('shows who changed what, and on request the field before and after', async () => {
    answerFetch({ 'GET /audit': { body: PAGE } });
    const user = userEvent.setup();
    renderScreen(<AuditPage />, { role: 'viewer', path: '/audit' });

    const row = (await screen.findByText('Harry replies too often')).closest('tr') as HTMLElement;
    expect(within(row).getByText('alice')).toBeTruthy();
    expect(within(row).getByText('policy.replace')).toBeTruthy();
    expect(screen.queryByRole('region')).toBeNull();

    const toggle = within(row).getByRole('button', { name: 'Show change' });
    await user.click(toggle);

    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const change = screen.getByRole('region', {
      name: 'policy.replace of reply, before and after',
    });
    const removed = [...change.querySelectorAll('.diff-removed')].map((line) => line.textContent);
    const added = [...change.querySelectorAll('.diff-added')].map((line) => line.textContent);
    expect(removed.join()).toMatch(/"limit": 5/);
    expect(added.join()).toMatch(/"limit": 2/);
    expect(change.textContent).toMatch(/"periodMs": 60000/);
  });

  it('sends the chosen action as a filter', async () => {
    const requests = answerFetch({ 'GET /audit': { body: PAGE } });
    const user = userEvent.setup();
    renderScreen(<AuditPage />, { role: 'viewer', path: '/audit' });

    await screen.findByText('Harry replies too often');
    await user.selectOptions(screen.getByLabelText('Action'), 'block.lift');
    await user.click(screen.getByRole('button', { name: 'Apply' }));

    await vi.waitFor(() =>
      expect(requests.at(-1)?.url).toMatch(/\/audit\?action=block\.lift&limit=50$/),
    );
  });
});
