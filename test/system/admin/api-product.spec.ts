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
  appliedVersion,
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
    const version = written.body.version as number;
    await waitFor(
      `both instances on version ${version}`,
      async () =>
        (await Promise.all(demos.map((demo) => appliedVersion(demo.url)))).every(
          (applied) => applied >= version,
        ) || undefined,
      { timeoutMs: PROPAGATION_MS },
    );
  }

  it('refuses a key the demo did not issue with 401, and charges nothing for it', async () => {
    expect((await quotes('stolen-key', 3)).statuses).toEqual([401, 401, 401]);
    expect((await quotes(undefined, 1)).statuses).toEqual([401]);
  });

  it("decides each key at its plan's tier, on every instance together", async () => {
    const free = await quotes('free-demo-1', 7);
    expect(free.statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(free.policy).toBe('"api-burst";q=5;w=10');
    const pro = await quotes('pro-demo-1', 52);
    expect(pro.admitted).toBe(50);
    expect(pro.policy).toBe('"api-burst";q=50;w=10');
  });

  it("applies an admin's change of the free tier and an operator's move to pro within a second, keeping counts", async () => {
    // free-demo-2 uses its 5 first: what it used must still count after each change.
    expect((await quotes('free-demo-2', 5)).admitted).toBe(5);
    await change(0, 'alice', { tiers: { free: { limit: 8 }, pro: { limit: 50 } } }, 'free gets 8');
    // 5 used of the new 8: three more, not eight.
    const after = await quotes('free-demo-2', 5);
    expect(after.admitted).toBe(3);
    expect(after.policy).toBe('"api-burst";q=8;w=10');

    // The operator assigns free-demo-2 to pro: 8 used of pro's 50.
    await change(
      1,
      'olga',
      { overrides: [{ identifier: 'free-demo-2', tier: 'pro' }] },
      'a trial of pro',
    );
    const trial = await quotes('free-demo-2', 44);
    expect(trial.admitted).toBe(42);
    expect(trial.policy).toBe('"api-burst";q=50;w=10');
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
});
