// A gcra key written by a batch under Redis's clock expires at the end of its tat's cell of a grid
// that follows the policy's burst window, names the grid in its value's last character, and keeps
// its TTL while its tat stays in the cell (docs/algorithms.md, "A gcra key's expiry").
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceEngine, type PolicyInput } from '@sluice/nest/internals';
import { RedisStore } from '@sluice/nest/engine';
import {
  closeAll,
  connectCluster,
  connectRedis,
  filePrefixes,
} from '../../support/redis.clients.js';

const prefixes = filePrefixes('gcra-expiry');
let redis: Redis;
let cluster: Cluster;
beforeAll(() => {
  redis = connectRedis();
  cluster = connectCluster();
});
afterAll(async () => {
  await prefixes.removeAll(redis);
  await closeAll();
});

describe.each([
  ['one Redis', () => redis],
  ['a Redis Cluster', () => cluster],
] as const)('gcra keys on %s', (_, client) => {
  const engineWith = (prefix: string, policy: Omit<PolicyInput, 'name' | 'algorithm'>) =>
    new SluiceEngine({
      store: new RedisStore(client()),
      prefix,
      policies: [{ name: 'api', algorithm: 'gcra', key: 'user', ...policy }],
    });

  /** A batch of `calls` consumes of one identifier (one slot, so one FCALL on a Cluster too). */
  const batch = (engine: SluiceEngine, id: string, calls: number) =>
    Promise.all(Array.from({ length: calls }, () => engine.consume('api', id)));

  const stateOf = async (prefix: string, id: string) => {
    const key = `${prefix}:{user:${id}}:api:gc`;
    const [value, expiresAt] = await Promise.all([
      client().get(key),
      client().call('PEXPIRETIME', key) as Promise<number>,
    ]);
    return { key, value: value as string, tat: Number(value), expiresAt };
  };

  it.each([
    // burst window, then the grid: the largest power of ten ms at most a tenth of it
    ['10 h: 100 s, a space', { limit: 1000, periodMs: 36_000_000 }, 100_000, ' '],
    ['1 min: 1 s, a form feed', { limit: 600, periodMs: 60_000 }, 1_000, '\f'],
    ['1 s: 100 ms, a vertical tab', { limit: 100, periodMs: 1_000 }, 100, '\v'],
    ['a burst of 10 in 1 min: 1 s', { limit: 600, periodMs: 60_000, burst: 10 }, 100, '\v'],
    ['200 s: 10 s, a carriage return', { limit: 100, periodMs: 200_000 }, 10_000, '\r'],
    ['500 ms: 10 ms, a line feed', { limit: 10, periodMs: 500 }, 10, '\n'],
  ] as const)('a burst window of %s', async (_label, policy, gridMs, mark) => {
    const prefix = prefixes.next();
    const engine = engineWith(prefix, policy);
    // Half the burst, so the shortest state here lasts 250 ms, time enough to read it.
    const decisions = await batch(
      engine,
      'u',
      Math.max(2, ('burst' in policy ? policy.burst : policy.limit) / 2),
    );
    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    const { value, tat, expiresAt } = await stateOf(prefix, 'u');
    expect(value.slice(-1)).toBe(mark);
    // The key outlives its state to the end of the cell, and no further.
    expect(expiresAt).toBe((Math.floor(tat / 1000 / gridMs) + 1) * gridMs);
  });

  it('a burst window under 10 ms has no grid: the key expires with its state', async () => {
    const prefix = prefixes.next();
    // A burst of 9 in 9 ms: a state of at most 9 ms, which may be gone before it is read; a few
    // identifiers in turn until one is seen.
    const engine = engineWith(prefix, { limit: 9, periodMs: 9 });
    const seen: Array<{ value: string; tat: number; expiresAt: number }> = [];
    for (let i = 0; i < 20 && seen.length === 0; i++) {
      await batch(engine, `u${i}`, 9);
      const state = await stateOf(prefix, `u${i}`);
      if (state.value !== null && state.expiresAt !== -2) seen.push(state);
    }
    expect(seen.length).toBe(1);
    const [{ value, tat, expiresAt }] = seen as [(typeof seen)[number]];
    expect(value).toMatch(/^\d+$/);
    expect(expiresAt).toBe(Math.ceil(tat / 1000));
  });

  it('keeps its TTL while the tat stays in its cell, and moves it to the next cell', async () => {
    const prefix = prefixes.next();
    // An admission moves the tat 36 s, in cells of 100 s.
    const engine = engineWith(prefix, { limit: 1000, periodMs: 36_000_000 });
    await batch(engine, 'u', 2);
    let state = await stateOf(prefix, 'u');
    let cells = 0;
    let keeps = 0;
    for (let turn = 0; turn < 12; turn++) {
      await batch(engine, 'u', 2);
      const next = await stateOf(prefix, 'u');
      expect(next.tat - state.tat).toBe(72_000_000);
      const cell = Math.floor(next.tat / 100_000_000);
      if (cell === Math.floor(state.tat / 100_000_000)) {
        expect(next.expiresAt, `turn ${turn}`).toBe(state.expiresAt);
        keeps++;
      } else {
        expect(next.expiresAt, `turn ${turn}`).toBe((cell + 1) * 100_000);
        cells++;
      }
      state = next;
    }
    // 72 s a turn in cells of 100 s: both happen.
    expect(keeps).toBeGreaterThan(0);
    expect(cells).toBeGreaterThan(0);
  });

  it('a value without the mark (an exact expiry, as the previous release writes) is never kept', async () => {
    const prefix = prefixes.next();
    const engine = engineWith(prefix, { limit: 1000, periodMs: 36_000_000 });
    await batch(engine, 'u', 2);
    const { key, tat } = await stateOf(prefix, 'u');
    // Rewritten as the previous release leaves it: the number alone, expiring at the tat.
    await client().set(key, String(tat), 'PXAT', Math.ceil(tat / 1000));
    const decisions = await batch(engine, 'u', 2);
    expect(decisions.map((decision) => decision.remaining)).toEqual([997, 996]);
    const after = await stateOf(prefix, 'u');
    expect(after.value.slice(-1)).toBe(' ');
    expect(after.expiresAt).toBe((Math.floor(after.tat / 100_000_000) + 1) * 100_000);
  });
});
