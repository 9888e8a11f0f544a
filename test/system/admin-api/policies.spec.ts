import type { AuditPage, PolicyList, PolicyRevisionList, PolicyView } from '@sluice/admin/api';
import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { publishedSnapshot } from './admin.client.js';
import { useAdminApp } from './admin.fixture.js';
import { asBody, quota } from './policy.bodies.js';

afterAll(closeAll);

const fieldsOf = (issues: Array<{ field: string }> = []) => issues.map((issue) => issue.field);

describe.each(ADAPTERS)('admin policies API on %s', (adapter) => {
  const admin = useAdminApp(adapter);

  const versionNow = async (): Promise<number> =>
    (await admin.api<PolicyList>('GET', '/policies', { as: 'viewer' })).body.version;
  const auditedTargets = async (action: string): Promise<string[]> =>
    (await admin.api<AuditPage>('GET', `/audit?action=${action}`)).body.entries.map(
      (entry) => entry.target,
    );

  it('stores the code defaults at start, each with the routes it decides', async () => {
    const list = await admin.api<PolicyList>('GET', '/policies', { as: 'viewer' });
    expect(list.status).toBe(200);
    expect(list.body.enforcement).toBe(true);
    expect(list.body.policies.map((policy) => policy.name)).toEqual(['browse', 'reply']);
    expect(list.body.policies[1]).toMatchObject({
      name: 'reply',
      limit: 3,
      source: 'code',
      updatedBy: 'system',
      routes: [
        {
          method: 'POST',
          path: '/posts/reply',
          owner: 'PostsController',
          handler: 'reply',
          tier: null,
          countedByAddress: false,
        },
      ],
      codeDefault: { name: 'reply', limit: 3 },
    });
    expect((await auditedTargets('policy.seed')).sort()).toEqual(['browse', 'reply']);
  });

  it('creates a policy (201), replaces it at the version read (200), and refuses a stale version (409)', async () => {
    const created = await admin.api<PolicyView>('PUT', '/policies/quota', {
      body: { ...quota(10), comment: 'a quota for everyone' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'quota',
      limit: 10,
      source: 'admin',
      updatedBy: 'alice',
      routes: [],
      codeDefault: null,
    });
    const replaced = await admin.api<PolicyView>('PUT', '/policies/quota', {
      body: { ...quota(20), version: created.body.version },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.version).toBeGreaterThan(created.body.version);

    const stale = await admin.api('PUT', '/policies/quota', {
      body: { ...quota(30), version: created.body.version },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      statusCode: 409,
      error: 'Conflict',
      currentVersion: replaced.body.version,
    });
    // No version is a create, and the policy exists.
    expect((await admin.api('PUT', '/policies/quota', { body: quota(30) })).status).toBe(409);
    const stored = await admin.api<PolicyView>('GET', '/policies/quota', { as: 'viewer' });
    expect(stored.body.limit).toBe(20);
  });

  it('says what a change resets and makes it only when confirmed: calendar, zone, period, algorithm', async () => {
    const daily = {
      algorithm: 'fixed-window',
      limit: 10,
      key: 'ip',
      calendar: { unit: 'day', timeZone: 'UTC' },
    };
    const created = await admin.api<PolicyView>('PUT', '/policies/daily-quota', { body: daily });
    expect(created.status).toBe(201);
    const raised = await admin.api<PolicyView>('PUT', '/policies/daily-quota', {
      body: { ...daily, limit: 20, version: created.body.version },
    });
    expect(raised.status).toBe(200);

    const inParis = { ...daily, calendar: { unit: 'day', timeZone: 'Europe/Paris' } };
    const asked = await admin.api<{ issues: Array<{ field: string; message: string }> }>(
      'PUT',
      '/policies/daily-quota',
      { body: { ...inParis, version: raised.body.version } },
    );
    expect(asked.status).toBe(400);
    expect(asked.body.issues).toEqual([
      {
        field: 'confirm',
        message:
          'Changing periods of a day in UTC to periods of a day in Europe/Paris starts a new period for every identifier now: the counts of the period in progress and the credits granted for it are reset. Save with confirm=reset if you mean it.',
      },
    ]);
    const unchanged = await admin.api<PolicyView>('GET', '/policies/daily-quota');
    expect([unchanged.body.version, unchanged.body.calendar?.timeZone]).toEqual([
      raised.body.version,
      'UTC',
    ]);
    const confirmed = await admin.api<PolicyView>('PUT', '/policies/daily-quota?confirm=reset', {
      body: { ...inParis, version: raised.body.version },
    });
    expect([confirmed.status, confirmed.body.calendar?.timeZone]).toEqual([200, 'Europe/Paris']);

    // A code policy never edited: its period in force is the code's.
    const browse = await admin.api<PolicyView>('GET', '/policies/browse');
    const longer = await admin.api<{ issues: Array<{ field: string; message: string }> }>(
      'PUT',
      '/policies/browse',
      { body: { ...asBody(browse.body), periodMs: 120_000 } },
    );
    expect(longer.status).toBe(400);
    expect(longer.body.issues[0]?.message).toMatch(
      /^Changing windows of 60000 ms to windows of 120000 ms/,
    );
    const otherAlgorithm = await admin.api<{ issues: Array<{ field: string; message: string }> }>(
      'PUT',
      '/policies/browse',
      { body: { ...asBody(browse.body), algorithm: 'sliding-window' } },
    );
    expect(otherAlgorithm.body.issues[0]?.message).toMatch(
      /^Changing the algorithm from fixed-window to sliding-window starts every identifier's count afresh/,
    );
    expect(
      (await admin.api('PUT', '/policies/browse?confirm=yes', { body: asBody(browse.body) }))
        .status,
    ).toBe(400);
  });

  it('takes back a policy exactly as GET returned it: read-only fields and unlimited overrides', async () => {
    const created = await admin.api<PolicyView>('PUT', '/policies/roundtrip', {
      body: {
        ...quota(10),
        overrides: [
          { identifier: 'vip', unlimited: true },
          { identifier: 'pest', limit: 1 },
          // Taken as epoch ms or with any offset; answered in ISO 8601, UTC.
          { identifier: 'trial', limit: 50, expiresAt: Date.parse('2099-01-01T12:00:00Z') },
          { identifier: 'promo', limit: 60, expiresAt: '2099-01-01T12:00:00+01:00' },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.overrides.map((each) => each.expiresAt)).toEqual([
      null,
      null,
      '2099-01-01T12:00:00.000Z',
      '2099-01-01T11:00:00.000Z',
    ]);
    const revisions = await admin.api<PolicyRevisionList>('GET', '/policies/roundtrip/revisions');
    expect(revisions.body.revisions[0]!.body!.overrides[3]!.expiresAt).toBe(
      '2099-01-01T11:00:00.000Z',
    );
    const [entry] = (await admin.api<AuditPage>('GET', '/audit?action=policy.create')).body.entries;
    expect(entry).toMatchObject({
      target: 'roundtrip',
      after: {
        overrides: expect.arrayContaining([
          expect.objectContaining({ expiresAt: '2099-01-01T12:00:00.000Z' }),
        ]) as unknown,
      },
    });
    const read = await admin.api<PolicyView>('GET', '/policies/roundtrip', { as: 'viewer' });
    expect(read.body).toHaveProperty('routes');
    expect(read.body).toHaveProperty('codeDefault');
    expect(read.body.overrides[0]).toMatchObject({
      identifier: 'vip',
      unlimited: true,
      limit: null,
    });
    const putBack = await admin.api<PolicyView>('PUT', '/policies/roundtrip', { body: read.body });
    expect(putBack.status).toBe(200);
    expect(putBack.body.version).toBeGreaterThan(read.body.version);
    expect(putBack.body.overrides).toEqual(read.body.overrides);
  });

  it('serialises concurrent writers: of five creates of one policy, one wins and four get 409', async () => {
    const attempts = await Promise.all(
      [1, 2, 3, 4, 5].map((limit) => admin.api('PUT', '/policies/race', { body: quota(limit) })),
    );
    expect(attempts.map((attempt) => attempt.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const created = await admin.api<AuditPage>('GET', '/audit?action=policy.create&limit=500');
    expect(created.body.entries.filter((entry) => entry.target === 'race')).toHaveLength(1);
  });

  it('publishes each change to Redis and the guard enforces it at once', async () => {
    const current = await admin.api<PolicyView>('GET', '/policies/reply');
    const changed = await admin.api<PolicyView>('PUT', '/policies/reply', {
      body: { ...asBody(current.body), limit: 1 },
    });
    expect(changed.status).toBe(200);
    const snapshot = await publishedSnapshot(connectRedis(), admin.prefix);
    expect(snapshot.version).toBe(changed.body.version);
    expect(snapshot.policies).toContainEqual(expect.objectContaining({ name: 'reply', limit: 1 }));
    const post = () =>
      fetch(`${admin.app.url}/posts/reply`, { method: 'POST', headers: { 'x-user': 'publish' } });
    expect([(await post()).status, (await post()).status]).toEqual([201, 429]);
  });

  it('refuses an invalid body with a 400 naming each field, and writes nothing', async () => {
    const before = await versionNow();
    const refused = await admin.api('PUT', '/policies/broken', {
      body: {
        ...quota(1),
        name: 'other',
        limit: -1,
        periodMs: 'soon',
        colour: 'red',
        comment: 'x'.repeat(501),
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('Bad Request');
    expect(fieldsOf(refused.body.issues).sort()).toEqual([
      'colour',
      'comment',
      'limit',
      'name',
      'periodMs',
    ]);
    expect(refused.body.message).toMatch(/^name: .*; limit: /);

    const badPath = await admin.api('PUT', '/policies/no%20spaces', { body: quota(1) });
    expect(badPath.status).toBe(400);
    expect(fieldsOf(badPath.body.issues)).toEqual(['name']);
    expect((await admin.api('PUT', '/policies/broken', { body: [quota(1)] })).status).toBe(400);

    // Every instance would refuse a snapshot holding it, and so stop following changes.
    const unknownTracker = await admin.api('PUT', '/policies/broken', {
      body: { ...quota(1), key: 'apiclient' },
    });
    expect(unknownTracker.status).toBe(400);
    expect(fieldsOf(unknownTracker.body.issues)).toEqual(['key']);
    expect(unknownTracker.body.message).toContain('"apiclient"');

    expect(await versionNow()).toBe(before);
    expect(await auditedTargets('policy.create')).not.toContain('broken');
  });

  it('ignores the server-owned fields a client sends back', async () => {
    const created = await admin.api<PolicyView>('PUT', '/policies/owned', {
      body: { ...quota(4), source: 'code', updatedBy: 'mallory', updatedAt: '1999-01-01' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ source: 'admin', updatedBy: 'alice' });
    expect(created.body.updatedAt).not.toBe('1999-01-01');
  });

  it('lets an operator change only overrides and mode between enforce and shadow', async () => {
    const created = await admin.api<PolicyView>('PUT', '/policies/plans', { body: quota(5) });
    const overrides = [{ identifier: '203.0.113.9', limit: 50 }];
    const allowed = await admin.api<PolicyView>('PUT', '/policies/plans', {
      as: 'operator',
      body: { ...quota(5), overrides, mode: 'shadow', version: created.body.version },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({ mode: 'shadow', updatedBy: 'olga' });

    const refused = await admin.api('PUT', '/policies/plans', {
      as: 'operator',
      body: { ...quota(6), overrides, mode: 'off', version: allowed.body.version },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.fields).toEqual(['limit', 'mode']);
    expect(refused.body.message).toContain('limit, mode');
    const create = await admin.api('PUT', '/policies/plans-2', { as: 'operator', body: quota(5) });
    expect(create.status).toBe(403);
    const asViewer = await admin.api('PUT', '/policies/plans-3', { as: 'viewer', body: quota(5) });
    expect(asViewer.status).toBe(403);
    expect((await admin.api('DELETE', '/policies/plans', { as: 'operator' })).status).toBe(403);
  });
});
