import type { InspectResult, QuotaState } from '@sluice/admin/api';
import { describe, expect, it } from 'vitest';
import { useAdminApp } from './admin.fixture.js';

// The Identifiers screen reads an identifier at its own plan, as tiers.ofIdentifier names it,
// waiting longer than a request may (docs/guide.md, "Plans"), and says when the lookup failed.

const PLANS = {
  name: 'plans',
  algorithm: 'fixed-window',
  limit: 10,
  periodMs: 60_000,
  key: 'header:x-api-key',
  tiers: { pro: { limit: 50 } },
} as const;

/** A plan store: slow for one key (past a request's 50 ms bound), down for another. */
async function planOf(identifier: string): Promise<string | undefined> {
  if (identifier === 'broken-key') throw new Error('the plan store is down');
  if (identifier === 'slow-pro-key') {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return 'pro';
  }
  return undefined;
}

describe('an identifier read at its plan on the Identifiers screen (Express)', () => {
  const admin = useAdminApp('express', {
    policies: [PLANS],
    tiers: { resolve: () => undefined, ofIdentifier: (identifier) => planOf(identifier) },
  });

  it('waits for a slow lookup and reads the pro rate; says which lookup failed and why', async () => {
    const slow = await admin.api<InspectResult>('GET', '/inspect/plans/slow-pro-key');
    expect(slow.body.policies[0]).toMatchObject({ limit: 50, tier: 'pro' });
    expect(slow.body.tierLookup).toEqual({
      asked: true,
      tier: 'pro',
      anchorDay: null,
      failure: null,
    });
    const quota = await admin.api<QuotaState>('GET', '/quotas/plans/slow-pro-key');
    expect([quota.body.limit, quota.body.tier]).toEqual([50, 'pro']);

    const broken = await admin.api<InspectResult>('GET', '/inspect/plans/broken-key');
    expect(broken.body.policies[0]?.limit).toBe(10);
    expect(broken.body.tierLookup).toMatchObject({
      tier: null,
      failure: 'tiers.ofIdentifier: the plan store is down',
    });

    // A policy whose figures no plan changes asks nothing.
    const reply = await admin.api<InspectResult>('GET', '/inspect/reply/slow-pro-key');
    expect(reply.body.tierLookup).toBeNull();
  });
});
