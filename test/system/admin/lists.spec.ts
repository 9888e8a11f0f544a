// Allow and deny lists through the admin API, on the demo's quote API: two instances share one
// Redis and one database; an operator's entry reaches both within a second, is audited, counted
// and removed again; bad entries are refused naming their field, and the lists are bounded.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withPostgres } from '../../support/postgres-server.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import {
  ensureDemoBuilt,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoProcess,
} from '../support/demo-process.js';
import { send } from '../support/http.js';
import {
  adminCall,
  adminDemoEnv,
  allOnVersion,
  showDemoOutputOnFailure,
  startAdminDemos,
  waitFor,
} from './support/admin-demo.js';

/** Change notices reach every instance within this (docs/architecture.md, a policy change). */
const PROPAGATION_MS = 1_000;
/** Each instance sends its matches once a second; the panel reads them after. */
const HITS_FLUSHED_MS = 3_000;

describe('allow and deny lists through the admin', () => {
  let demos: DemoProcess[] = [];
  let database: TestDatabase;

  beforeAll(async () => {
    [database] = await Promise.all([createTestDatabase(), ensureDemoBuilt()]);
    demos = await startAdminDemos(
      adminDemoEnv({
        redisUrl: inject('redisUrl'),
        databaseUrl: database.url,
        prefix: uniqueDemoPrefix('lists'),
      }),
      2,
    );
  }, 90_000);

  showDemoOutputOnFailure(() => demos);

  afterAll(async () => {
    await stopAllDemos();
    await database?.drop();
  });

  async function quote(at: number, key: string): Promise<number> {
    return (await send(`${demos[at]!.url}/api/quote`, { headers: { 'x-api-key': key } })).status;
  }

  async function bothOn(version: number): Promise<void> {
    await allOnVersion(demos, version, PROPAGATION_MS);
  }

  /** An entry's matches as the panel reads them, once `kind` has reached `least`. */
  async function countedAtLeast(
    id: string,
    kind: 'enforced' | 'shadow',
    least: number,
  ): Promise<{ enforced: number; shadow: number }> {
    const entry = await waitFor(
      `${least} ${kind} matches counted`,
      async () => {
        const list = await adminCall(demos[1]!.url, 'victor', 'GET', '/lists');
        const found = (
          list.body.entries as Array<{ id: string; hits: { enforced: number; shadow: number } }>
        ).find((each) => each.id === id);
        return found !== undefined && found.hits[kind] >= least ? found : undefined;
      },
      { timeoutMs: HITS_FLUSHED_MS, intervalMs: 100 },
    );
    return entry.hits;
  }

  it('denies an API key on every instance within a second, counts it, audits it, and lifts it', async () => {
    expect(await quote(0, 'free-demo-1')).toBe(200);
    const added = await adminCall(demos[0]!.url, 'olga', 'POST', '/lists', {
      json: {
        list: 'deny',
        kind: 'identifier',
        keyKind: 'header:x-api-key',
        value: 'free-demo-1',
        policies: ['api-burst'],
        reason: 'scraping the quote API',
      },
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toMatchObject({ createdBy: 'olga', mode: 'enforce', expired: false });
    const id = added.body.id as string;
    const { version } = (await adminCall(demos[0]!.url, 'olga', 'GET', '/enforcement')).body as {
      version: number;
    };
    await bothOn(version);
    expect([await quote(0, 'free-demo-1'), await quote(1, 'free-demo-1')]).toEqual([429, 429]);
    expect(await quote(1, 'free-demo-2')).toBe(200);

    expect(await countedAtLeast(id, 'enforced', 2)).toEqual({ enforced: 2, shadow: 0 });

    expect(
      (await adminCall(demos[1]!.url, 'victor', 'DELETE', `/lists/${id}`, { json: {} })).status,
    ).toBe(403);
    const removed = await adminCall(demos[1]!.url, 'olga', 'DELETE', `/lists/${id}`, {
      json: { comment: 'they stopped' },
    });
    expect(removed.status, removed.text).toBe(200);
    await bothOn(removed.body.version as number);
    expect(await quote(0, 'free-demo-1')).toBe(200);
    expect(
      (await adminCall(demos[1]!.url, 'olga', 'DELETE', `/lists/${id}`, { json: {} })).status,
    ).toBe(404);

    const audited = async (action: string) =>
      (
        (await adminCall(demos[0]!.url, 'alice', 'GET', `/audit?action=${action}`)).body
          .entries as Array<{ actor: string; comment: string; target: string }>
      ).map((entry) => [entry.actor, entry.comment, entry.target]);
    expect(await audited('list.add')).toEqual([
      ['olga', 'scraping the quote API', 'deny:free-demo-1'],
    ]);
    expect(await audited('list.remove')).toEqual([['olga', 'they stopped', 'deny:free-demo-1']]);
  });

  it('switches an entry from shadow to enforce in place, keeping its counts, audited', async () => {
    const added = await adminCall(demos[0]!.url, 'olga', 'POST', '/lists', {
      json: {
        list: 'deny',
        kind: 'identifier',
        keyKind: 'header:x-api-key',
        value: 'free-demo-1',
        policies: ['api-burst'],
        mode: 'shadow',
        reason: 'watching before denying',
      },
    });
    expect(added.status, added.text).toBe(201);
    const id = added.body.id as string;
    await bothOn(
      (await adminCall(demos[0]!.url, 'olga', 'GET', '/enforcement')).body.version as number,
    );
    expect(await quote(0, 'free-demo-1')).toBe(200);
    await countedAtLeast(id, 'shadow', 1);
    expect(
      (
        await adminCall(demos[0]!.url, 'victor', 'PATCH', `/lists/${id}`, {
          json: { mode: 'enforce' },
        })
      ).status,
    ).toBe(403);
    const switched = await adminCall(demos[1]!.url, 'olga', 'PATCH', `/lists/${id}`, {
      json: { mode: 'enforce', comment: 'seen enough' },
    });
    expect(switched.status, switched.text).toBe(200);
    expect(switched.body).toMatchObject({ id, mode: 'enforce', hits: { shadow: 1 } });
    await bothOn(
      (await adminCall(demos[0]!.url, 'olga', 'GET', '/enforcement')).body.version as number,
    );
    expect([await quote(0, 'free-demo-1'), await quote(1, 'free-demo-1')]).toEqual([429, 429]);
    const audited = (await adminCall(demos[0]!.url, 'alice', 'GET', '/audit?action=list.mode')).body
      .entries as Array<{
      actor: string;
      target: string;
      comment: string;
      after: { mode: string };
    }>;
    expect(
      audited.map((entry) => [entry.actor, entry.target, entry.comment, entry.after.mode]),
    ).toEqual([['olga', 'deny:free-demo-1', 'seen enough', 'enforce']]);
    const removed = await adminCall(demos[0]!.url, 'olga', 'DELETE', `/lists/${id}`, { json: {} });
    expect(removed.status).toBe(200);
    await bothOn(removed.body.version as number);
  });

  it('refuses bad entries naming the field, writing nothing, and a viewer altogether', async () => {
    const url = demos[0]!.url;
    const before = (await adminCall(url, 'olga', 'GET', '/enforcement')).body.version as number;
    const cases: Array<[object, string]> = [
      [{ list: 'deny', kind: 'address', value: '10.0.0.0/33', reason: 'r' }, 'value'],
      [{ list: 'deny', kind: 'identifier', value: 'x', reason: 'r' }, 'keyKind'],
      [{ list: 'deny', kind: 'userAgent', value: '(?<=a)b', reason: 'r' }, 'value'],
      [{ list: 'allow', kind: 'address', value: '10.0.0.1', reason: '' }, 'reason'],
      [
        { list: 'allow', kind: 'address', value: '10.0.0.1', reason: 'r', policies: ['nope'] },
        'policies.0',
      ],
      [
        {
          list: 'deny',
          kind: 'address',
          value: '10.0.0.1',
          reason: 'r',
          expiresAt: '2020-01-01T00:00:00Z',
        },
        'expiresAt',
      ],
      [{ list: 'deny', kind: 'address', value: '10.0.0.1', reason: 'r', colour: 'red' }, 'colour'],
    ];
    for (const [json, field] of cases) {
      const answer = await adminCall(url, 'olga', 'POST', '/lists', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(
        (answer.body.issues as Array<{ field: string }>).map((issue) => issue.field),
      ).toContain(field);
    }
    const viewer = await adminCall(url, 'victor', 'POST', '/lists', {
      json: { list: 'deny', kind: 'address', value: '10.0.0.1', reason: 'r' },
    });
    expect(viewer.status).toBe(403);
    expect((await adminCall(url, 'olga', 'GET', '/enforcement')).body.version).toBe(before);
    expect((await adminCall(url, 'olga', 'GET', '/lists')).body.entries).toEqual([]);
  });

  it('asks an admin to confirm an entry reaching all traffic or its writer, and never locks out the admin', async () => {
    const url = demos[0]!.url;
    const entry = (value: string, kind = 'address') => ({
      list: 'deny',
      kind,
      value,
      reason: 'everything, on purpose',
    });
    const refused = await adminCall(url, 'olga', 'POST', '/lists', { json: entry('0.0.0.0/0') });
    expect(refused.status).toBe(400);
    const issues = refused.body.issues as Array<{ field: string; message: string }>;
    expect(issues.map((issue) => issue.field)).toEqual(['confirm']);
    expect(issues[0]?.message).toMatch(/0\.0\.0\.0\/0 holds every address .* confirm=broad/);
    const own = await adminCall(url, 'olga', 'POST', '/lists', { json: entry('127.0.0.0/8') });
    expect(own.status).toBe(400);
    expect(own.body.message).toMatch(/holds your own address/);
    const byOperator = await adminCall(url, 'olga', 'POST', '/lists?confirm=broad', {
      json: entry('0.0.0.0/0'),
    });
    expect(byOperator.status).toBe(403);

    // An admin means it: every client of the app is denied, on both instances.
    const ids: string[] = [];
    for (const json of [entry('0.0.0.0/0'), entry('::/0'), entry('^', 'userAgent')]) {
      const added = await adminCall(url, 'alice', 'POST', '/lists?confirm=broad', { json });
      expect(added.status, added.text).toBe(201);
      ids.push(added.body.id as string);
    }
    const { version } = (await adminCall(url, 'alice', 'GET', '/enforcement')).body as {
      version: number;
    };
    await bothOn(version);
    expect([await quote(0, 'free-demo-2'), await quote(1, 'free-demo-2')]).toEqual([429, 429]);
    // The admin still reaches the admin, from the same address, on both instances: its own
    // sign-in limits are out of every list's reach (docs/security.md).
    for (const [at, who] of [
      [0, 'olga'],
      [1, 'victor'],
      [1, 'alice'],
    ] as const) {
      expect((await adminCall(demos[at]!.url, who, 'GET', '/lists')).status).toBe(200);
    }
    for (const id of ids) {
      const removed = await adminCall(demos[1]!.url, 'olga', 'DELETE', `/lists/${id}`, {
        json: { comment: 'done' },
      });
      expect(removed.status, removed.text).toBe(200);
      await bothOn(removed.body.version as number);
    }
    expect(await quote(0, 'free-demo-2')).toBe(200);
  });

  it('holds at most 1000 entries and says so past the bound', async () => {
    // 999 entries written straight to the table: the bound, not 999 publications, is the subject.
    await withPostgres(database.url, (client) =>
      client.query(
        `INSERT INTO sluice_list_entry (id, list, kind, value, key_kind, prefix, mode, reason, created_by)
         SELECT gen_random_uuid(), 'deny', 'identifier', 'bulk-' || n, 'user', false, 'shadow', 'bulk', 'olga'
         FROM generate_series(1, 999) AS n`,
      ),
    );
    const body = {
      list: 'deny',
      kind: 'address',
      value: '192.0.2.1',
      reason: 'one more',
      mode: 'shadow',
    };
    expect((await adminCall(demos[0]!.url, 'olga', 'POST', '/lists', { json: body })).status).toBe(
      201,
    );
    const past = await adminCall(demos[1]!.url, 'olga', 'POST', '/lists', { json: body });
    expect(past.status).toBe(409);
    expect(past.body.message).toMatch(/at most 1000 entries/);
    const list = await adminCall(demos[1]!.url, 'victor', 'GET', '/lists');
    expect(list.body.entries).toHaveLength(1000);
    expect(list.body.max).toBe(1000);
  });
});
