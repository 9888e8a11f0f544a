import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { PolicyListEntries } from './PolicyListEntries';

afterEach(cleanup);

function entry(id: string, value: string, policies: string[] | null, list = 'deny') {
  return {
    id,
    list,
    kind: 'address',
    value,
    keyKind: null,
    prefix: false,
    policies,
    mode: 'enforce',
    reason: 'scraping',
    expiresAt: null,
    createdBy: 'alice',
    createdAt: '2026-11-27T09:00:00.000Z',
    expired: false,
    hits: { enforced: 7, shadow: 0 },
  };
}

describe("a policy's list entries", () => {
  it('shows the entries naming the policy, then those for every policy, and no other', async () => {
    answerFetch({
      'GET /lists': {
        body: {
          max: 1000,
          entries: [
            entry('a', '198.51.100.0/24', null),
            entry('b', '203.0.113.9', ['login']),
            entry('c', '192.0.2.0/24', ['login', 'reply'], 'allow'),
          ],
        },
      },
    });
    renderScreen(<PolicyListEntries name="reply" />, { role: 'viewer', path: '/' });
    const table = await screen.findByLabelText('List entries applying to reply');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[1]?.textContent)).toEqual([
      'login, reply',
      'every policy',
    ]);
    expect(rows.map((row) => row.querySelector('code')?.textContent)).toEqual([
      '192.0.2.0/24',
      '198.51.100.0/24',
    ]);
    expect(within(rows[0]!).getByText('let through 7')).toBeTruthy();
  });

  it('says so when no entry applies', async () => {
    answerFetch({
      'GET /lists': { body: { max: 1000, entries: [entry('b', '203.0.113.9', ['login'])] } },
    });
    renderScreen(<PolicyListEntries name="reply" />, { role: 'viewer', path: '/' });
    await screen.findByText('No list entry applies to reply: its rate decides every request.');
  });
});
