// Shadow candidates through the admin API: proposed against the version read, decided beside
// the live policy by the running app, compared per identifier, promoted (with a confirmation
// when the policy changed meanwhile), discarded and expired, each in the audit.
import type {
  PolicyRevisionList,
  AuditPage,
  CandidateComparison,
  CandidateView,
  PolicyView,
  StatsSeries,
} from '@sluice/admin/api';
import { PolicyRegistry } from '@sluice/nest/internals';
import { IdentifierTally } from '@sluice/nest/src/stats/identifier.tally.js';
import { describe, expect, it } from 'vitest';
import { CandidateService } from '@sluice/admin/src/policies/candidate.service.js';
import { ADAPTERS } from '../../support/nest-app.js';
import { eventually, query, type ErrorReply } from './admin.client.js';
import { useAdminApp, type AdminFixture } from './admin.fixture.js';
import { asBody } from './policy.bodies.js';

const DAY_MS = 86_400_000;

/** The requests the tests make, on one admin app. */
function helpers(admin: AdminFixture) {
  const live = async (): Promise<PolicyView> =>
    (await admin.api<PolicyView>('GET', '/policies/reply')).body;
  return {
    live,
    propose: async (changes: Record<string, unknown>, as?: 'operator' | 'viewer') => {
      const current = await live();
      return admin.api<CandidateView>('POST', '/policies/reply/candidate', {
        body: { ...asBody(current), candidate: undefined, ...changes },
        ...(as === undefined ? {} : { as }),
      });
    },
    audited: async (action: string): Promise<string[]> =>
      (await admin.api<AuditPage>('GET', `/audit?action=${action}`)).body.entries.map(
        (entry) => `${entry.target} ${entry.actor}`,
      ),
    reply: (user: string) =>
      fetch(`${admin.app.url}/posts/reply`, { method: 'POST', headers: { 'x-user': user } }),
    applied: (limit: number | null) => () => {
      const policy = admin.app.app.get(PolicyRegistry).get('reply');
      return (policy?.candidate?.policy.limit ?? null) === limit;
    },
  };
}

describe.each(ADAPTERS)('shadow candidates on %s', (adapter) => {
  const admin = useAdminApp(adapter);
  const { live, propose, audited, reply, applied } = helpers(admin);

  it('refuses bad proposals, naming the field, and unknown policies with 404', async () => {
    const bad = await propose({ limit: 0, expiresInMs: 5, samplePercent: 0 });
    expect(bad.status).toBe(400);
    const fields = (bad.body as unknown as ErrorReply).issues?.map((issue) => issue.field);
    expect(fields).toEqual(expect.arrayContaining(['expiresInMs', 'samplePercent']));
    const fraction = await propose({ limit: 1, samplePercent: 12.5 });
    expect(fraction.status).toBe(400);
    expect((fraction.body as unknown as ErrorReply).issues).toEqual([
      { field: 'samplePercent', message: 'must be a whole number of percent from 1 to 100' },
    ]);
    const badRule = await propose({ limit: 0 });
    expect(badRule.status).toBe(400);
    expect((badRule.body as unknown as ErrorReply).issues?.map((issue) => issue.field)).toEqual([
      'limit',
    ]);
    const unknown = await admin.api('POST', '/policies/nothing-here/candidate', {
      body: { algorithm: 'fixed-window', limit: 1, periodMs: 60_000, version: 1 },
    });
    expect(unknown.status).toBe(404);
    expect((await admin.api('GET', '/policies/reply/candidate')).status).toBe(404);
    expect((await propose({ limit: 1 }, 'viewer')).status).toBe(403);
    // Operators change overrides and enforce/shadow only: a new limit is an admin's to propose.
    expect((await propose({ limit: 1 }, 'operator')).status).toBe(403);
    const rows = await query(admin.database.url, 'SELECT * FROM sluice_policy_candidate');
    expect(rows).toEqual([]);
  });

  it('is decided beside the live policy, which alone answers; differences are kept per user', async () => {
    const before = await live();
    const proposed = await propose({ limit: 1, comment: 'one reply a minute', samplePercent: 100 });
    expect(proposed.status).toBe(201);
    expect(proposed.body).toMatchObject({
      policy: 'reply',
      baseVersion: before.version,
      proposedBy: 'alice',
      rules: { limit: 1 },
      samplePercent: 100,
    });
    const lifetime = Date.parse(proposed.body.expiresAt) - Date.parse(proposed.body.proposedAt);
    expect(lifetime).toBe(DAY_MS);
    expect((await live()).candidate).toMatchObject({ proposedBy: 'alice' });
    await eventually(applied(1), 2_000);

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await reply('harry')).status);
    expect(statuses).toEqual([201, 201, 201]);
    await admin.app.app.get(IdentifierTally).flush();

    const comparison = await admin.api<CandidateComparison>('GET', '/policies/reply/candidate', {
      as: 'viewer',
    });
    expect(comparison.status).toBe(200);
    expect(comparison.body).toMatchObject({ stale: false, changedFields: ['limit'] });
    expect(comparison.body.differences).toEqual([
      expect.objectContaining({
        keyKind: 'header:x-user',
        identifier: 'harry',
        candidateRefuses: 2,
        liveRefuses: 0,
      }),
    ]);
    expect(await audited('candidate.propose')).toContain('reply alice');
  });

  it('asks to confirm a promotion when the policy changed since, then enforces the candidate', async () => {
    const current = await live();
    await propose({ limit: 2 });
    const changed = await admin.api<PolicyView>('PUT', '/policies/reply', {
      body: { ...asBody(current), candidate: undefined, description: 'edited meanwhile' },
    });
    expect(changed.status).toBe(200);

    const refused = await admin.api('POST', '/policies/reply/candidate/promote', { body: {} });
    expect(refused.status).toBe(409);
    expect((await live()).limit).toBe(current.limit);

    const promoted = await admin.api<PolicyView>('POST', '/policies/reply/candidate/promote', {
      body: { confirm: true },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ limit: 2, source: 'admin', updatedBy: 'alice' });
    expect((await admin.api('GET', '/policies/reply/candidate')).status).toBe(404);
    await eventually(() => {
      const policy = admin.app.app.get(PolicyRegistry).get('reply');
      return policy?.limit === 2 && policy.candidate === null;
    }, 2_000);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await reply('ginny')).status);
    expect(statuses).toEqual([201, 201, 429]);
    expect(await audited('policy.promote')).toContain('reply alice');
  });

  it("keeps an admin's candidate from an operator's proposal, which would replace it", async () => {
    const adminsLimit = (await live()).limit + 7;
    await propose({ limit: adminsLimit });
    const overridesOnly = await propose(
      { overrides: [{ identifier: 'neville', limit: 10 }] },
      'operator',
    );
    expect(overridesOnly.status).toBe(403);
    const kept = await admin.api<CandidateComparison>('GET', '/policies/reply/candidate');
    expect(kept.body.rules.limit).toBe(adminsLimit);
    // With no candidate of an admin's in the way, the operator's proposal is within its remit.
    expect((await admin.api('DELETE', '/policies/reply/candidate', { body: {} })).status).toBe(200);
    expect(
      (await propose({ overrides: [{ identifier: 'neville', limit: 10 }] }, 'operator')).status,
    ).toBe(201);
  });

  it("keeps the proposal's note in the promoted revision", async () => {
    await propose({ limit: 2, comment: 'bursts of spam at night' });
    const promoted = await admin.api('POST', '/policies/reply/candidate/promote', { body: {} });
    expect(promoted.status).toBe(200);
    const revisions = await admin.api<PolicyRevisionList>('GET', '/policies/reply/revisions');
    expect(revisions.body.revisions[0]).toMatchObject({
      action: 'policy.promote',
      comment: 'bursts of spam at night (promoted the candidate alice proposed)',
    });
  });

  it('is discarded on request, and expires by itself, both audited', async () => {
    await propose({ limit: 1 });
    const discarded = await admin.api('DELETE', '/policies/reply/candidate', {
      body: { comment: 'not now' },
    });
    expect(discarded.status).toBe(200);
    expect((await admin.api('DELETE', '/policies/reply/candidate')).status).toBe(404);
    expect(await audited('candidate.discard')).toContain('reply alice');

    const short = await propose({ limit: 1, expiresInMs: 60_000 });
    expect(short.status).toBe(201);
    await admin.app.app.get(CandidateService).sweep(new Date(Date.now() + 61_000));
    expect((await admin.api('GET', '/policies/reply/candidate')).status).toBe(404);
    expect(await audited('candidate.expire')).toContain('reply system');
    await eventually(applied(null), 2_000);
  });
});

