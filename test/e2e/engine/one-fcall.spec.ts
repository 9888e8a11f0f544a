// Calls the RedisStore sends together in one FCALL: each string key is read and written once per
// FCALL, as MONITOR on the real server shows, and the calls decide as if made one at a time.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceEngine, type PolicyInput } from '@sluice/nest/internals';
import { RedisStore, type RedisStoreOptions } from '@sluice/nest/engine';
import { closeAll, connectRedis, filePrefixes } from '../../support/redis.clients.js';
import { startRedisServer, type RedisServer } from '../../support/redis-servers.js';

const prefixes = filePrefixes('one-fcall');
// A server of this file's own: MONITOR sees every command, and it must not share a connection's
// queue with, or slow down, the files running beside it.
let server: RedisServer;
let redis: Redis;
let monitor: Redis;
let monitored: string[][];

beforeAll(async () => {
  server = await startRedisServer();
  redis = connectRedis(server.url);
  monitor = await connectRedis(server.url).monitor();
  monitored = [];
  monitor.on('monitor', (_time: string, args: string[]) => monitored.push(args));
});
afterAll(async () => {
  monitor?.disconnect();
  await closeAll();
  await server?.stop();
});

function engineWith(prefix: string, policies: PolicyInput[], options: RedisStoreOptions = {}) {
  return new SluiceEngine({ store: new RedisStore(redis, options), prefix, policies });
}

