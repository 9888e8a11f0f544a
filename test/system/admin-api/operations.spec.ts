import type {
  AuditPage,
  BlockResult,
  CounterResetResult,
  EnforcementState,
  InspectResult,
  InstanceList,
  PolicyList,
  PolicyView,
  QuotaState,
  RouteList,
} from '@sluice/admin/api';
import { PolicyBus, SluiceService } from '@sluice/nest/internals';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../support/nest-app.js';
import { withPostgres } from '../../support/postgres-server.js';
import { eventually, query } from './admin.client.js';
import { useAdminApp } from './admin.fixture.js';
import { asBody } from './policy.bodies.js';
import { LEDGER, TOKENS } from './app.module.js';

const fieldsOf = (issues: Array<{ field: string }> = []) => issues.map((issue) => issue.field);

describe.each(ADAPTERS)('admin operations API on %s', (adapter) => {
  const admin = useAdminApp(adapter, { policies: [LEDGER] });

  const replies = async (user: string, times: number): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) {
      const response = await fetch(`${admin.app.url}/posts/reply`, {
        method: 'POST',
        headers: { 'x-user': user },
      });
      statuses.push(response.status);
    }
    return statuses;
  };
  const audit = async (search: string) =>
    (await admin.api<AuditPage>('GET', `/audit?${search}`)).body;
  const remaining = async (identifier: string) =>
    (await admin.api<InspectResult>('GET', `/inspect/reply/${identifier}`)).body.remaining;

  it("audits every grant: an operator's through the API and the app's own through SluiceService", async () => {
    const before = Date.now();
    const byOperator = await admin.api<QuotaState>('POST', '/quotas/ledger/203.0.113.5/grant', {
      as: 'operator',
      body: { amount: 40, note: 'ticket 881' },
    });
    expect(byOperator.status).toBe(200);
    expect(byOperator.body).toMatchObject({ used: 0, granted: 40, remaining: 140, limit: 100 });
    // An ISO time, exactly on the boundary the year ends on (Redis's clock and this one differ).
    expect(byOperator.body.resetAt).toBe(
      `${new Date(before).getUTCFullYear() + 1}-01-01T00:00:00.000Z`,
    );
    const sluice = admin.app.app.get(SluiceService);
    const quota = await sluice.grant('ledger', '203.0.113.5', -15, {
      keyKind: 'ip',
      actor: 'billing-job',
      note: 'refund reversed',
    });
    expect(quota).toMatchObject({ granted: 25, remaining: 125 });
    // Refused before anything is written: no credit, no entry.
    await expect(sluice.grant('ledger', '203.0.113.5', 0, { keyKind: 'ip' })).rejects.toThrow(
      /amount/,
    );
    const refused = await admin.api('POST', '/quotas/reply/203.0.113.5/grant', {
      as: 'operator',
      body: { amount: 5 },
    });
    expect(refused.status).toBe(400);
    expect(fieldsOf((refused.body as { issues?: Array<{ field: string }> }).issues)).toEqual([
      'policy',
    ]);
    const grants = (await audit('limit=50')).entries.filter(
      (entry) => entry.target === 'ledger/203.0.113.5',
    );
    expect(grants.map((entry) => [entry.action, entry.actor, entry.comment])).toEqual([
      ['quota.debit', 'billing-job', 'refund reversed'],
      ['quota.grant', 'olga', 'ticket 881'],
    ]);
    expect(grants[1]).toMatchObject({ ip: expect.any(String) as string });
  });

  it('audits under 40 parallel grants the total Redis answered for each one', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        admin.api<QuotaState>('POST', '/quotas/ledger/203.0.113.9/grant', {
          as: 'operator',
          body: { amount: 3 },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200));
    const held = await admin.api<QuotaState>('GET', '/quotas/ledger/203.0.113.9');
    expect(held.body.granted).toBe(120);
    const totals = (await audit('action=quota.grant&limit=100')).entries
      .filter((entry) => entry.target === 'ledger/203.0.113.9')
      .map((entry) => (entry.after as { granted: number }).granted)
      .sort((a, b) => a - b);
    // Each grant's entry says what Redis held right after it: 3, 6, … 120, none twice.
    expect(totals).toEqual(Array.from({ length: 40 }, (_, index) => 3 * (index + 1)));
  });

  it('takes a grant back and answers 503 when its audit entry cannot be written', async () => {
    // A real refusal by PostgreSQL, after Redis took the credits: the audit insert fails.
    await withPostgres(admin.database.url, (client) =>
      client.query(`
        CREATE FUNCTION refuse_marked_audit() RETURNS trigger AS $$
        BEGIN
          IF NEW.comment = 'the audit refuses this' THEN RAISE EXCEPTION 'audit refused'; END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER refuse_marked_audit BEFORE INSERT ON sluice_admin_audit
          FOR EACH ROW EXECUTE FUNCTION refuse_marked_audit();`),
    );
    try {
      const refused = await admin.api('POST', '/quotas/ledger/203.0.113.10/grant', {
        as: 'operator',
        body: { amount: 50, note: 'the audit refuses this' },
      });
      expect(refused.status).toBe(503);
      expect((refused.body as { message: string }).message).toMatch(
        /could not be audited, so it was taken back and nothing was granted/,
      );
      const held = await admin.api<QuotaState>('GET', '/quotas/ledger/203.0.113.10');
      expect(held.body).toMatchObject({ granted: 0, remaining: 100 });
      const entries = (await audit('action=quota.grant&limit=100')).entries;
      expect(entries.filter((entry) => entry.target === 'ledger/203.0.113.10')).toEqual([]);
    } finally {
      await withPostgres(admin.database.url, (client) =>
        client.query(
          'DROP TRIGGER refuse_marked_audit ON sluice_admin_audit; DROP FUNCTION refuse_marked_audit();',
        ),
      );
    }
  });

  it('switches enforcement off and on (admin only), audited and versioned', async () => {
    const before = await admin.api<EnforcementState>('GET', '/enforcement', { as: 'viewer' });
    expect(before.body).toEqual({ enabled: true, version: expect.any(Number) as number });
    const byOperator = await admin.api('PUT', '/enforcement', {
      as: 'operator',
      body: { enabled: false },
    });
    expect(byOperator.status).toBe(403);

    const off = await admin.api<EnforcementState>('PUT', '/enforcement', {
      body: { enabled: false, comment: 'incident 12' },
    });
    expect(off.body).toEqual({ enabled: false, version: before.body.version + 1 });
    // Suspended: more requests than the limit of 3 all pass.
    expect(await replies('switch', 5)).toEqual([201, 201, 201, 201, 201]);
    expect((await admin.api<PolicyList>('GET', '/policies')).body.enforcement).toBe(false);

    const on = await admin.api<EnforcementState>('PUT', '/enforcement', {
      body: { enabled: true },
    });
    expect(on.body).toEqual({ enabled: true, version: before.body.version + 2 });
    expect((await audit('action=enforcement.set')).entries).toMatchObject([
      { actor: 'alice', after: { enabled: true }, version: on.body.version },
      { before: { enabled: true }, after: { enabled: false }, comment: 'incident 12' },
    ]);

    const invalid = await admin.api('PUT', '/enforcement', { body: { enabled: 'no', why: 1 } });
    expect(invalid.status).toBe(400);
    expect(fieldsOf(invalid.body.issues).sort()).toEqual(['enabled', 'why']);
  });

  it("inspects an identifier's counters without charging, and lets an operator reset them", async () => {
    expect(await replies('carol', 4)).toEqual([201, 201, 201, 429]);
    const inspected = await admin.api<InspectResult>('GET', '/inspect/reply/carol', {
      as: 'viewer',
    });
    expect(inspected.status).toBe(200);
    expect(inspected.body).toMatchObject({
      allowed: false,
      policy: 'reply',
      limit: 3,
      remaining: 0,
    });
    // Inspecting charged nothing: a fresh identifier still has its whole limit.
    expect(await remaining('dave')).toBe(3);

    expect((await admin.api('DELETE', '/counters/reply/carol', { as: 'viewer' })).status).toBe(403);
    const reset = await admin.api<CounterResetResult>('DELETE', '/counters/reply/carol', {
      as: 'operator',
    });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ reset: true });
    expect(await remaining('carol')).toBe(3);
    expect(await replies('carol', 1)).toEqual([201]);
    expect((await audit('action=counters.reset')).entries).toMatchObject([
      { actor: 'olga', target: 'reply/carol', userAgent: 'admin-api-test' },
    ]);
  });

  it('writes the times of an inspection in ISO 8601: a block and an expiring override', async () => {
    const blocked = await admin.api<BlockResult>('POST', '/blocked', {
      as: 'operator',
      body: { policy: 'reply', identifier: 'erin', durationMs: 600_000 },
    });
    expect(blocked.status).toBe(201);
    const inspected = await admin.api<InspectResult>('GET', '/inspect/reply/erin');
    expect(inspected.body.blocked?.until).toBe(blocked.body.expiresAt);
    expect(inspected.body.policies[0]!.blocked?.until).toBe(blocked.body.expiresAt);
    expect(inspected.body.blocked).not.toHaveProperty('untilMs');

    const policy = (await admin.api<PolicyView>('GET', '/policies/reply')).body;
    const changed = await admin.api('PUT', '/policies/reply', {
      body: {
        ...asBody(policy),
        overrides: [{ identifier: 'frank', limit: 9, expiresAt: '2099-06-01T08:00:00+02:00' }],
      },
    });
    expect(changed.status).toBe(200);
    const frank = await admin.api<InspectResult>('GET', '/inspect/reply/frank');
    expect(frank.body.override).toMatchObject({ limit: 9, expiresAt: '2099-06-01T06:00:00.000Z' });
  });

  it("refuses to write the admin's own sign-in policies, which stay readable", async () => {
    const name = 'sluice-admin.sign-in-attempts';
    const body = {
      algorithm: 'sliding-log',
      limit: 1_000_000,
      periodMs: 60_000,
      key: 'ip',
      version: 0,
    };
    for (const [method, path, sent] of [
      ['PUT', `/policies/${name}`, body],
      ['DELETE', `/policies/${name}`, undefined],
      ['POST', `/policies/${name}/revisions/1/restore`, undefined],
      ['POST', `/policies/${name}/candidate`, { policy: body }],
    ] as const) {
      const refused = await admin.api(method, path, { body: sent });
      expect(refused.status, `${method} ${path}`).toBe(400);
      expect(fieldsOf(refused.body.issues), `${method} ${path}`).toEqual(['name']);
    }
  });

  it('refuses an identifier that is not valid percent-encoded UTF-8 with 400', async () => {
    expect((await admin.api('GET', '/inspect/reply/%ED%A0%80')).status).toBe(400);
  });

  it("serves the auth module's sign-in beside the API, and its session cookie opens the API", async () => {
    const signedIn = await fetch(`${admin.app.url}/sluice/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'victor', password: TOKENS.viewer }),
    });
    expect(signedIn.status).toBe(200);
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const list = await fetch(`${admin.app.url}/sluice/api/policies`, { headers: { cookie } });
    expect(list.status).toBe(200);
  });

  it('answers 404 for a policy not in force, for inspect and reset alike', async () => {
    expect((await admin.api('GET', '/inspect/nothing/carol')).status).toBe(404);
    expect((await admin.api('DELETE', '/counters/nothing/carol')).status).toBe(404);
  });

  it('lists the decorated routes and the running instances', async () => {
    const routes = await admin.api<RouteList>('GET', '/routes', { as: 'viewer' });
    expect(routes.body.routes).toContainEqual({
      owner: 'PostsController',
      handler: 'reply',
      method: 'POST',
      path: '/posts/reply',
      policies: ['reply'],
      skipped: false,
      tier: null,
      countedByAddress: [],
    });
    const { version } = (await admin.api<PolicyList>('GET', '/policies')).body;
    const ownId = admin.app.app.get(PolicyBus).instanceId;
    const instances = async () => (await admin.api<InstanceList>('GET', '/instances')).body;
    await eventually(async () => {
      const list = await instances();
      const own = list.instances.find((each) => each.id === ownId);
      return list.version === version && own?.upToDate === true;
    }, 5_000);
    expect((await instances()).instances).toContainEqual(
      expect.objectContaining({ id: ownId, pid: process.pid, stale: false, upToDate: true }),
    );
  });

  it('pages the audit newest first with a cursor, and filters it', async () => {
    const ids = (await audit('limit=500')).entries.map((entry) => entry.id);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);

    const walked: number[] = [];
    let cursor: string | null = null;
    do {
      const page: AuditPage = await audit(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.entries.length).toBeLessThanOrEqual(2);
      walked.push(...page.entries.map((entry) => entry.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual(ids);

    const byOlga = (await audit('actor=olga')).entries;
    expect(byOlga.length).toBeGreaterThan(0);
    expect(byOlga.every((entry) => entry.actor === 'olga')).toBe(true);
    expect(await audit('from=2999-01-01T00:00:00Z')).toEqual({ entries: [], nextCursor: null });

    const invalid = await admin.api('GET', '/audit?limit=0&from=yesterday&colour=red');
    expect(invalid.status).toBe(400);
    expect(fieldsOf(invalid.body.issues).sort()).toEqual(['colour', 'from', 'limit']);
  });

  it('keeps the audit append-only: the database refuses to change or remove an entry', async () => {
    const { url } = admin.database;
    const refused = /append-only/;
    await expect(query(url, `UPDATE sluice_admin_audit SET actor = 'nobody'`)).rejects.toThrow(
      refused,
    );
    await expect(query(url, `DELETE FROM sluice_admin_audit`)).rejects.toThrow(refused);
    await expect(query(url, `TRUNCATE sluice_admin_audit`)).rejects.toThrow(refused);
  });
});
