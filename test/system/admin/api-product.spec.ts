// The demo as an API product: GET /api/quote keyed by X-API-Key, each key on a plan from the
// demo's own table, `api-burst` deciding per key at its plan's tier. Two instances share one
// Redis and one database; an operator's changes reach both without resetting anyone's count.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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

/** A policy as GET answers it, less what PUT does not take: its routes, default and candidate. */
function writable(read: Record<string, unknown>): Record<string, unknown> {
  const body = { ...read };
  for (const field of ['routes', 'codeDefault', 'candidate']) delete body[field];
  return body;
}

/** Change notices reach every instance within this (docs/architecture.md, a policy change). */
const PROPAGATION_MS = 1_000;

describe('the demo quote API, limited by plan', () => {
  let demos: DemoProcess[] = [];
  let database: TestDatabase;

  beforeAll(async () => {
    [database] = await Promise.all([createTestDatabase(), ensureDemoBuilt()]);
    const env = adminDemoEnv({
      redisUrl: inject('redisUrl'),
      databaseUrl: database.url,
      prefix: uniqueDemoPrefix('plans'),
    });
    demos = await startAdminDemos(env, 2);
  }, 90_000);

  showDemoOutputOnFailure(() => demos);

  afterAll(async () => {
    await stopAllDemos();
    await database?.drop();
  });

  /** `times` quotes with `key`, alternating between the instances; the statuses and a header. */
  async function quotes(key: string | undefined, times: number) {
    const statuses: number[] = [];
    let policy: string | undefined;
    for (let i = 0; i < times; i++) {
      const answer = await send(`${demos[i % demos.length]!.url}/api/quote`, {
        headers: key === undefined ? {} : { 'x-api-key': key },
      });
      statuses.push(answer.status);
      const header = answer.headers['ratelimit-policy'];
      if (typeof header === 'string') policy ??= header;
    }
    return { statuses, admitted: statuses.filter((status) => status === 200).length, policy };
  }

  /**
   * Reads api-burst through instance `at`, writes it back with `changes` as `who`, and waits
   * until both instances apply the new version (within PROPAGATION_MS).
   */
  async function change(
    at: number,
    who: 'alice' | 'olga',
    changes: Record<string, unknown>,
    comment: string,
  ): Promise<void> {
    const url = demos[at]!.url;
    const read = await adminCall(url, who, 'GET', '/policies/api-burst');
    expect(read.status).toBe(200);
    const written = await adminCall(url, who, 'PUT', '/policies/api-burst', {
      json: { ...writable(read.body), ...changes, comment },
    });
    expect(written.status, written.text).toBe(200);
    await allOnVersion(demos, written.body.version as number, PROPAGATION_MS);
  }

  it('refuses a key the demo did not issue with 401, and charges nothing for it', async () => {
    expect((await quotes('stolen-key', 3)).statuses).toEqual([401, 401, 401]);
    expect((await quotes(undefined, 1)).statuses).toEqual([401]);
  });

  it("decides each key at its plan's tier, on every instance together", async () => {
    const free = await quotes('free-demo-1', 7);
    expect(free.statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(free.policy).toBe('"api-burst";q=5;w=10, "api-daily";q=20;w=86400');
    const pro = await quotes('pro-demo-1', 52);
    expect(pro.admitted).toBe(50);
    expect(pro.policy).toBe('"api-burst";q=50;w=10, "api-daily";q=1000;w=86400');
  });

  it("applies an admin's change of the free tier and an operator's move to pro within a second, keeping counts", async () => {
    // free-demo-2 uses its 5 first: what it used must still count after each change.
    expect((await quotes('free-demo-2', 5)).admitted).toBe(5);
    await change(0, 'alice', { tiers: { free: { limit: 8 }, pro: { limit: 50 } } }, 'free gets 8');
    // 5 used of the new 8: three more, not eight.
    const after = await quotes('free-demo-2', 5);
    expect(after.admitted).toBe(3);
    expect(after.policy).toBe('"api-burst";q=8;w=10, "api-daily";q=20;w=86400');

    // Today's allowance (api-daily, free 20) would end the trial below at 12 more: the
    // operator credits 40 for today, audited with a note.
    const asked = Date.now();
    const credited = await adminCall(
      demos[1]!.url,
      'olga',
      'POST',
      '/quotas/api-daily/free-demo-2/grant',
      { json: { amount: 40, note: 'room for the pro trial' } },
    );
    expect(credited.status, credited.text).toBe(200);
    expect(credited.body).toMatchObject({ used: 8, granted: 40, limit: 20, remaining: 52 });
    expect(credited.body.tier).toBe('free');
    // The day ends at the next midnight in UTC, written as the API writes every time.
    const midnight = new Date(asked + 86_400_000).toISOString().slice(0, 10);
    expect(credited.body.resetAt).toBe(`${midnight}T00:00:00.000Z`);

    // The operator assigns free-demo-2 to pro: 8 used of pro's 50.
    await change(
      1,
      'olga',
      { overrides: [{ identifier: 'free-demo-2', tier: 'pro' }] },
      'a trial of pro',
    );
    const trial = await quotes('free-demo-2', 44);
    expect(trial.admitted).toBe(42);
    // api-burst at pro's rate; api-daily, which the override does not name, still at free's 20,
    // with the 40 credits granted for the day.
    expect(trial.policy).toBe('"api-burst";q=50;w=10, "api-daily";q=60;w=86400');
    const daily = await adminCall(demos[0]!.url, 'victor', 'GET', '/quotas/api-daily/free-demo-2');
    expect(daily.body).toMatchObject({ used: 50, granted: 40, limit: 20, remaining: 10 });
    const grants = await adminCall(demos[0]!.url, 'alice', 'GET', '/audit?action=quota.grant');
    expect(grants.body.entries).toEqual([
      expect.objectContaining({
        actor: 'olga',
        target: 'api-daily/free-demo-2',
        comment: 'room for the pro trial',
      }),
    ]);
    const audit = await adminCall(demos[0]!.url, 'alice', 'GET', '/audit?action=policy.replace');
    expect(
      (audit.body.entries as Array<{ actor: string; comment: string }>).map((entry) => [
        entry.actor,
        entry.comment,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['olga', 'a trial of pro'],
        ['alice', 'free gets 8'],
      ]),
    );
  });

  it('charges generated tokens after the answer, from its x-usage-tokens, across instances', async () => {
    const generate = (at: number, prompt: string) =>
      send(`${demos[at]!.url}/api/generate`, {
        method: 'POST',
        headers: { 'x-api-key': 'free-demo-1' },
        json: { prompt },
      });
    const first = await generate(0, 'a'.repeat(1_500));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ tokens: 1_500 });
    expect(first.headers['x-usage-tokens']).toBe('1500');
    // Too long a prompt is a 400: its reserved token is given back.
    expect((await generate(1, 'b'.repeat(4_001))).status).toBe(400);
    const tokens = async () =>
      (await adminCall(demos[1]!.url, 'victor', 'GET', '/quotas/api-tokens/free-demo-1')).body;
    await waitFor(
      'the settlement of 1 500 tokens',
      async () => ((await tokens()).used === 1_500 ? true : undefined),
      { timeoutMs: 1_000 },
    );
    // 499 of the free 2 000 left: a 600-token answer is admitted and goes past the limit, by
    // less than one answer's most (usage.maxCost, 4 000).
    expect((await generate(1, 'c'.repeat(600))).status).toBe(200);
    await waitFor(
      'the settlement of 600 more',
      async () => ((await tokens()).used === 2_100 ? true : undefined),
      { timeoutMs: 1_000 },
    );
    expect(await tokens()).toMatchObject({ used: 2_100, remaining: 0, limit: 2_000, tier: 'free' });
    const refused = await generate(0, 'd');
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-policy']).toBe('"api-tokens";q=2000;w=2592000');
  });

  it('lets a free key run one export at a time and a pro key three, across instances', async () => {
    const exportOf = (at: number, key: string, ms: number) =>
      send(`${demos[at]!.url}/api/export?ms=${ms}`, { headers: { 'x-api-key': key } });
    const running = exportOf(0, 'free-demo-2', 1_200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await exportOf(1, 'free-demo-2', 0);
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('1');
    const pro = await Promise.all([0, 1, 0, 1].map((at) => exportOf(at, 'pro-demo-1', 600)));
    expect(pro.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 429]);
    expect((await running).body).toEqual({ exported: true, ms: 1_200 });
    // Its slot came back with its answer.
    expect((await exportOf(1, 'free-demo-2', 0)).status).toBe(200);
    expect((await exportOf(0, 'free-demo-2', 5_001)).status).toBe(400);
  });

  it("assigns a customer's plan through one instance; the other decides at it within a second", async () => {
    // The version the plan writes, applied by both instances: the same path as a policy change.
    const bothOn = (version: number) => allOnVersion(demos, version, PROPAGATION_MS);
    const until = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const assigned = await adminCall(demos[0]!.url, 'olga', 'PUT', '/plans/free-demo-1', {
      json: { tier: 'pro', expiresAt: until, note: 'annual upgrade #31' },
    });
    expect(assigned.status, assigned.text).toBe(200);
    const { version } = (await adminCall(demos[0]!.url, 'olga', 'GET', '/enforcement')).body as {
      version: number;
    };
    await bothOn(version);
    const onPro = await send(`${demos[1]!.url}/api/quote`, {
      headers: { 'x-api-key': 'free-demo-1' },
    });
    expect(onPro.status).toBe(200);
    expect(onPro.headers['ratelimit-policy']).toBe(
      '"api-burst";q=50;w=10, "api-daily";q=1000;w=86400',
    );
    const seen = await adminCall(demos[1]!.url, 'victor', 'GET', '/plans/free-demo-1');
    expect(seen.body).toMatchObject({ tier: 'pro', expiresAt: until });
    const audit = await adminCall(demos[1]!.url, 'alice', 'GET', '/audit?action=plan.assign');
    expect(
      (audit.body.entries as Array<{ actor: string; target: string; comment: string }>).map(
        (entry) => [entry.actor, entry.target, entry.comment],
      ),
    ).toEqual([['olga', 'free-demo-1', 'annual upgrade #31']]);

    const removed = await adminCall(demos[1]!.url, 'olga', 'DELETE', '/plans/free-demo-1');
    expect(removed.status, removed.text).toBe(200);
    const after = (await adminCall(demos[1]!.url, 'olga', 'GET', '/enforcement')).body as {
      version: number;
    };
    await bothOn(after.version);
    const onFree = await send(`${demos[0]!.url}/api/quote`, {
      headers: { 'x-api-key': 'free-demo-1' },
    });
    // Back on free, as raised to 8 above.
    expect(onFree.headers['ratelimit-policy']).toBe(
      '"api-burst";q=8;w=10, "api-daily";q=20;w=86400',
    );
  });
});