/** The commands MONITOR has shown on keys under `prefix`, once `done` holds for them. */
async function commandsOn(prefix: string, done: (commands: string[][]) => boolean) {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const commands = monitored.filter((args) => args.slice(1).some((arg) => arg.includes(prefix)));
    if (done(commands) || Date.now() > deadline) return commands;
    // Polls what MONITOR saw: waits for I/O, not for time to pass.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const named = (commands: string[][], name: string) =>
  commands.filter((args) => args[0]?.toUpperCase() === name);

describe('calls on one identifier sent in one FCALL', () => {
  it.each(['gcra', 'token-bucket', 'fixed-window'] as const)(
    '%s: 40 at once admit exactly 30, with one MGET and one SET of the state',
    async (algorithm) => {
      const prefix = prefixes.next();
      const engine = engineWith(prefix, [
        { name: 'api', algorithm, limit: 30, periodMs: 3_600_000 },
      ]);
      await engine.consume('api', 'warm-up'); // the library is loaded before the calls measured

      const decisions = await Promise.all(
        Array.from({ length: 40 }, () => engine.consume('api', 'busy')),
      );

      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(30);
      expect(decisions.slice(30).every((decision) => decision.reason === 'limit')).toBe(true);
      expect(decisions.map((decision) => decision.remaining).slice(0, 30)).toEqual(
        Array.from({ length: 30 }, (_, index) => 29 - index),
      );
      const busyKey = `${prefix}:{user:busy}`;
      const commands = await commandsOn(busyKey, (seen) => named(seen, 'SET').length > 0);
      expect(named(commands, 'FCALL')).toHaveLength(1);
      expect(named(commands, 'MGET')).toHaveLength(1);
      expect(named(commands, 'SET')).toHaveLength(1);
      // What was written is what the next call reads: nothing left.
      expect(await engine.peek('api', 'busy')).toMatchObject({ allowed: false, remaining: 0 });
    },
  );

  it.each([
    ['gcra', 'gc'],
    ['fixed-window', 'fw'],
  ] as const)(
    '%s: a turn on 30 identifiers writes each once, to expire exactly when its state ends',
    async (algorithm, code) => {
      const prefix = prefixes.next();
      const periodMs = 3_600_000;
      const engine = engineWith(prefix, [{ name: 'api', algorithm, limit: 5, periodMs }]);
      await engine.consume('api', 'warm-up');
      const ids = Array.from({ length: 30 }, (_, i) => `u${i}`);
      // Two turns, the first five identifiers twice in each: 4 of their 5 used, 2 of the others'.
      for (let turn = 0; turn < 2; turn++) {
        const decisions = await Promise.all(
          [...ids, ...ids.slice(0, 5)].map((id) => engine.consume('api', id)),
        );
        expect(decisions.every((decision) => decision.allowed)).toBe(true);
      }
      expect((await engine.peek('api', 'u0')).remaining).toBe(1);
      expect((await engine.peek('api', 'u29')).remaining).toBe(3);

      for (const id of ids) {
        const key = `${prefix}:{user:${id}}:api:${code}`;
        const value = (await redis.get(key)) as string;
        const expiresAt = Number(await redis.call('PEXPIRETIME', key));
        // The state's end, in Redis's ms: for gcra the end of its theoretical arrival time's
        // 100 s cell (a tenth of the hour's burst window, marked by the value's last space:
        // docs/algorithms.md, "A gcra key's expiry"), fixed-window's window end.
        const [first] = value.split(' ').map(Number) as [number];
        expect(expiresAt, key).toBe(
          algorithm === 'gcra'
            ? (Math.floor(first / 100_000_000) + 1) * 100_000
            : (first + 1) * periodMs,
        );
        if (algorithm === 'gcra') expect(value, key).toMatch(/^\d+ $/);
        const writes = named(
          await commandsOn(key, (seen) => named(seen, 'SET').length >= 2),
          'SET',
        );
        expect(writes, key).toHaveLength(2);
        // A window's second write keeps the TTL its first one set.
        if (algorithm === 'fixed-window') expect(writes[1]?.slice(3), key).toEqual(['KEEPTTL']);
      }
    },
  );

  it('batch.maxCalls 10: 25 calls at once go in 3 FCALLs, and admit exactly 20', async () => {
    const prefix = prefixes.next();
    const engine = engineWith(
      prefix,
      [{ name: 'api', algorithm: 'gcra', limit: 20, periodMs: 3_600_000 }],
      { batch: { maxCalls: 10 } },
    );
    await engine.consume('api', 'warm-up');

    const decisions = await Promise.all(
      Array.from({ length: 25 }, () => engine.consume('api', 'capped')),
    );

    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20);
    const key = `${prefix}:{user:capped}`;
    const commands = await commandsOn(key, (seen) => named(seen, 'FCALL').length >= 3);
    expect(named(commands, 'FCALL').map((args) => args[2])).toEqual(['10', '10', '5']);
  });

  it('batch.maxCalls 400: a turn on 300 identifiers reads their 600 keys and decides each', async () => {
    const prefix = prefixes.next();
    const engine = engineWith(
      prefix,
      [{ name: 'api', algorithm: 'gcra', limit: 1, periodMs: 3_600_000 }],
      { batch: { maxCalls: 400 } },
    );
    await engine.consume('api', 'warm-up');
    const ids = Array.from({ length: 300 }, (_, i) => `many${i}`);
    const turn = () => Promise.all(ids.map((id) => engine.consume('api', id)));

    expect((await turn()).every((decision) => decision.allowed)).toBe(true);
    // Each identifier's one request is used: every state read, the last ones past the 200th key.
    expect((await turn()).map((decision) => decision.reason)).toEqual(ids.map(() => 'limit'));
    const commands = await commandsOn(
      `${prefix}:{user:many299}`,
      (seen) => named(seen, 'MGET').length >= 2,
    );
    expect(named(commands, 'FCALL').map((args) => args[2])).toEqual(['300', '300']);
    // Its keys are the 599th and 600th read: in each turn's third MGET, of keys 401 to 600.
    expect(named(commands, 'MGET').map((args) => args.length - 1)).toEqual([200, 200]);
  });

  it.each([
    { algorithm: 'gcra', path: 'the lean batch' },
    { algorithm: 'sliding-log', path: 'the general path' },
  ] as const)(
    '$algorithm: a turn whose calls share their word sends it once, and $path decides each call',
    async ({ algorithm }) => {
      const prefix = prefixes.next();
      const engine = engineWith(prefix, [
        { name: 'api', algorithm, limit: 2, periodMs: 3_600_000 },
      ]);
      await engine.consume('api', 'warm-up');
      const ids = ['w1', 'w2', 'w3', 'w4', 'w5'];
      const turn = () => Promise.all(ids.map((id) => engine.consume('api', id)));

      expect((await turn()).map((decision) => decision.remaining)).toEqual([1, 1, 1, 1, 1]);
      expect((await turn()).map((decision) => decision.remaining)).toEqual([0, 0, 0, 0, 0]);
      expect((await turn()).map((decision) => decision.reason)).toEqual(ids.map(() => 'limit'));
      const commands = await commandsOn(
        `${prefix}:{user:w5}`,
        (seen) => named(seen, 'FCALL').length >= 3,
      );
      // FCALL, its name, 5 keys, the keys, 1 spec, the spec, then one word for the five calls.
      expect(named(commands, 'FCALL').map((args) => [args[2], args.length, args.at(-1)])).toEqual(
        [1, 2, 3].map(() => ['5', 11, 'consume - - 1']),
      );
    },
  );

  it('refuses batch limits it cannot keep, naming the field', () => {
    expect(() => new RedisStore(redis, { batch: { maxCalls: 0 } })).toThrow(
      'RedisStore options.batch.maxCalls: must be an integer from 1 to 1000, got 0',
    );
    expect(() => new RedisStore(redis, { batch: { holdMs: -1 } })).toThrow(
      'RedisStore options.batch.holdMs: must be an integer from 0 to 100, got -1',
    );
  });

  it('a policy with a shadow candidate costs no extra round trip: one FCALL, as without', async () => {
    const prefix = prefixes.next();
    const rules = { algorithm: 'fixed-window', periodMs: 3_600_000 } as const;
    const engine = engineWith(prefix, [
      {
        name: 'api',
        ...rules,
        limit: 30,
        candidate: {
          rules: { ...rules, limit: 20 },
          expiresAt: Date.now() + 3_600_000,
          proposedBy: 'olga',
          proposedAt: new Date().toISOString(),
          baseVersion: 0,
          samplePercent: 100, // every identifier: the candidate is decided on each request
        },
      },
    ]);
    await engine.consume('api', 'warm-up');

    const decisions = await Promise.all(
      Array.from({ length: 25 }, () => engine.consume('api', 'shadowed')),
    );

    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    const refusedByCandidate = decisions.filter((d) => d.candidates?.[0]?.reason === 'limit');
    expect(refusedByCandidate).toHaveLength(5);
    const key = `${prefix}:{user:shadowed}`;
    // One FCALL carries the turn; inside it the live state and the candidate's own, each on its
    // own key, are read once (one MGET of both penalties and both states) and written once.
    const commands = await commandsOn(key, (seen) => named(seen, 'SET').length >= 2);
    expect(named(commands, 'FCALL')).toHaveLength(1);
    const written = named(commands, 'SET').map((args) => args[1]);
    expect(new Set(written).size).toBe(2);
    const reads = named(commands, 'MGET');
    expect(reads).toHaveLength(1);
    expect(new Set(reads[0]?.slice(1))).toEqual(
      new Set([...written, `${key}:api:p`, `${key}:api~c:p`]),
    );
  });

  it('an FCALL that fails part-way writes none of its calls’ states', async () => {
    const prefix = prefixes.next();
    const engine = engineWith(prefix, [
      { name: 'api', algorithm: 'gcra', limit: 30, periodMs: 3_600_000 },
      { name: 'log', algorithm: 'sliding-log', limit: 30, periodMs: 3_600_000 },
    ]);
    await engine.consume('api', 'warm-up');
    // Someone else's string where the sliding log keeps its sorted set: ZADD fails in the FCALL.
    await redis.set(`${prefix}:{user:broken}:log:sl`, 'not a sorted set');

    const [first, broken] = await Promise.allSettled([
      engine.consume('api', 'first'),
      engine.consume('log', 'broken'),
    ]);

    expect(broken.status).toBe('rejected');
    expect(first.status).toBe('rejected');
    const after = await engine.peek('api', 'first');
    expect(after).toMatchObject({ allowed: true, remaining: 30 });
    expect(await redis.exists(`${prefix}:{user:first}:api:gc`)).toBe(0);
  });
});
