import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { answerFetch, renderScreen } from '../../testing/render-screen';
import { ListEntryDialog } from './ListEntryDialog';

const POLICIES = {
  version: 3,
  enforcement: true,
  policies: [{ name: 'api-burst' }, { name: 'api-daily' }, { name: 'login' }],
};

function entry(policies: string[] | null) {
  return {
    id: '6f1c0e0e-3a51-4a43-9b0e-1d7b0c8f4a11',
    list: 'deny',
    kind: 'address',
    value: '203.0.113.0/24',
    keyKind: null,
    prefix: false,
    policies,
    mode: 'enforce',
    reason: 'scraping',
    expiresAt: null,
    createdBy: 'alice',
    createdAt: '2026-11-27T09:00:00.000Z',
    expired: false,
    hits: { enforced: 0, shadow: 0 },
  };
}

async function fillAddressEntry(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: 'Add an entry' }));
  const dialog = screen.getByRole('dialog');
  await user.type(within(dialog).getByLabelText('Value'), '203.0.113.0/24');
  await user.type(within(dialog).getByLabelText('Reason'), 'scraping');
  return dialog;
}

/** The server's 400 asking, naming `confirm`, that the entry be sent again confirmed. */
const askedToConfirm = (message: string) => ({
  status: 400,
  body: {
    statusCode: 400,
    error: 'Bad Request',
    message: 'confirm: …',
    issues: [{ field: 'confirm', message }],
  },
});

afterEach(cleanup);

describe('adding a list entry', () => {
  it('applies an entry to the policies ticked, several at once', async () => {
    const requests = answerFetch({
      'GET /policies': { body: POLICIES },
      'POST /lists': { status: 201, body: entry(['api-burst', 'login']) },
    });
    const user = userEvent.setup();
    const told: string[] = [];
    renderScreen(<ListEntryDialog onDone={(message) => told.push(message)} />, {
      role: 'operator',
      path: '/',
    });
    const dialog = await fillAddressEntry(user);
    // Every policy until the operator narrows it.
    const every = within(dialog).getByRole<HTMLInputElement>('radio', { name: 'Every policy' });
    expect(every.checked).toBe(true);
    await user.click(within(dialog).getByRole('radio', { name: 'Only the policies ticked' }));
    await user.click(await within(dialog).findByRole('checkbox', { name: 'api-burst' }));
    await user.click(within(dialog).getByRole('checkbox', { name: 'login' }));
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(told[0]).toMatch(/^203\.0\.113\.0\/24 is on the deny list/));
    const posted = requests.filter((request) => request.method === 'POST');
    expect(posted.map((request) => (request.body as { policies: unknown }).policies)).toEqual([
      ['api-burst', 'login'],
    ]);
  });

  it('asks for a policy when none is ticked, without asking the server', async () => {
    const requests = answerFetch({ 'GET /policies': { body: POLICIES } });
    const user = userEvent.setup();
    renderScreen(<ListEntryDialog onDone={() => undefined} />, { role: 'operator', path: '/' });
    const dialog = await fillAddressEntry(user);
    await user.click(within(dialog).getByRole('radio', { name: 'Only the policies ticked' }));
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await within(dialog).findByText('tick at least one policy, or choose every policy');
    expect(requests.filter((request) => request.method === 'POST')).toEqual([]);
  });

  it('sends null for an entry that applies to every policy', async () => {
    const requests = answerFetch({
      'GET /policies': { body: POLICIES },
      'POST /lists': { status: 201, body: entry(null) },
    });
    const user = userEvent.setup();
    renderScreen(<ListEntryDialog onDone={() => undefined} />, { role: 'operator', path: '/' });
    const dialog = await fillAddressEntry(user);
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() =>
      expect(requests.filter((request) => request.method === 'POST')).toHaveLength(1),
    );
    expect(requests.find((request) => request.method === 'POST')?.body).toMatchObject({
      policies: null,
      value: '203.0.113.0/24',
      reason: 'scraping',
    });
  });

  it('asks before sending an entry that reaches all traffic, and sends it confirmed for an admin', async () => {
    const requests = answerFetch({
      'GET /policies': { body: POLICIES },
      'POST /lists': { status: 201, body: { ...entry(null), value: '0.0.0.0/0' } },
    });
    const user = userEvent.setup();
    const told: string[] = [];
    renderScreen(<ListEntryDialog onDone={(message) => told.push(message)} />, {
      role: 'admin',
      path: '/',
    });
    await user.click(screen.getByRole('button', { name: 'Add an entry' }));
    const dialog = screen.getByRole('dialog');
    await user.type(within(dialog).getByLabelText('Value'), '0.0.0.0/0');
    await user.type(within(dialog).getByLabelText('Reason'), 'everything');
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect((await within(dialog).findByRole('alert')).textContent).toMatch(
      /0\.0\.0\.0\/0 holds every address of its family: it would deny all traffic/,
    );
    expect(requests.filter((request) => request.method === 'POST')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Add it anyway' }));
    await waitFor(() => expect(told[0]).toMatch(/^0\.0\.0\.0\/0 is on the deny list/));
    expect(requests.filter((request) => request.method === 'POST').map((r) => r.url)).toEqual([
      '/api/lists?confirm=broad',
    ]);
  });

  it("passes on the server's word that an entry denies its writer, and offers an operator no way round", async () => {
    const requests = answerFetch({
      'GET /policies': { body: POLICIES },
      'POST /lists': askedToConfirm(
        '203.0.113.0/24 holds your own address (203.0.113.7): it would deny you; an admin who means it adds the entry with confirm=broad',
      ),
    });
    const user = userEvent.setup();
    renderScreen(<ListEntryDialog onDone={() => undefined} />, { role: 'operator', path: '/' });
    const dialog = await fillAddressEntry(user);
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toMatch(/holds your own address \(203\.0\.113\.7\)/);
    expect(alert.textContent).toContain('Only an admin may add such an entry.');
    expect(within(dialog).queryByRole('button', { name: 'Add it anyway' })).toBeNull();
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it("drops the server's question once the entry is edited: it was about the entry as it was", async () => {
    answerFetch({
      'GET /policies': { body: POLICIES },
      'POST /lists': askedToConfirm('203.0.113.0/24 holds your own address'),
    });
    const user = userEvent.setup();
    renderScreen(<ListEntryDialog onDone={() => undefined} />, { role: 'admin', path: '/' });
    const dialog = await fillAddressEntry(user);
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await within(dialog).findByRole('button', { name: 'Add it anyway' });
    await user.clear(within(dialog).getByLabelText('Value'));
    await user.type(within(dialog).getByLabelText('Value'), '198.51.100.9');
    // Had it stayed, "Add it anyway" would send the new entry confirmed unasked.
    expect(within(dialog).queryByRole('alert')).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Add it anyway' })).toBeNull();
  });
});
