import type { AuditPage, InspectResult, PlanView, PolicyList } from '@sluice/admin/api';
import type { PolicyInput } from '@sluice/nest';
import { describe, expect, it } from 'vitest';
import { useAdminApp } from './admin.fixture.js';

// A customer's plan in one place (docs/operations.md, "Plans"): one call moves an API key to a
// tier under every policy that has it, in one version, audited once.

const tiered = (name: string, algorithm: PolicyInput['algorithm'], tiers: object): PolicyInput => ({
  name,
  algorithm,
  limit: 5,
  periodMs: 60_000,
  key: 'header:x-api-key',
  tiers: tiers as PolicyInput['tiers'],
});

const POLICIES: PolicyInput[] = [
  tiered('api-burst', 'gcra', { pro: { limit: 50 } }),
  tiered('api-daily', 'fixed-window', { pro: { limit: 500 }, enterprise: { limit: 5000 } }),
  tiered('api-export', 'concurrency', { pro: { limit: 3 } }),
];

describe('plans: one tier across every tiered policy (Express)', () => {
  const admin = useAdminApp('express', { policies: POLICIES });
  const version = async () =>
    (await admin.api<PolicyList>('GET', '/policies', { as: 'viewer' })).body.version;
  const auditAt = async (at: number) =>
    (await admin.api<AuditPage>('GET', '/audit?limit=50')).body.entries.filter(
      (entry) => entry.version === at,
    );
  const tiersOf = (view: PlanView) => view.policies.map((each) => [each.policy, each.tier]);

  it('assigns, moves and removes a plan in one audited version each; the guard reads it at once', async () => {
    const before = await version();
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const assigned = await admin.api<PlanView>('PUT', '/plans/key-1', {
      as: 'operator',
      body: { tier: 'pro', expiresAt: until, note: 'upgrade #12' },
    });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ identifier: 'key-1', tier: 'pro', expiresAt: until });
    expect(tiersOf(assigned.body)).toEqual([
      ['api-burst', 'pro'],
      ['api-daily', 'pro'],
      ['api-export', 'pro'],
    ]);
    expect(assigned.body.lastChange).toMatchObject({
      action: 'plan.assign',
      actor: 'olga',
      note: 'upgrade #12',
    });
    expect(await version()).toBe(before + 1);
    const entries = await auditAt(before + 1);
    expect(entries.map((entry) => [entry.action, entry.target, entry.actor])).toEqual([
      ['plan.assign', 'key-1', 'olga'],
    ]);
    const daily = await admin.api<InspectResult>('GET', '/inspect/api-daily/key-1');
    expect(daily.body.policies[0]).toMatchObject({ tier: 'pro', limit: 500 });

    // The same plan again changes nothing; another moves it where that tier exists.
    await admin.api('PUT', '/plans/key-1', {
      as: 'operator',
      body: { tier: 'pro', expiresAt: until, note: 'again' },
    });
    expect(await version()).toBe(before + 1);
    const moved = await admin.api<PlanView>('PUT', '/plans/key-1', {
      as: 'operator',
      body: { tier: 'enterprise' },
    });
    expect(tiersOf(moved.body)).toEqual([
      ['api-burst', null],
      ['api-daily', 'enterprise'],
      ['api-export', null],
    ]);
    expect(moved.body.tier).toBe('enterprise');

    const removed = await admin.api<PlanView>('DELETE', '/plans/key-1', { as: 'operator' });
    expect(tiersOf(removed.body).every(([, tier]) => tier === null)).toBe(true);
    expect(removed.body.lastChange).toMatchObject({ action: 'plan.remove', actor: 'olga' });
    const plain = await admin.api<InspectResult>('GET', '/inspect/api-daily/key-1');
    expect(plain.body.policies[0]).toMatchObject({ limit: 5 });
    expect(plain.body.policies[0]?.tier).toBeUndefined();
  });

  it('refuses a tier no policy has, a past expiry, a bad identifier, and a viewer', async () => {
    const before = await version();
    const unknown = await admin.api<{ issues: Array<{ field: string }> }>('PUT', '/plans/key-2', {
      as: 'operator',
      body: { tier: 'gold' },
    });
    expect([unknown.status, unknown.body.issues[0]?.field]).toEqual([400, 'tier']);
    const past = await admin.api<{ issues: Array<{ field: string }> }>('PUT', '/plans/key-2', {
      as: 'operator',
      body: { tier: 'pro', expiresAt: '2020-01-01T00:00:00Z' },
    });
    expect([past.status, past.body.issues[0]?.field]).toEqual([400, 'expiresAt']);
    const control = await admin.api<{ issues: Array<{ field: string }> }>('PUT', '/plans/a%07b', {
      as: 'operator',
      body: { tier: 'pro' },
    });
    expect([control.status, control.body.issues[0]?.field]).toEqual([400, 'identifier']);
    const byViewer = await admin.api('PUT', '/plans/key-2', {
      as: 'viewer',
      body: { tier: 'pro' },
    });
    expect(byViewer.status).toBe(403);
    expect(await version()).toBe(before);
  });
});
