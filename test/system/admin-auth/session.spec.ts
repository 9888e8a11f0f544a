import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, SLUICE_CLOCK } from '@sluice/nest';
import type { AdminAuthOptions } from '@sluice/admin/src/config/admin-auth-options.interface.js';
import { ADAPTERS, closeAppsAfterEach } from '../../support/nest-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { adminAuthApp } from './app.module.js';
import { bearer, CREDENTIALS, sessionCookieOf, signIn, TOKENS } from './credentials.fixture.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

const startApp = closeAppsAfterEach();

describe.each(ADAPTERS)('panel sessions on %s', (adapter) => {
  async function start(auth: AdminAuthOptions = { credentials: CREDENTIALS }): Promise<string> {
    return (await startApp(adapter, adminAuthApp(database.url, auth))).url;
  }

  it('signs in with name and password: an HttpOnly, SameSite=Strict cookie for the API only', async () => {
    const url = await start();
    const response = await signIn(url, 'olga', TOKENS.olga);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'olga', role: 'operator' });
    const attributes = (response.headers.get('set-cookie') ?? '').split('; ').slice(1);
    expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=28800', 'SameSite=Strict']);
    // No Path: a browser keeps it for the folder of the URL that set it, /sluice/api.
    const cookie = sessionCookieOf(response);
    const current = await fetch(`${url}/sluice/api/session`, { headers: { cookie } });
    expect(await current.json()).toEqual({ name: 'olga', role: 'operator' });
    const things = await fetch(`${url}/sluice/api/things`, { headers: { cookie } });
    expect(await things.json()).toMatchObject({ name: 'olga', role: 'operator' });
  });

  it('marks the cookie Secure when the request came over https', async () => {
    const url = await start();
    const response = await signIn(url, 'olga', TOKENS.olga, { 'x-forwarded-proto': 'https' });
    expect(response.headers.get('set-cookie')).toMatch(/; Secure/);
  });

  it('marks the cookie Secure over plain http in production, unless told not to', async () => {
    const production = await start({ credentials: CREDENTIALS, production: true });
    const forced = await signIn(production, 'olga', TOKENS.olga);
    expect(forced.headers.get('set-cookie')).toMatch(/; Secure/);
    const plainHttp = await start({
      credentials: CREDENTIALS,
      production: true,
      secureCookies: false,
    });
    const relaxed = await signIn(plainHttp, 'olga', TOKENS.olga);
    expect(relaxed.status).toBe(200);
    expect(relaxed.headers.get('set-cookie')).not.toMatch(/Secure/);
  });

  it('answers an unknown name and a wrong password alike', async () => {
    const url = await start();
    const unknown = await signIn(url, 'mallory', TOKENS.olga);
    const wrong = await signIn(url, 'olga', TOKENS.alice);
    const expected = {
      statusCode: 401,
      error: 'Unauthorized',
      message:
        "Wrong name or token: a development start's one-time token signs in to its own instance only",
    };
    expect([unknown.status, await unknown.json()]).toEqual([401, expected]);
    expect([wrong.status, await wrong.json()]).toEqual([401, expected]);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a malformed sign-in with a 400 naming the field', async () => {
    const url = await start();
    const response = await fetch(`${url}/sluice/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'olga', password: 42 }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'password: must be a string of 1 to 1024 characters',
      issues: [{ field: 'password', message: 'must be a string of 1 to 1024 characters' }],
    });
  });

  it('answers GET /session with 401 without a session', async () => {
    const url = await start();
    const response = await fetch(`${url}/sluice/api/session`);
    expect(response.status).toBe(401);
  });

  it('wants X-Requested-With: sluice or JSON on writes signed in by cookie, not by bearer', async () => {
    const url = await start();
    const cookie = sessionCookieOf(await signIn(url, 'olga', TOKENS.olga));
    const post = (headers: Record<string, string>) =>
      fetch(`${url}/sluice/api/things`, { method: 'POST', headers, body: '{}' });
    const forged = await post({ cookie, 'content-type': 'application/x-www-form-urlencoded' });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { message: string }).message).toMatch(/X-Requested-With/);
    expect((await post({ cookie, 'x-requested-with': 'sluice' })).status).toBe(201);
    expect((await post({ cookie, 'content-type': 'application/json' })).status).toBe(201);
    expect((await post(bearer(TOKENS.olga))).status).toBe(201);
    const formSignIn = await fetch(`${url}/sluice/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `name=olga&password=${TOKENS.olga}`,
    });
    expect(formSignIn.status).toBe(403);
  });

  it('lets a tab poll on with its ended session without locking its address out', async () => {
    const url = await start();
    const cookie = sessionCookieOf(await signIn(url, 'victor', TOKENS.victor));
    const headers = { cookie, 'x-requested-with': 'sluice' };
    expect((await fetch(`${url}/sluice/api/session`, { method: 'DELETE', headers })).status).toBe(
      204,
    );
    // A minute of an open Overview: more polls than the 20 failures that block an address.
    const polls: number[] = [];
    for (let poll = 0; poll < 30; poll++) {
      polls.push((await fetch(`${url}/sluice/api/things`, { headers })).status);
    }
    expect(new Set(polls)).toEqual(new Set([401]));
    const again = await signIn(url, 'victor', TOKENS.victor);
    expect(again.status).toBe(200);
    const fresh = { cookie: sessionCookieOf(again), 'x-requested-with': 'sluice' };
    await fetch(`${url}/sluice/api/session`, { method: 'DELETE', headers: fresh });
  });

  it('signs out on every instance within two seconds', async () => {
    const [a, b] = [await start(), await start()];
    const cookie = sessionCookieOf(await signIn(a, 'olga', TOKENS.olga));
    const headers = { cookie, 'x-requested-with': 'sluice' };
    // B has read the session, and keeps it in memory.
    expect((await fetch(`${b}/sluice/api/session`, { headers })).status).toBe(200);
    expect((await fetch(`${a}/sluice/api/session`, { method: 'DELETE', headers })).status).toBe(
      204,
    );
    const signedOut = performance.now();
    let status = 200;
    while (status === 200 && performance.now() - signedOut < 5_000) {
      status = (await fetch(`${b}/sluice/api/session`, { headers })).status;
      // Polls the other instance (I/O): the sign-out's arrival is what is measured.
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(401);
    // Budget: the session cache's second, and a second for the requests on a busy machine.
    expect(performance.now() - signedOut).toBeLessThan(2_000);
  });

  it('signs out: 204, the session row is gone and the cookie cleared', async () => {
    const url = await start();
    const cookie = sessionCookieOf(await signIn(url, 'victor', TOKENS.victor));
    const headers = { cookie, 'x-requested-with': 'sluice' };
    const signOut = await fetch(`${url}/sluice/api/session`, { method: 'DELETE', headers });
    expect(signOut.status).toBe(204);
    expect(signOut.headers.get('set-cookie')).toMatch(/^sluice_session=; Max-Age=0; HttpOnly/);
    expect((await fetch(`${url}/sluice/api/session`, { headers })).status).toBe(401);
    expect(await sessionsOf('victor')).toBe(0);
  });

  it('records sign-in and sign-out in the admin audit', async () => {
    const url = await start();
    const userAgent = `audit-check-${adapter}`;
    const signedIn = await signIn(url, 'victor', TOKENS.victor, { 'user-agent': userAgent });
    const headers = {
      cookie: sessionCookieOf(signedIn),
      'x-requested-with': 'sluice',
      'user-agent': userAgent,
    };
    await fetch(`${url}/sluice/api/session`, { method: 'DELETE', headers });
    const rows = await query<Record<string, unknown>>(
      `SELECT actor, ip, action, target FROM sluice_admin_audit WHERE user_agent = '${userAgent}' ORDER BY id`,
    );
    expect(rows).toEqual([
      { actor: 'victor', ip: '127.0.0.1', action: 'session.sign-in', target: 'session' },
      { actor: 'victor', ip: '127.0.0.1', action: 'session.sign-out', target: 'session' },
    ]);
  });

  it('refuses a session once it expired, and not a moment before', async () => {
    const clock = new ManualClock(Date.now() * 1_000);
    const { url } = await startApp(
      adapter,
      adminAuthApp(database.url, { credentials: CREDENTIALS, sessionTtlMs: 1_000 }),
      undefined,
      (builder) => builder.overrideProvider(SLUICE_CLOCK).useValue(clock.now),
    );
    const cookie = sessionCookieOf(await signIn(url, 'victor', TOKENS.victor));
    const current = () => fetch(`${url}/sluice/api/session`, { headers: { cookie } });
    expect((await current()).status).toBe(200);
    clock.advance(999_000);
    expect((await current()).status).toBe(200);
    clock.advance(1_000);
    expect((await current()).status).toBe(401);
  });

  it('disables a credential no longer configured, and ends its sessions', async () => {
    const first = await start();
    const cookie = sessionCookieOf(await signIn(first, 'victor', TOKENS.victor));
    expect(await sessionsOf('victor')).toBeGreaterThan(0);
    const url = await start({ credentials: `alice:admin:${TOKENS.alice}` });
    expect((await fetch(`${url}/sluice/api/session`, { headers: { cookie } })).status).toBe(401);
    expect(await sessionsOf('victor')).toBe(0);
    const [victor] = await query<{ disabled_at: Date | null }>(
      "SELECT disabled_at FROM sluice_admin_credential WHERE name = 'victor'",
    );
    expect(victor?.disabled_at).toBeInstanceOf(Date);
    await start();
    const [again] = await query<{ disabled_at: Date | null }>(
      "SELECT disabled_at FROM sluice_admin_credential WHERE name = 'victor'",
    );
    expect(again?.disabled_at).toBeNull();
  });

  it('refuses a session opened with the old token during a rolling restart, on both instances', async () => {
    const rotated = CREDENTIALS.replace(TOKENS.olga, 'olga-rotated-token-1111');
    const b = await start(); // B still runs with the old token
    const a = await start({ credentials: rotated }); // A restarted with the new one
    // Signed in on B with the old token, after A's start ended the sessions it knew of.
    const cookie = sessionCookieOf(await signIn(b, 'olga', TOKENS.olga));
    const put = (url: string) =>
      fetch(`${url}/sluice/api/things`, {
        method: 'POST',
        headers: { cookie, 'x-requested-with': 'sluice' },
      });
    expect((await put(a)).status).toBe(401);
    const restartedB = await start({ credentials: rotated }); // B restarted with the new token
    expect((await put(restartedB)).status).toBe(401);
    expect((await put(a)).status).toBe(401);
  });

  it('ends the sessions of a credential whose token changed', async () => {
    const first = await start();
    const cookie = sessionCookieOf(await signIn(first, 'olga', TOKENS.olga));
    const rotated = CREDENTIALS.replace(TOKENS.olga, 'olga-rotated-token-0000');
    const url = await start({ credentials: rotated });
    expect((await fetch(`${url}/sluice/api/session`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${url}/sluice/api/things`, { headers: bearer(TOKENS.olga) })).status).toBe(
      401,
    );
  });
});

async function sessionsOf(name: string): Promise<number> {
  const [row] = await query<{ count: string }>(
    `SELECT count(*) FROM sluice_admin_session WHERE credential_name = '${name}'`,
  );
  return Number(row?.count);
}

async function query<T>(sql: string): Promise<T[]> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}
