import type {
  AuditPage,
  BlockedList,
  BlockResult,
  IdentifierList,
  PenaltyPage,
  PenaltyRecord,
} from '@sluice/admin/api';
import { IdentifierTally } from '@sluice/nest/src/stats/identifier.tally.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminClient, eventually } from '../admin-api/admin.client.js';
import { TOKENS } from '../admin-api/app.module.js';
import { ADAPTERS, startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll } from '../../support/redis.clients.js';
import { withPostgres } from '../../support/postgres-server.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { ExpirySweeper } from '@sluice/admin/src/penalties/expiry.sweeper.js';
import { HeardEvents, penaltiesApp } from './app.module.js';

afterAll(closeAll);

const MINUTE = 60_000;

describe.each(ADAPTERS)('penalties through the admin API on %s', (adapter) => {
  let database: TestDatabase;
  let app: RunningApp;
  let api: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startApp(
      adapter,
      penaltiesApp({
        redisUrl: inject('redisUrl'),
        prefix: uniquePrefix('admin-penalties'),
        databaseUrl: database.url,
      }),
    );
    api = adminClient(`${app.url}/sluice/api`);
  });

  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const attempt = (user: string) =>
    fetch(`${app.url}/attempt`, { method: 'POST', headers: { 'x-user': user } });

  const history = async (user: string): Promise<PenaltyRecord[]> => {
    const page = await api<PenaltyPage>('GET', `/penalties?identifier=${user}&policy=attempts`);
    expect(page.status).toBe(200);
    return page.body.penalties;
  };

  /** Waits until the consumer has recorded `count` blocks of `user`. */
  const recorded = async (user: string, count: number): Promise<PenaltyRecord[]> => {
    await eventually(async () => (await history(user)).length >= count, 5_000);
    return history(user);
  };

  it('records each block of an identifier in order: its level, duration and who lifted it', async () => {
    const user = `harry-${adapter}`;
    expect((await attempt(user)).status).toBe(201);
    expect((await attempt(user)).status).toBe(429); // offence 1: a minute
    await recorded(user, 1);
    const lifted = await api('DELETE', `/blocked/attempts/${user}?reason=false%20alarm`, {
      as: 'operator',
    });
    expect(lifted.status, JSON.stringify(lifted.body)).toBe(200);

    expect((await attempt(user)).status).toBe(429); // the window is still full: offence 2
    await recorded(user, 2);
    expect((await api('DELETE', `/blocked/attempts/${user}`)).status).toBe(200);

    expect((await attempt(user)).status).toBe(429); // offence 3, then a manual block over it
    await recorded(user, 3);
    const manual = await api<BlockResult>('POST', '/blocked', {
      as: 'operator',
      body: { policy: 'attempts', identifier: user, durationMs: 10 * MINUTE, reason: 'abuse' },
    });
    expect(manual.status, JSON.stringify(manual.body)).toBe(201);

    const oldestFirst = (await recorded(user, 4)).reverse();
    expect(
      oldestFirst.map(({ offence, durationMs, source, state, liftedBy, liftReason }) => ({
        offence,
        durationMs,
        source,
        state,
        liftedBy,
        liftReason,
      })),
    ).toEqual([
      {
        offence: 1,
        durationMs: MINUTE,
        source: 'auto',
        state: 'lifted',
        liftedBy: 'olga',
        liftReason: 'false alarm',
      },
      {
        offence: 2,
        durationMs: 2 * MINUTE,
        source: 'auto',
        state: 'lifted',
        liftedBy: 'alice',
        liftReason: 'lifted by hand',
      },
      {
        offence: 3,
        durationMs: 4 * MINUTE,
        source: 'auto',
        state: 'lifted',
        liftedBy: null,
        liftReason: 'superseded by a newer block',
      },
      {
        offence: 0,
        durationMs: 10 * MINUTE,
        source: 'manual',
        state: 'active',
        liftedBy: null,
        liftReason: null,
      },
    ]);
    const [first, , , last] = oldestFirst;
    expect(first).toMatchObject({
      keyKind: 'header:x-user',
      identifier: user,
      trigger: { count: 1, limit: 1, windowMs: MINUTE, algorithm: 'sliding-log' },
      route: 'AttemptController.attempt',
      policyVersion: expect.any(Number) as number,
    });
    expect(last).toMatchObject({ createdBy: 'olga', reason: 'abuse', trigger: null });
    const started = oldestFirst.map((record) => Date.parse(record.startedAt));
    expect(started).toEqual([...started].sort((a, b) => a - b));
  });

  it('forgets the offence level on request, when lifting or resetting, audited', async () => {
    const user = `ida-${adapter}`;
    expect((await attempt(user)).status).toBe(201);
    expect((await attempt(user)).status).toBe(429); // offence 1
    await recorded(user, 1);
    const lifted = await api('DELETE', `/blocked/attempts/${user}?forgetOffences=true`, {
      as: 'operator',
    });
    expect(lifted.status, JSON.stringify(lifted.body)).toBe(200);
    expect((await attempt(user)).status).toBe(429); // the window is still full: offence 1 again
    expect((await recorded(user, 2)).map((row) => row.offence)).toEqual([1, 1]);

    // A reset that forgets the offences lifts the block in force too, and starts afresh.
    const reset = await api('DELETE', `/counters/attempts/${user}?forgetOffences=true`, {
      as: 'operator',
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    await eventually(async () => (await history(user))[0]?.state === 'lifted', 5_000);
    expect((await attempt(user)).status).toBe(201);
    expect((await attempt(user)).status).toBe(429);
    expect((await recorded(user, 3)).map((row) => row.offence)).toEqual([1, 1, 1]);

    const trail = await api<AuditPage>('GET', '/audit?limit=500');
    const mine = trail.body.entries.filter((entry) => entry.target === `attempts/${user}`);
    expect(mine.map((entry) => [entry.action, entry.after])).toEqual(
      expect.arrayContaining([
        ['block.lift', { offencesForgotten: true }],
        ['counters.reset', { policy: 'attempts', identifier: user, offencesForgotten: true }],
      ]),
    );
    // Found by any part of the identifier, as a user name inside an address/user key.
    const found = await api<PenaltyPage>(
      'GET',
      `/penalties?q=${encodeURIComponent(`da-${adapter}`)}`,
    );
    expect(new Set(found.body.penalties.map((row) => row.identifier))).toEqual(new Set([user]));
    const bad = await api('DELETE', `/counters/attempts/${user}?forgetOffences=yes`, {
      as: 'operator',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('forgetOffences');
  });

  it('deletes the history of blocks that ended more than the retention ago, and only those', async () => {
    const [old, recent] = [`old-${adapter}`, `recent-${adapter}`];
    const rows: PenaltyRecord[] = [];
    for (const user of [old, recent]) {
      expect((await attempt(user)).status).toBe(201);
      expect((await attempt(user)).status).toBe(429);
      rows.push(...(await recorded(user, 1)));
      expect((await api('DELETE', `/blocked/attempts/${user}`)).status).toBe(200);
    }
    // As if lifted 91 days ago, past the default retention of 90.
    await withPostgres(database.url, (client) =>
      client.query(
        `UPDATE sluice_penalty SET lifted_at = now() - interval '91 days' WHERE id = $1`,
        [rows[0]!.id],
      ),
    );
    expect(await app.app.get(ExpirySweeper).purge()).toBe(1);
    expect(await history(old)).toEqual([]);
    expect(await history(recent)).toHaveLength(1);
  });

  it('tells the app in-process of every start, escalation, manual block and lifting', async () => {
    const user = `ginny-${adapter}`;
    const heard = app.app.get(HeardEvents).events;
    const about = () => heard.filter((event) => event.identifier === user).map((e) => e.type);
    await attempt(user);
    await attempt(user);
    await api('DELETE', `/blocked/attempts/${user}`);
    await attempt(user);
    await api('POST', '/blocked', {
      body: { policy: 'attempts', identifier: user, durationMs: MINUTE },
    });
    expect(about()).toEqual(['block.started', 'block.lifted', 'block.escalated', 'block.manual']);
    const lifting = heard.find(
      (event) => event.identifier === user && event.type === 'block.lifted',
    );
    expect(lifting).toMatchObject({ actor: 'alice', policy: 'attempts', keyKind: 'header:x-user' });
  });

  it('marks a block that ran its course as expired and announces it as lifted', async () => {
    const user = `cedric-${adapter}`;
    const blocked = await api('POST', '/blocked', {
      body: { policy: 'attempts', identifier: user, durationMs: 50 },
    });
    expect(blocked.status).toBe(201);
    const sweeper = app.app.get(ExpirySweeper);
    await eventually(async () => {
      await sweeper.sweep();
      return (await history(user))[0]?.liftReason === 'expired';
    }, 5_000);
    const [record] = await history(user);
    expect(record).toMatchObject({ state: 'expired', liftedBy: null, liftedAt: record!.expiresAt });
    const heard = app.app.get(HeardEvents).events.filter((event) => event.identifier === user);
    expect(heard.map((event) => [event.type, event.reason])).toEqual([
      ['block.manual', null],
      ['block.lifted', 'expired'],
    ]);
    expect((await attempt(user)).status).toBe(201);
  });

  it('lists the blocks in force with the time left, and blocks and lifts by hand, audited', async () => {
    const user = `luna-${adapter}`;
    const blocked = await api<BlockResult>('POST', '/blocked', {
      as: 'operator',
      body: { policy: 'attempts', identifier: user, durationMs: 5 * MINUTE, reason: 'spam' },
    });
    expect(blocked.status).toBe(201);
    expect(blocked.body).toMatchObject({ policy: 'attempts', keyKind: 'header:x-user' });
    expect((await attempt(user)).status).toBe(429);

    let list: BlockedList | undefined;
    await eventually(async () => {
      list = (await api<BlockedList>('GET', `/blocked?policy=attempts&q=${user}`)).body;
      return list.total === 1;
    }, 5_000);
    const [entry] = list!.blocked;
    expect(entry).toMatchObject({ identifier: user, source: 'manual', createdBy: 'olga' });
    expect(entry!.timeLeftMs).toBeGreaterThan(4 * MINUTE);
    expect(entry!.timeLeftMs).toBeLessThanOrEqual(5 * MINUTE);

    expect((await api('DELETE', `/blocked/attempts/${user}`, { as: 'operator' })).status).toBe(200);
    expect((await attempt(user)).status).toBe(201);
    await eventually(
      async () =>
        (await api<BlockedList>('GET', `/blocked?q=${user}`)).body.total === 0 &&
        (await history(user))[0]?.state === 'lifted',
      5_000,
    );
    const again = await api('DELETE', `/blocked/attempts/${user}`, { as: 'operator' });
    expect(again.status).toBe(404);

    const audit = await api<AuditPage>('GET', '/audit?actor=olga');
    const mine = audit.body.entries.filter((entry) => entry.target === `attempts/${user}`);
    expect(mine.map((entry) => entry.action)).toEqual(['block.lift', 'block.create']);
    expect(mine[1]).toMatchObject({ comment: 'spam' });
  });

  it('exports the history as CSV and pages it with a cursor', async () => {
    const users = ['csv-a', 'csv-b', 'csv-c'].map((name) => `${name}-${adapter}`);
    for (const user of users) {
      await api('POST', '/blocked', {
        body: {
          policy: 'attempts',
          identifier: user,
          durationMs: MINUTE,
          reason: 'a, "quoted"\nreason',
        },
      });
    }
    await eventually(
      async () => (await Promise.all(users.map(history))).every((rows) => rows.length === 1),
      5_000,
    );

    const response = await fetch(`${app.url}/sluice/api/penalties?policy=attempts`, {
      headers: { authorization: `Bearer ${TOKENS.viewer}`, accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toContain('penalties.csv');
    const csv = await response.text();
    expect(csv.split('\n')[0]).toMatch(/^id,policy,policyVersion,keyKind,identifier,offence,/);
    for (const user of users) expect(csv).toContain(`,${user},0,`);
    expect(csv).toContain('"a, ""quoted""\nreason"');

    const firstPage = await api<PenaltyPage>('GET', '/penalties?policy=attempts&limit=2');
    expect(firstPage.body.penalties).toHaveLength(2);
    expect(firstPage.body.nextCursor).not.toBeNull();
    const secondPage = await api<PenaltyPage>(
      'GET',
      `/penalties?policy=attempts&limit=2&cursor=${firstPage.body.nextCursor}`,
    );
    const ids = [...firstPage.body.penalties, ...secondPage.body.penalties].map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => Number(b) - Number(a)));
  });

  it('exports formula-looking identifiers and reasons as plain text cells', async () => {
    const payloads = [
      [`=HYPERLINK("http://evil.example/?${adapter}","open")`, "=cmd|' /C calc'!A0"],
      [`+sum-${adapter}`, '-2+3'],
      [`@at-${adapter}`, '\t=1+1'],
    ];
    for (const [identifier, reason] of payloads) {
      const blocked = await api('POST', '/blocked', {
        body: { policy: 'attempts', identifier: `${identifier}`, durationMs: MINUTE, reason },
      });
      expect(blocked.status).toBe(201);
    }
    // The history records a block once its event has come through the stream.
    await eventually(
      async () =>
        (
          await Promise.all(
            payloads.map(([identifier]) => history(encodeURIComponent(identifier!))),
          )
        ).every((rows) => rows.length === 1),
      5_000,
    );
    const response = await fetch(`${app.url}/sluice/api/penalties?policy=attempts`, {
      headers: { authorization: `Bearer ${TOKENS.viewer}`, accept: 'text/csv' },
    });
    const cells = (await response.text()).split(/,|\n/);
    // No cell starts a formula; each payload is there, behind an apostrophe.
    expect(cells.filter((cell) => /^"?[=+\-@\t\r]/.test(cell))).toEqual([]);
    expect(cells).toContain(`'+sum-${adapter}`);
    expect(cells).toContain("'-2+3");
    expect(cells).toContain(`'@at-${adapter}`);
    expect(cells).toContain(`"'=HYPERLINK(""http://evil.example/?${adapter}""`);
  });

  it('lists the identifiers seen most: passes, rejections, last seen and state now', async () => {
    const ron = `ron-${adapter}`;
    const neville = `neville-${adapter}`;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt(ron)).status);
    expect(statuses).toEqual([201, 429, 429, 429]);
    expect((await attempt(neville)).status).toBe(201);
    await app.app.get(IdentifierTally).flush();

    const listed = await api<IdentifierList>('GET', `/identifiers?policy=attempts&q=-${adapter}`, {
      as: 'viewer',
    });
    expect(listed.status).toBe(200);
    const mine = listed.body.identifiers.filter((each) => [ron, neville].includes(each.identifier));
    expect(
      mine.map(({ identifier, passed, rejected }) => ({ identifier, passed, rejected })),
    ).toEqual([
      { identifier: ron, passed: 1, rejected: 3 },
      { identifier: neville, passed: 1, rejected: 0 },
    ]);
    expect(mine[0]).toMatchObject({
      keyKind: 'header:x-user',
      state: { blocked: true, remaining: 0 },
    });
    expect(mine[1]).toMatchObject({ state: { blocked: false, blockedUntil: null, limit: 1 } });
    expect(Date.now() - Date.parse(mine[0]!.lastSeen)).toBeLessThan(60_000);
  });

  it.each([
    [
      'an unknown policy',
      'POST',
      '/blocked',
      { policy: 'nope', identifier: 'x', durationMs: 1000 },
      'policy',
    ],
    [
      'an empty identifier',
      'POST',
      '/blocked',
      { policy: 'attempts', identifier: '', durationMs: 1000 },
      'identifier',
    ],
    [
      'an identifier over 256 characters',
      'POST',
      '/blocked',
      { policy: 'attempts', identifier: 'x'.repeat(257), durationMs: 1000 },
      'identifier',
    ],
    [
      'an identifier with a control character',
      'POST',
      '/blocked',
      { policy: 'attempts', identifier: 'a\u0007b', durationMs: 1000 },
      'identifier',
    ],
    [
      'a negative duration',
      'POST',
      '/blocked',
      { policy: 'attempts', identifier: 'x', durationMs: -5 },
      'durationMs',
    ],
    [
      'an absurd duration',
      'POST',
      '/blocked',
      { policy: 'attempts', identifier: 'x', durationMs: 1e13 },
      'durationMs',
    ],
    [
      'a fractional duration',
      'POST',
      '/blocked',
      { policy: 'attempts', identifier: 'x', durationMs: 1.5 },
      'durationMs',
    ],
    [
      'a duration as text',
      'POST',
      '/blocked',
      { policy: 'attempts', identifier: 'x', durationMs: '1000' },
      'durationMs',
    ],
    [
      'an unknown field',
      'POST',
      '/blocked',
      { policy: 'attempts', identifier: 'x', durationMs: 1000, until: 5 },
      'until',
    ],
    [
      'a policy name with SQL in it',
      'POST',
      '/blocked',
      { policy: "x'; DROP TABLE sluice_penalty;--", identifier: 'x', durationMs: 1000 },
      'policy',
    ],
    ['an unknown policy to lift', 'DELETE', '/blocked/nope/x', undefined, 'policy'],
    [
      'an identifier to lift with a control character',
      'DELETE',
      '/blocked/attempts/a%01b',
      undefined,
      'identifier',
    ],
    ['a bad key kind to lift', 'DELETE', '/blocked/attempts/x?keyKind=%20', undefined, 'keyKind'],
    ['a bad cursor', 'GET', '/penalties?cursor=abc', undefined, 'cursor'],
    ['a negative cursor', 'GET', '/penalties?cursor=-1', undefined, 'cursor'],
    ['a time without offset', 'GET', '/penalties?from=2026-11-22T09:00:00', undefined, 'from'],
    ['a page too large', 'GET', '/penalties?limit=100000', undefined, 'limit'],
    ['a repeated filter', 'GET', '/penalties?policy=a&policy=b', undefined, 'policy'],
    ['an unknown filter', 'GET', '/blocked?who=me', undefined, 'who'],
    ['a list too long', 'GET', '/blocked?limit=20000', undefined, 'limit'],
    ['identifiers of an unknown policy', 'GET', '/identifiers?policy=nope', undefined, 'policy'],
    ['too many identifiers', 'GET', '/identifiers?limit=201', undefined, 'limit'],
  ])('answers 400 naming the field for %s', async (_, method, path, body, field) => {
    const sent = Date.now();
    const answer = await api(method, path, { as: 'operator', body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.issues?.map((issue) => issue.field)).toContain(field);
    expect(answer.body.message).toContain(field);
    // The blocks of earlier tests may still be on their way from the stream to the history, so
    // the rows are not simply counted: what this request could have written is a block started,
    // or lifted by someone, from the moment it was sent.
    const after = await api<PenaltyPage>('GET', '/penalties?limit=500');
    const written = after.body.penalties.filter(
      (row) =>
        Date.parse(row.startedAt) >= sent ||
        (row.liftedBy !== null && row.liftedAt !== null && Date.parse(row.liftedAt) >= sent),
    );
    expect(written).toEqual([]);
  });
});
