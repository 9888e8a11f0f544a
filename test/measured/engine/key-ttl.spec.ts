// TTLs (docs/algorithms.md): every key's TTL ends no later than the moment its state would equal a
// fresh key's (a gcra key a batch wrote: the end of that moment's grid cell), and no sequence of
// calls leaves a key without one, sub-second periods included.
// A seeded fuzz run against the single server, on Redis's own clock (no injected clock). Set
// SLUICE_FUZZ_SEED to replay a run.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  SluiceEngine,
  type AlgorithmName,
  type Policy,
  type PolicyInput,
} from '@sluice/nest/internals';
import { ALGORITHM_CODES } from '@sluice/nest/src/algorithms/algorithm.types.js';
import { seededRandom } from '@sluice/nest/src/testing/seeded-random.fixture.js';
import { RedisStore } from '@sluice/nest/engine';
import { closeAll, connectRedis, filePrefixes } from '../../support/redis.clients.js';

const DAY_MS = 86_400_000;
const PERIODS_MS = [1, 2, 3, 5, 10, 25, 100, 500, 1000, 3000, 60_000, 3_600_000, DAY_MS];
const IDENTIFIERS = ['u0', 'u1', 'u2', 'u3', 'u4'];
const ROUNDS = 8;
const OPS_PER_ROUND = 500;

const prefixes = filePrefixes('ttl');
let redis: Redis;
beforeAll(() => {
  redis = connectRedis();
});
afterAll(async () => {
  await prefixes.removeAll(redis);
  await closeAll();
});

interface Rng {
  next: () => number;
  int: (min: number, max: number) => number;
  pick: <T>(items: readonly T[]) => T;
  chance: (p: number) => boolean;
}

function rng(seed: number): Rng {
  const next = seededRandom(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)] as (typeof items)[number],
    chance: (p) => next() < p,
  };
}

function randomPolicy(r: Rng, algorithm: AlgorithmName, index: number): PolicyInput {
  // Each algorithm gets one long period (its keys are sure to be there to inspect) and one
  // sub-30 ms period (its keys come and go during the run); the others are drawn at random.
  const periodMs =
    index === 0
      ? r.pick(PERIODS_MS.filter((ms) => ms >= 60_000))
      : index === 1
        ? r.pick(PERIODS_MS.filter((ms) => ms < 30))
        : r.pick(PERIODS_MS);
  const limit = Math.min(periodMs * 1000, r.pick([1, 2, 3, 5, 7, 10, 50, 300]));
  const input: PolicyInput = {
    name: `${ALGORITHM_CODES[algorithm]}${index}`,
    algorithm,
    limit,
    periodMs,
    key: 'user',
  };
  const bucket =
    algorithm === 'token-bucket' || algorithm === 'leaky-bucket' || algorithm === 'gcra';
  if (bucket && r.chance(0.5)) input.burst = r.int(1, 20);
  if (algorithm === 'sliding-window' && r.chance(0.7))
    input.segments = r.pick([2, 4, 5, 8, 10, 20]);
  if (algorithm === 'leaky-bucket' && r.chance(0.5))
    input.maxDelayMs = r.pick([0, 1, periodMs, 2 * periodMs]);
  const room = bucket ? (input.burst ?? limit) : limit;
  if (room >= 2 && r.chance(0.2)) input.cost = 2;
  if (r.chance(0.5)) {
    const blockMs = r.pick([1, 3, 50, 2000, 3_600_000]);
    input.penalty = {
      afterViolations: r.int(1, 3),
      blockMs,
      escalation: r.pick([1, 1.5, 2, 3]),
      ...(r.chance(0.5) ? { maxBlockMs: blockMs * r.pick([1, 2, 10]) } : {}),
      ...(r.chance(0.7) ? { forgetAfterMs: r.pick([0, 1, 20, 5000, DAY_MS]) } : {}),
    };
  }
  if (r.chance(0.1)) input.mode = 'shadow';
  return input;
}

const ceilDiv = (a: number, b: number) => Math.ceil(a / b);
/** The grid of a marked gcra value, µs, by its last character. */
const GCRA_GRID_OF_MARK: Record<string, number> = {
  '\t': 1_000,
  '\n': 10_000,
  '\v': 100_000,
  '\f': 1_000_000,
  '\r': 10_000_000,
  ' ': 100_000_000,
};
/** gcra keys inspected with a grid's mark. */
let markedGcra = 0;
const mod = (a: number, b: number) => ((a % b) + b) % b;

