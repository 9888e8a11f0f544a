import type { BlockedList } from '@sluice/admin/api';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Countdown } from '../../shared/Countdown';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { BlockedPage } from './BlockedPage';

const HARRY: BlockedList = {
  total: 1,
  blocked: [
    {
      policy: 'reply',
      keyKind: 'user',
      identifier: 'harry',
      key: null,
      offence: 1,
      source: 'auto',
      startedAt: new Date(Date.now() - 60_000).toISOString(),
      expiresAt: new Date(Date.now() + 540_000).toISOString(),
      timeLeftMs: 540_000,
      createdBy: null,
      reason: null,
      route: 'PostsController.reply',
    },
  ],
};

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the Blocked screen', () => {
  it('counts a block down every second and says when it has ended', () => {
    vi.useFakeTimers({ now: new Date('2026-11-24T12:00:00Z') });
    render(<Countdown until="2026-11-24T12:00:03Z" />);

    expect(screen.getByText('3 s')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByText('2 s')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(screen.getByText('ended')).toBeTruthy();
  });

  it('shows a viewer the blocked list without any action', async () => {
    answerFetch({
      'GET /blocked': { body: HARRY },
      'GET /policies': { body: { version: 1, enforcement: true, policies: [] } },
    });
    renderScreen(<BlockedPage />, { role: 'viewer', path: '/blocked' });

    await screen.findByRole('link', { name: 'harry' });
    expect(screen.queryByRole('button', { name: 'Unblock harry' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Block by hand' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Reset counters' })).toBeNull();
  });

  it('lets an operator unblock, resetting the counters too', async () => {
    let blocked = HARRY;
    const requests = answerFetch({
      'GET /blocked': () => ({ body: blocked }),
      'GET /policies': { body: { version: 1, enforcement: true, policies: [] } },
      'DELETE /blocked/reply/harry': () => {
        blocked = { total: 0, blocked: [] };
        return { body: { lifted: true } };
      },
      'DELETE /counters/reply/harry': { body: { reset: true } },
    });
    const user = userEvent.setup();
    renderScreen(<BlockedPage />, { role: 'operator', path: '/blocked' });

    await user.click(await screen.findByRole('button', { name: 'Unblock harry' }));
    const dialog = screen.getByRole('alertdialog');
    await user.type(within(dialog).getByLabelText('Reason'), 'talked to him');
    await user.click(within(dialog).getByRole('button', { name: 'Unblock' }));

    await screen.findByText('Nobody is blocked now.');
    expect(screen.getByText('harry is no longer blocked under reply.')).toBeTruthy();
    const calls = requests
      .filter((request) => request.method === 'DELETE')
      .map((request) => request.url);
    expect(calls[0]).toMatch(
      /^\/(sluice\/)?api\/blocked\/reply\/harry\?keyKind=user&reason=talked\+to\+him$/,
    );
    expect(calls[1]).toMatch(/\/counters\/reply\/harry$/);
    await waitFor(() => expect(screen.queryByRole('link', { name: 'harry' })).toBeNull());
  });

  it('lifts and resets an identifier shown cut by its key, not by the cut text', async () => {
    const cut = 'eyJ'.padEnd(256, 'a');
    const key = `#h:${'k'.repeat(43)}`;
    const entry = { ...HARRY.blocked[0]!, keyKind: 'header:authorization', identifier: cut, key };
    const requests = answerFetch({
      'GET /blocked': { body: { total: 1, blocked: [entry] } },
      'GET /policies': { body: { version: 1, enforcement: true, policies: [] } },
      [`DELETE /blocked/reply/${cut}`]: { body: { lifted: true } },
      [`DELETE /counters/reply/${cut}`]: { body: { reset: true } },
    });
    const user = userEvent.setup();
    renderScreen(<BlockedPage />, { role: 'operator', path: '/blocked' });

    expect(await screen.findByText(/its first 256 characters/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: `Unblock ${cut}` }));
    await user.click(
      within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Unblock' }),
    );

    await screen.findByText(`${cut} is no longer blocked under reply.`);
    const deletes = requests.filter((request) => request.method === 'DELETE');
    const keyOf = (url: string) => new URL(url, 'http://panel.test').searchParams.get('key');
    expect(deletes.map((request) => keyOf(request.url))).toEqual([key, key]);
  });

  it('lets an operator forget the offences while unblocking', async () => {
    const requests = answerFetch({
      'GET /blocked': { body: HARRY },
      'GET /policies': { body: { version: 1, enforcement: true, policies: [] } },
      'DELETE /blocked/reply/harry': { body: { lifted: true } },
    });
    const user = userEvent.setup();
    renderScreen(<BlockedPage />, { role: 'operator', path: '/blocked' });

    await user.click(await screen.findByRole('button', { name: 'Unblock harry' }));
    const dialog = screen.getByRole('alertdialog');
    await user.click(within(dialog).getByLabelText(/Also reset its counters/));
    await user.click(within(dialog).getByLabelText(/Also forget its offences/));
    await user.click(within(dialog).getByRole('button', { name: 'Unblock' }));

    await screen.findByText('harry is no longer blocked under reply.');
    const calls = requests
      .filter((request) => request.method === 'DELETE')
      .map((request) => request.url);
    expect(calls).toEqual([
      expect.stringMatching(/\/blocked\/reply\/harry\?keyKind=user&forgetOffences=true$/),
    ]);
  });

  it('unblocks from the keyboard: the reason has focus, Enter lifts, focus lands on the notice', async () => {
    let blocked = HARRY;
    answerFetch({
      'GET /blocked': () => ({ body: blocked }),
      'GET /policies': { body: { version: 1, enforcement: true, policies: [] } },
      'DELETE /blocked/reply/harry': () => {
        blocked = { total: 0, blocked: [] };
        return { body: { lifted: true } };
      },
      'DELETE /counters/reply/harry': { body: { reset: true } },
    });
    const user = userEvent.setup();
    renderScreen(<BlockedPage />, { role: 'operator', path: '/blocked' });

    await user.click(await screen.findByRole('button', { name: 'Unblock harry' }));
    const dialog = screen.getByRole('alertdialog');
    await waitFor(() =>
      expect(document.activeElement).toBe(within(dialog).getByLabelText('Reason')),
    );
    await user.keyboard('talked to him{Enter}');
    const notice = await screen.findByText('harry is no longer blocked under reply.');
    await waitFor(() => expect(notice.closest('[role="status"]')).toBe(document.activeElement));
  });
});
