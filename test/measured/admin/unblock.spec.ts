// A penalty event (docs/architecture.md): an instance caches the blocks it has seen and refuses them without asking Redis; a
// block lifted through any instance's admin API is forgotten by every instance within a second.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import {
  ensureDemoBuilt,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoProcess,
} from '../../system/support/demo-process.js';
import { send, type Answer } from '../../system/support/http.js';
import {
  adminCall,
  adminDemoEnv,
  showDemoOutputOnFailure,
  startAdminDemos,
} from '../../system/admin/support/admin-demo.js';
import { recordReliabilitySection } from '../../support/measured-figures.js';

const PASSWORD = 'correct horse';
const WITHIN_MS = 1_000;

const login = (url: string, username: string, password: string): Promise<Answer> =>
  send(`${url}/login`, { json: { username, password } });

describe('lifting a block through one instance', () => {
  let database: TestDatabase;
  let demos: DemoProcess[] = [];

  beforeAll(async () => {
    [database] = await Promise.all([createTestDatabase(), ensureDemoBuilt()]);
    demos = await startAdminDemos(
      {
        ...adminDemoEnv({
          redisUrl: inject('redisUrl'),
          databaseUrl: database.url,
          prefix: uniqueDemoPrefix('unblock'),
        }),
        DEMO_LOGIN_MAX_FAILURES: '1',
        DEMO_LOGIN_BLOCK_MS: '600000',
        DEMO_LOGIN_MAX_BLOCK_MS: '600000',
      },
      3,
    );
  }, 90_000);

  showDemoOutputOnFailure(() => demos);

  afterAll(async () => {
    await stopAllDemos();
    await database?.drop();
  });

  it(`lets the next request through on both other instances, which had it cached, within ${WITHIN_MS} ms`, async () => {
    const [a, b, c] = demos as [DemoProcess, DemoProcess, DemoProcess];
    // One failure fills the window and the next is refused, which blocks Harry and caches the
    // block on B (a window that turns over between the two just takes one more failure).
    let failed = await login(b.url, 'harry', 'wrong');
    for (let tries = 1; failed.status === 401 && tries < 5; tries++) {
      failed = await login(b.url, 'harry', 'wrong');
    }
    expect(failed.status, failed.text).toBe(429);
    // C learns of the block from Redis on his next attempt there, and caches it too.
    expect((await login(c.url, 'harry', 'wrong')).status).toBe(429);
    const identifier = encodeURIComponent('127.0.0.1/harry');

    // Counters reset in Redis: only the cached copies still refuse Harry on B and C.
    const reset = await adminCall(a.url, 'olga', 'DELETE', `/counters/login/${identifier}`);
    expect(reset.status, reset.text).toBe(200);
    expect((await login(a.url, 'harry', PASSWORD)).status).toBe(429);
    for (const cached of [b, c])
      expect((await login(cached.url, 'harry', PASSWORD)).status).toBe(429);

    const lifted = await adminCall(a.url, 'olga', 'DELETE', `/blocked/login/${identifier}`);
    expect(lifted.status, lifted.text).toBe(200);
    const liftedAt = performance.now();
    // One login at a time, B and C in turn. The login policy charges every attempt and refunds a
    // success once its response has gone out, so the next attempt waits for that refund to land
    // in Redis: before it, Harry's one allowed failure is still spent, and the attempt would be
    // refused and block him again.
    const refunded = async (): Promise<void> => {
      for (let polls = 0; polls < 100; polls++) {
        const now = await adminCall(a.url, 'victor', 'GET', `/inspect/login/${identifier}`);
        if (now.body.remaining === 1) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('the successful login was not refunded within a second');
    };
    const admitted = new Map<string, [Answer, number]>();
    while (admitted.size < 2 && performance.now() - liftedAt < 5_000) {
      for (const demo of [b, c]) {
        if (admitted.has(demo.url)) continue;
        const answer = await login(demo.url, 'harry', PASSWORD);
        if (answer.status === 429) continue;
        admitted.set(demo.url, [answer, performance.now() - liftedAt]);
        await refunded();
      }
    }
    const last = async (demo: DemoProcess): Promise<[Answer, number]> =>
      admitted.get(demo.url) ?? [await login(demo.url, 'harry', PASSWORD), Infinity];
    const [onB, waitedB] = await last(b);
    const [onC, waitedC] = await last(c);
    expect(onB.status, onB.text).toBe(200);
    expect(onC.status, onC.text).toBe(200);
    const waitedMs = Math.max(waitedB, waitedC);
    expect(waitedMs).toBeLessThanOrEqual(WITHIN_MS);
    await recordReliabilitySection(
      'unblock',
      [
        '## A lifted block on another instance',
        '',
        '| date | lifted through | admitted again on | after |',
        '|---|---|---|---|',
        `| ${new Date().toISOString().slice(0, 10)} | instance A's \`DELETE /blocked\` | instance B, which had the block cached | ${waitedB.toFixed(1)} ms |`,
        `| ${new Date().toISOString().slice(0, 10)} | instance A's \`DELETE /blocked\` | instance C, which had the block cached | ${waitedC.toFixed(1)} ms |`,
        '',
        'Method (`test/measured/admin/unblock.spec.ts`): three demo processes with the admin on one Redis.',
        "Harry's failed logins on B block him, and B caches the block; his next attempt on C meets the",
        'block in Redis, and C caches it too. His counters are reset through A, and B and C still refuse',
        "him from their caches; then A lifts the block, and the test repeats Harry's login on B and on C, in turn,",
        'until each passes, timing from the answer to the lifting. The test asserts a second for each;',
        '`test/measured/unblock/` does the same on a Redis Cluster.',
      ].join('\n'),
    );
  });
});