interface KeyReport {
  key: string;
  kind: string;
  pttl: number;
  /** When the key expires, epoch ms (PEXPIRETIME). */
  expiresAt: number;
  /** When the key's state equals a fresh key's, epoch µs, worked out from its content. */
  freshAt: number;
}

/**
 * Every key under the prefix with its PTTL, its absolute expiry and its content, read in one
 * MULTI. Comparing the absolute expiry with the absolute time the content becomes fresh keeps the
 * check free of the time it takes to run.
 */
async function inspect(prefix: string, policies: Map<string, Policy>): Promise<KeyReport[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  const parsed = [...new Set(keys)].map((key) => {
    const match = /^[^{]*\{[^}]*\}:([^:]+):([a-z]+)$/.exec(key);
    if (!match) throw new Error(`unexpected key ${key}`);
    const policy = policies.get(match[1] as string);
    if (!policy) throw new Error(`key ${key} names no known policy`);
    const part = match[2] === 'p' ? 'p' : 's';
    if (part === 's') expect(match[2], key).toBe(ALGORITHM_CODES[policy.algorithm]);
    return { key, policy, part };
  });

  const multi = redis.multi();
  for (const { key, policy, part } of parsed) {
    multi.pttl(key).call('PEXPIRETIME', key).type(key);
    if (
      part === 's' &&
      (policy.algorithm === 'sliding-log' || policy.algorithm === 'concurrency')
    ) {
      multi.zrange(key, -1, -1, 'WITHSCORES');
    } else {
      multi.get(key);
    }
  }
  const replies = ((await multi.exec()) ?? []).map(([error, value]) => {
    if (error) throw error;
    return value;
  });

  const reports: KeyReport[] = [];
  parsed.forEach(({ key, policy, part }, index) => {
    const [pttl, expiresAt, type, content] = replies.slice(index * 4, index * 4 + 4) as [
      number,
      number,
      string,
      unknown,
    ];
    if (pttl === -2 || type === 'none') return; // expired since SCAN
    const period = policy.periodMs * 1000;
    const kind = part === 'p' ? 'penalty' : policy.algorithm;
    // A state that is already fresh should not be stored at all: freshAt 0.
    let freshAt = 0;
    const words = typeof content === 'string' ? content.split(' ') : [];
    const numbers = words.map(Number);
    if (part === 'p') {
      expect(type, key).toBe('string');
      const [u, o, v, f] = numbers as [number, number, number, number];
      const forgetAfter = (policy.penalty?.forgetAfterMs ?? 0) * 1000;
      freshAt = u;
      if (o > 0) freshAt = Math.max(freshAt, u + forgetAfter);
      if (v > 0) freshAt = Math.max(freshAt, f + period);
    } else if (policy.algorithm === 'fixed-window') {
      expect(type, key).toBe('string');
      const [window, count, granted = 0] = numbers as [number, number, number?];
      if (count > 0 || granted !== 0) freshAt = (window + 1) * period;
    } else if (policy.algorithm === 'sliding-window') {
      expect(type, key).toBe('string');
      const segments = policy.segments as number;
      const latest = numbers[0] as number;
      let newest: number | undefined;
      for (const [slot, count] of words.slice(1).map((word) => word.split(':').map(Number))) {
        if (!((count as number) > 0)) continue;
        const segment = latest - mod(latest - (slot as number), segments);
        newest = Math.max(newest ?? segment, segment);
      }
      if (newest !== undefined) freshAt = (newest + segments) * (period / segments);
    } else if (policy.algorithm === 'sliding-log') {
      expect(type, key).toBe('zset');
      freshAt = Number((content as [string, string])[1]) + period;
    } else if (policy.algorithm === 'concurrency') {
      // The set lives until its newest lease lapses.
      expect(type, key).toBe('zset');
      freshAt = Number((content as [string, string])[1]);
    } else if (policy.algorithm === 'token-bucket') {
      expect(type, key).toBe('string');
      const [tokens, stamp] = numbers as [number, number];
      const interval = Math.ceil(period / policy.limit); // rate-params: rounded up
      const burst = policy.burst ?? policy.limit;
      freshAt = stamp + (burst - tokens) * interval;
    } else {
      expect(type, key).toBe('string'); // gcra's TAT, leaky-bucket's drain time
      freshAt = numbers[0] as number;
      // A gcra key a batch wrote lives to the end of its TAT's cell of the grid its value's last
      // character names (docs/algorithms.md, "A gcra key's expiry").
      const grid = GCRA_GRID_OF_MARK[(content as string).slice(-1)];
      if (policy.algorithm === 'gcra' && grid !== undefined) {
        freshAt = (Math.floor(freshAt / grid) + 1) * grid;
        markedGcra++;
      }
    }
    reports.push({ key, kind, pttl, expiresAt, freshAt });
  });
  return reports;
}

