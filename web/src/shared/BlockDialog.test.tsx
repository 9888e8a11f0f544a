import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { answerFetch, renderScreen } from '../testing/render-screen';
import { BlockDialog, blockDuration } from './BlockDialog';

describe('blocking by hand', () => {
  it('reads the duration as the editor does, and says what is wrong with one it cannot take', () => {
    expect(blockDuration('1 h')).toEqual({ ms: 3_600_000 });
    expect(blockDuration('1h30m')).toEqual({ ms: 5_400_000 });
    expect(blockDuration(' 2 d ')).toEqual({ ms: 172_800_000 });
    expect(blockDuration('10')).toEqual({
      error: 'write it with its unit, like 30 min, 1 h or 2 d',
    });
    expect(blockDuration('0 s')).toEqual({ error: 'must be longer than 0' });
    expect(blockDuration('400 d')).toEqual({ error: 'must be at most a year' });
  });

  it('sends "1 h" as an hour, and refuses "0 s" in the form without asking the server', async () => {
    const requests = answerFetch({
      'GET /policies': {
        body: { version: 1, enforcement: true, policies: [{ name: 'reply' }] },
      },
      'POST /blocked': {
        status: 201,
        body: {
          policy: 'reply',
          keyKind: 'user',
          identifier: 'draco',
          expiresAt: '2026-11-26T22:00:00.000Z',
        },
      },
    });
    const user = userEvent.setup();
    const told: string[] = [];
    renderScreen(<BlockDialog policy="reply" identifier="draco" onDone={(m) => told.push(m)} />, {
      role: 'operator',
      path: '/',
    });
    await user.click(screen.getByRole('button', { name: 'Block by hand' }));
    const dialog = screen.getByRole('dialog');
    const duration = within(dialog).getByLabelText('Duration');
    await user.clear(duration);
    await user.type(duration, '0 s');
    await user.click(within(dialog).getByRole('button', { name: 'Block' }));
    await within(dialog).findByText('must be longer than 0');
    expect(requests.filter((request) => request.method === 'POST')).toEqual([]);

    await user.clear(duration);
    await user.type(duration, '1 h');
    await user.click(within(dialog).getByRole('button', { name: 'Block' }));
    await waitFor(() => expect(told[0]).toMatch(/^draco is blocked under reply for 1 h, until /));
    expect(requests.filter((request) => request.method === 'POST').map((r) => r.body)).toEqual([
      { policy: 'reply', identifier: 'draco', durationMs: 3_600_000, reason: null },
    ]);
  });
});