// An app of its own, so the stats it reads hold this test's requests alone.
describe.each(ADAPTERS)('a sampled shadow candidate on %s', (adapter) => {
  const admin = useAdminApp(adapter);
  const { live, propose, reply, applied } = helpers(admin);

  it('is decided for 5 % of identifiers unless asked, and counted beside live on the same requests', async () => {
    const proposed = await propose({ limit: 1 });
    expect(proposed.status).toBe(201);
    expect(proposed.body.samplePercent).toBe(5);
    expect((await live()).candidate).toMatchObject({ samplePercent: 5 });
    await eventually(applied(1), 2_000);

    const readers = Array.from({ length: 60 }, (_, index) => `reader-${index}`);
    for (const reader of readers) {
      expect([(await reply(reader)).status, (await reply(reader)).status]).toEqual([201, 201]);
    }
    await admin.app.app.get(IdentifierTally).flush();
    const comparison = await admin.api<CandidateComparison>('GET', '/policies/reply/candidate');
    // The candidate (one a minute) refuses each sampled reader's second reply; live admits it.
    const sampled = comparison.body.differences.map((row) => row.identifier);
    expect(sampled.length).toBeGreaterThan(0);
    expect(sampled.length).toBeLessThan(20);
    expect(comparison.body.differences.every((row) => row.candidateRefuses === 1)).toBe(true);

    const totals = async () => {
      const series = await admin.api<StatsSeries>('GET', '/stats?seconds=60&policy=reply');
      const sum = (name: string, outcome: 'allowed' | 'rejected') =>
        series.body.points.reduce(
          (total, point) => total + (point.policies[name]?.[outcome] ?? 0),
          0,
        );
      return {
        live: sum('reply', 'allowed'),
        sampledLive: sum('reply~s', 'allowed'),
        candidate: [sum('reply~c', 'allowed'), sum('reply~c', 'rejected')],
      };
    };
    await eventually(async () => (await totals()).live >= 120, 5_000);
    expect(await totals()).toEqual({
      live: 120,
      sampledLive: 2 * sampled.length,
      candidate: [sampled.length, sampled.length],
    });
  });
});
