import type {
  PolicyList,
  PolicyRemovalResult,
  PolicyRevisionList,
  PolicyView,
} from '@sluice/admin/api';
import { describe, expect, inject, it } from 'vitest';
import { ADAPTERS, startApp } from '../../support/nest-app.js';
import { adminClient, query } from './admin.client.js';
import { useAdminApp } from './admin.fixture.js';
import { adminApp, SearchController } from './app.module.js';
import { asBody, quota } from './policy.bodies.js';

describe.each(ADAPTERS)('deleting and restoring policies on %s', (adapter) => {
  const admin = useAdminApp(adapter);

  const versionNow = async (): Promise<number> =>
    (await admin.api<PolicyList>('GET', '/policies', { as: 'viewer' })).body.version;
  const restore = (revision: number, options: Parameters<typeof admin.api>[2] = {}) =>
    admin.api<PolicyView>('POST', `/policies/temp/revisions/${revision}/restore`, options);

  it('returns an edited code policy to its code default, and refuses when it is already there', async () => {
    const current = await admin.api<PolicyView>('GET', '/policies/reply');
    await admin.api('PUT', '/policies/reply', { body: { ...asBody(current.body), limit: 7 } });
    const reverted = await admin.api<PolicyRemovalResult>('DELETE', '/policies/reply', {
      body: { comment: 'back to the code' },
    });
    expect(reverted.status).toBe(200);
    expect(reverted.body.policy).toMatchObject({ source: 'code', limit: 3, updatedBy: 'alice' });
    expect(reverted.body.version).toBe(reverted.body.policy?.version);

    const again = await admin.api('DELETE', '/policies/reply');
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('already at its code default');
  });

  it('deletes an admin-only policy, keeping its history; a delete revision cannot be restored', async () => {
    const first = await admin.api<PolicyView>('PUT', '/policies/temp', { body: quota(1) });
    const second = await admin.api<PolicyView>('PUT', '/policies/temp', {
      body: { ...quota(2), version: first.body.version, comment: 'doubled' },
    });
    const removed = await admin.api<PolicyRemovalResult>('DELETE', '/policies/temp', {
      body: { version: second.body.version },
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ version: expect.any(Number) as number, policy: null });
    expect((await admin.api('GET', '/policies/temp')).status).toBe(404);

    const history = await admin.api<PolicyRevisionList>('GET', '/policies/temp/revisions', {
      as: 'viewer',
    });
    expect(history.body.revisions).toMatchObject([
      { version: removed.body.version, action: 'policy.delete', body: null, actor: 'alice' },
      { version: second.body.version, action: 'policy.replace', comment: 'doubled' },
      { version: first.body.version, action: 'policy.create', body: { limit: 1 } },
    ]);
    const deleteRestore = await admin.api(
      'POST',
      `/policies/temp/revisions/${removed.body.version}/restore`,
    );
    expect(deleteRestore.status).toBe(400);
    expect(deleteRestore.body.issues?.[0]?.field).toBe('v');

    const restored = await restore(first.body.version, {
      body: { version: 0, comment: 'the first one was right' },
    });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ limit: 1, source: 'admin' });
    expect(restored.body.version).toBeGreaterThan(removed.body.version);

    const stale = await restore(first.body.version, { body: { version: first.body.version } });
    expect(stale.status).toBe(409);
    expect((await restore(999_999)).status).toBe(404);
    expect((await restore(first.body.version, { as: 'operator' })).status).toBe(403);
  });

  it('leaves no row, revision, audit entry or version bump when part of a change fails', async () => {
    const { url } = admin.database;
    await query(
      url,
      `ALTER TABLE sluice_policy_revision ADD CONSTRAINT refuse_doomed CHECK (policy_name <> 'doomed')`,
    );
    const before = await versionNow();
    const failed = await admin.api('PUT', '/policies/doomed', { body: quota(1) });
    expect(failed.status).toBe(500);
    await query(url, `ALTER TABLE sluice_policy_revision DROP CONSTRAINT refuse_doomed`);

    expect(await versionNow()).toBe(before);
    expect(await query(url, `SELECT 1 FROM sluice_policy WHERE name = 'doomed'`)).toEqual([]);
    expect(await query(url, `SELECT 1 FROM sluice_admin_audit WHERE target = 'doomed'`)).toEqual(
      [],
    );
  });

  it('refuses to delete a policy a route uses and only the database defines, naming the route', async () => {
    await admin.api('PUT', '/policies/search', { body: quota(2) });
    // A second instance, registered with forRootAsync under another path, whose route uses it.
    const second = await startApp(
      adapter,
      adminApp({
        redisUrl: inject('redisUrl'),
        prefix: admin.prefix,
        databaseUrl: admin.database.url,
        controllers: [SearchController],
        asyncPath: 'ops',
      }),
    );
    try {
      const refused = await adminClient(`${second.url}/ops/api`)('DELETE', '/policies/search');
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain('GET /search (SearchController.search)');
      expect((await fetch(`${second.url}/search`)).status).toBe(200);
      expect((await fetch(`${second.url}/sluice/api/policies`)).status).toBe(404);
    } finally {
      await second.close();
    }
  });
});