/**
 * How far past its state a key may live: the script sets absolute expiries (PEXPIREAT, SET PXAT)
 * from the Redis TIME it read, rounded up to whole ms, so expiry lands at ceil(freshAt / 1000).
 */
function problemsIn(reports: KeyReport[]): string[] {
  const problems: string[] = [];
  for (const { key, pttl, expiresAt, freshAt } of reports) {
    const freshAtMs = ceilDiv(freshAt, 1000);
    if (pttl === -1 || expiresAt === -1) {
      problems.push(`${key}: no TTL (immortal), fresh at ${freshAt} µs`);
    } else if (expiresAt > freshAtMs) {
      problems.push(
        `${key}: expires at ${expiresAt} ms, ${expiresAt - freshAt / 1000} ms after its state is fresh (${freshAt} µs); PTTL ${pttl}`,
      );
    } else if (expiresAt < freshAtMs - 1) {
      // a TTL must not cut the state short either: that would forget admissions or offences
      problems.push(
        `${key}: expires at ${expiresAt} ms, ${freshAt / 1000 - expiresAt} ms before its state is fresh (${freshAt} µs)`,
      );
    }
  }
  return problems;
}

describe('no immortal keys, no key outlives its state', () => {
  it('fuzz: six algorithms, 1 ms to 1 day, costs, refunds, blocks, resets, penalties', async () => {
    const seed = Number(process.env.SLUICE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const r = rng(seed);
    const prefix = prefixes.next();
    const engine = new SluiceEngine({ store: new RedisStore(redis), prefix });
    const inputs = ALGORITHMS.flatMap((algorithm) =>
      [0, 1, 2, 3].map((i) => randomPolicy(r, algorithm, i)),
    );
    for (const input of inputs) engine.policies.set(input);
    const policies = new Map(engine.policies.all().map((policy) => [policy.name, policy]));
    const names = [...policies.keys()];
    const capacityOf = (policy: Policy) =>
      ['fixed-window', 'sliding-log', 'sliding-window'].includes(policy.algorithm)
        ? policy.limit
        : (policy.burst ?? policy.limit);

    const log: string[] = [];
    const problems: string[] = [];
    const seen = new Map<string, number>();
    const context = () =>
      `seed ${seed} (SLUICE_FUZZ_SEED=${seed} to replay)\npolicies: ${JSON.stringify(inputs)}\nlast ops:\n${log.slice(-30).join('\n')}`;

    const operation = async (): Promise<void> => {
      const identifier = r.pick(IDENTIFIERS);
      const roll = r.next();
      if (roll < 0.5) {
        const chosen = [...new Set(Array.from({ length: r.int(1, 4) }, () => r.pick(names)))];
        const room = Math.min(...chosen.map((name) => capacityOf(policies.get(name) as Policy)));
        const cost = r.chance(0.3) ? r.int(1, room) : undefined;
        const op = r.chance(0.85) ? 'consume' : 'peek';
        log.push(`${op} ${chosen.join(',')} ${identifier} cost=${cost}`);
        await engine[op](chosen, identifier, cost === undefined ? {} : { cost });
      } else if (roll < 0.65) {
        const name = r.pick(names);
        const cost = r.chance(0.5) ? r.int(1, capacityOf(policies.get(name) as Policy)) : undefined;
        log.push(`refund ${name} ${identifier} cost=${cost}`);
        await engine.refund(name, identifier, cost === undefined ? {} : { cost });
      } else if (roll < 0.72) {
        const chosen = [...new Set([r.pick(names), r.pick(names)])];
        log.push(`reset ${chosen.join(',')} ${identifier}`);
        await engine.reset(chosen, identifier);
      } else if (roll < 0.85) {
        const name = r.pick(names);
        const durationMs = r.pick([1, 2, 7, 100, 1500, 60_000, DAY_MS]);
        log.push(`block ${name} ${identifier} ${durationMs}`);
        await engine.block(name, identifier, durationMs);
      } else {
        const name = r.pick(names);
        log.push(`unblock ${name} ${identifier}`);
        await engine.unblock(name, identifier);
      }
    };

    const started = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < OPS_PER_ROUND; i++) {
        if (r.chance(0.1)) {
          // a few at once, so calls interleave on the connection
          await Promise.all(Array.from({ length: r.int(2, 6) }, () => operation()));
        } else if (r.chance(0.05)) {
          // a busy route's turn: consumes of one gcra policy, decided as one batch
          const name = r.pick(names.filter((n) => policies.get(n)?.algorithm === 'gcra'));
          const ids = Array.from({ length: r.int(2, 6) }, () => r.pick(IDENTIFIERS));
          log.push(`batch ${name} ${ids.join(',')}`);
          await Promise.all(ids.map((id) => engine.consume(name, id)));
        } else {
          await operation();
        }
        if (r.chance(0.02)) await sleep(r.int(1, 4));
      }
      const reports = await inspect(prefix, policies);
      for (const report of reports) seen.set(report.kind, (seen.get(report.kind) ?? 0) + 1);
      problems.push(...problemsIn(reports).map((p) => `round ${round}: ${p}`));
      if (problems.length > 0) break;
      // let the shortest periods lapse between rounds: keys must then vanish, not linger
      await sleep(r.int(0, 15));
    }
    // A final look after a pause that outlasts every sub-10 ms state.
    await sleep(30);
    const last = await inspect(prefix, policies);
    problems.push(...problemsIn(last).map((p) => `after the run: ${p}`));

    expect(problems, context()).toEqual([]);
    // The run must actually have produced keys of every kind to check.
    for (const kind of [...ALGORITHMS, 'penalty']) {
      expect(seen.get(kind) ?? 0, `${kind} keys inspected (${context()})`).toBeGreaterThan(0);
    }
    expect(markedGcra, `gcra keys on a grid inspected (${context()})`).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    await engine.reset(names, 'u0');
  });

  it('sub-millisecond states: a 1 ms period leaves nothing behind once it has passed', async () => {
    const prefix = prefixes.next();
    const engine = new SluiceEngine({
      store: new RedisStore(redis),
      prefix,
      policies: ALGORITHMS.map((algorithm) => ({
        name: ALGORITHM_CODES[algorithm],
        algorithm,
        limit: 3,
        periodMs: 1,
        penalty: { afterViolations: 1, blockMs: 1, forgetAfterMs: 0 },
      })),
    });
    const policies = new Map(engine.policies.all().map((policy) => [policy.name, policy]));
    const names = [...policies.keys()];
    for (let i = 0; i < 20; i++) {
      await Promise.all(names.map((name) => engine.consume(name, 'burst')));
      await engine.refund(names.slice(0, 3), 'burst');
    }
    await engine.block('gc', 'burst', 1);
    expect(problemsIn(await inspect(prefix, policies))).toEqual([]);
    await sleep(10);
    const left = await inspect(prefix, policies);
    expect(left.map((report) => `${report.key} pttl=${report.pttl}`)).toEqual([]);
  });

  it('long states: a day-long period with a week-long penalty memory', async () => {
    const prefix = prefixes.next();
    const engine = new SluiceEngine({
      store: new RedisStore(redis),
      prefix,
      policies: ALGORITHMS.map((algorithm) => ({
        name: ALGORITHM_CODES[algorithm],
        algorithm,
        limit: 2,
        periodMs: DAY_MS,
        penalty: { afterViolations: 1, blockMs: 1000, escalation: 2 },
      })),
    });
    const policies = new Map(engine.policies.all().map((policy) => [policy.name, policy]));
    const names = [...policies.keys()];
    for (let i = 0; i < 4; i++) for (const name of names) await engine.consume(name, 'slow');
    await engine.refund(['fw', 'sl', 'sw'], 'slow');
    await engine.unblock('tb', 'slow');
    const reports = await inspect(prefix, policies);
    expect(problemsIn(reports)).toEqual([]);
    // every policy has state and a penalty (4 requests against a limit of 2, or blocked)
    expect(reports.filter((report) => report.kind === 'penalty')).toHaveLength(names.length);
    const week = 7 * DAY_MS;
    for (const report of reports.filter((r) => r.kind === 'penalty')) {
      expect(report.pttl).toBeGreaterThan(week - 60_000);
      expect(report.pttl).toBeLessThanOrEqual(week + 2000);
    }
    await engine.reset(names, 'slow');
    for (const name of names) await engine.unblock(name, 'slow');
  });
});
