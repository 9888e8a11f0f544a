// POST /login counts failed attempts; running out of them blocks the address and username, for
// longer after each new offence. Blocks live in Redis, and each instance remembers the ones it saw.
// Measured: demo processes decide by Redis' own clock, which no test moves, so blocks of a few
// hundred milliseconds are waited out.
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, connectRedis } from '../support/redis.clients.js';
import { startRedisServer, type RedisServer } from '../support/redis-servers.js';
import {
  ensureDemoBuilt,
  startDemo,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoEnv,
  type DemoProcess,
} from '../system/support/demo-process.js';
import { demoPolicies, send, type Answer } from '../system/support/http.js';

const PASSWORD = 'correct horse';
/** Bounds the rounds of failures: a round split by the end of a window lets them all pass. */
const MAX_ROUNDS = 10;

const login = (url: string, username: string, password: string): Promise<Answer> =>
  send(`${url}/login`, { json: { username, password } });

const retryAfterMs = (answer: Answer): number => Number(answer.body.retryAfterMs);

/**
 * Fails to log in, one attempt more than the limit allows and all at once (so they land in one
 * window however slow the machine is), until some are refused: the refusal that starts a block
 * waits the whole block, the others at most as long. Returns the one with the longest wait.
 * Called only once any earlier block has ended, so every refusal belongs to a new block.
 */
async function failUntilBlockStarts(url: string, username: string): Promise<Answer> {
  const { limit } = (await demoPolicies(url)).login!;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const answers = await Promise.all(
      Array.from({ length: limit + 1 }, () => login(url, username, 'wrong password')),
    );
    for (const answer of answers) expect([401, 429]).toContain(answer.status);
    const refused = answers.filter((answer) => answer.status === 429);
    if (refused.length > 0) {
      return refused.reduce((longest, answer) =>
        retryAfterMs(answer) > retryAfterMs(longest) ? answer : longest,
      );
    }
  }
  throw new Error(`no login was refused in ${MAX_ROUNDS} rounds of failures`);
}

/** Calls of FCALL (one per decision the store makes) the server has answered so far. */
async function fcallCount(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return Number(/^cmdstat_fcall:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
}

describe('failed logins', () => {
  // A Redis of this file's own: the FCALL count below must not include other files' traffic.
  let redis: RedisServer;

  beforeAll(async () => {
    [redis] = await Promise.all([startRedisServer(), ensureDemoBuilt()]);
  });

  afterAll(async () => {
    await stopAllDemos();
    await closeAll();
    await redis?.stop();
  });

  describe('with short blocks', () => {
    let demo: DemoProcess;

    beforeAll(async () => {
      demo = await startDemo({
        REDIS_URL: redis.url,
        SLUICE_PREFIX: uniqueDemoPrefix('penalties'),
        DEMO_LOGIN_MAX_FAILURES: '3',
        // No longer than a block, so every 429 that starts a block says how long the block is
        // (the wait for the window to end would be the longer otherwise).
        DEMO_LOGIN_WINDOW_MS: '300',
        DEMO_LOGIN_BLOCK_MS: '300',
        DEMO_LOGIN_MAX_BLOCK_MS: '1200',
      });
    });

    afterAll(() => demo.stop());

    it('blocks for blockMs, then twice as long at each offence, up to maxBlockMs', async () => {
      const { penalty } = (await demoPolicies(demo.url)).login!;
      const expected = [1, 2, 3, 4].map((offence) =>
        Math.min(penalty!.blockMs * penalty!.escalation ** (offence - 1), penalty!.maxBlockMs),
      );

      const blocks: number[] = [];
      for (let offence = 1; offence <= expected.length; offence++) {
        const started = await failUntilBlockStarts(demo.url, 'Neville');
        expect(started.body.policy).toBe('login');
        expect(started.headers['retry-after']).toBe(
          String(Math.ceil(retryAfterMs(started) / 1000)),
        );
        blocks.push(retryAfterMs(started));
        if (offence < expected.length) await sleep(retryAfterMs(started));
      }

      expect(blocks).toEqual(expected);
    });

    it('refuses the right password too while the block lasts, and only for that username', async () => {
      const started = await failUntilBlockStarts(demo.url, 'Dean');

      const rightPassword = await login(demo.url, 'dean', PASSWORD);
      expect(rightPassword.status).toBe(429);
      expect(rightPassword.body.message).toMatch(/^Blocked by policy "login"/);
      expect(retryAfterMs(rightPassword)).toBeLessThanOrEqual(retryAfterMs(started));
      expect((await login(demo.url, 'Seamus', PASSWORD)).status).toBe(200);
    });
  });

  describe('with a block longer than a restart', () => {
    const env: DemoEnv = {
      SLUICE_PREFIX: uniqueDemoPrefix('restart'),
      DEMO_LOGIN_MAX_FAILURES: '3',
      DEMO_LOGIN_WINDOW_MS: '10000',
      DEMO_LOGIN_BLOCK_MS: '30000',
    };
    let blockMs: number;
    let blockStartedWithin: [from: number, to: number];
    let restarted: DemoProcess;

    beforeAll(async () => {
      const first = await startDemo({ ...env, REDIS_URL: redis.url });
      blockMs = (await demoPolicies(first.url)).login!.penalty!.blockMs;
      const sentAt = Date.now();
      const started = await failUntilBlockStarts(first.url, 'Goyle');
      blockStartedWithin = [sentAt, Date.now()];
      expect(retryAfterMs(started)).toBe(blockMs);
      await first.stop('SIGKILL');
      restarted = await startDemo({ ...env, REDIS_URL: redis.url });
    });

    it('still refuses on a new instance, with the time left of the same block', async () => {
      const sentAt = Date.now();
      const answer = await login(restarted.url, 'Goyle', PASSWORD);
      const receivedAt = Date.now();

      expect(answer.status).toBe(429);
      expect(answer.body.message).toMatch(/^Blocked by policy "login"/);
      const left = retryAfterMs(answer);
      // The block ends blockMs after it started; the 1 ms is for rounding each figure up.
      expect(left).toBeGreaterThanOrEqual(blockStartedWithin[0] + blockMs - receivedAt);
      expect(left).toBeLessThanOrEqual(blockStartedWithin[1] + blockMs - sentAt + 1);
      expect(answer.headers['retry-after']).toBe(String(Math.ceil(left / 1000)));
    });

    it('answers a blocked client from memory once it has seen the block: no Redis call', async () => {
      const client = connectRedis(redis.url);
      // Whether or not an earlier request brought the block into this instance's memory, this does.
      expect((await login(restarted.url, 'Goyle', PASSWORD)).status).toBe(429);
      const before = await fcallCount(client);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => login(restarted.url, 'Goyle', PASSWORD)),
      );
      const after = await fcallCount(client);

      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(429));
      expect(after - before).toBe(0);
      // The count does move with a decision the store makes.
      expect((await login(restarted.url, 'Crabbe', 'wrong password')).status).toBe(401);
      expect((await fcallCount(client)) - after).toBe(1);
    });
  });
});
