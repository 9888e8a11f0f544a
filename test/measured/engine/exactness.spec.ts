import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { toIdentifier, type AlgorithmName, type PolicyInput } from '@sluice/nest/internals';
import { ALGORITHM_CODES } from '@sluice/nest/src/algorithms/algorithm.types.js';
import { identifierKey } from '@sluice/nest/src/keys/key.builder.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { ChildWorker, stopAll } from '../../support/engine/child-worker.js';
import type {
  HammerResult,
  HammerRun,
  HammerTarget,
  IdentifierCounts,
} from '../../support/engine/hammer.worker.js';

/**
 * Exactness under contention: 4 processes × 100 concurrent callers consume one identifier at once.
 * Every policy is set so that no window boundary or refill falls inside the run, so the number
 * admitted is fixed in advance and any race (a read-then-write outside the script, a counter
 * charged twice or not at all) shows as a different count.
 */

const WORKERS = 4;
const CONCURRENCY = 100;
const SINGLE_RUN_MS = 5_000;
const CLUSTER_RUN_MS = 3_000;
const LIMIT = 3_000;
const DAY_MS = 86_400_000;
const RUN_TIMEOUT_MS = 60_000;
const HAMMER = new URL('../../support/engine/hammer.worker.ts', import.meta.url);

interface Totals {
  byIdentifier: Map<string, IdentifierCounts>;
  calls: number;
  admitted: number;
  rejected: number;
  errors: number;
  errorSamples: string[];
  admittedPerWorker: number[];
  remaining: number[];
  bySegmentEnd: Map<number, number>;
  /** Redis TIME, µs, just before 'go' and just after the last result. */
  startUs: number;
  endUs: number;
}

let workers: ChildWorker[] = [];
let single: Redis;
let cluster: Cluster;

beforeAll(async () => {
  single = connectRedis();
  cluster = connectCluster();
  workers = Array.from({ length: WORKERS }, (_, i) => new ChildWorker(`hammer-${i}`, HAMMER));
  await Promise.all(workers.map((worker) => worker.next('started', 30_000)));
}, 60_000);

afterAll(async () => {
  await stopAll(workers);
  await closeAll();
});

async function redisTimeUs(client: Redis | Cluster): Promise<number> {
  const [seconds, micros] = await (client as Redis).time();
  return Number(seconds) * 1_000_000 + Number(micros);
}

async function hammer(
  client: Redis | Cluster,
  run: Omit<HammerRun, 'concurrency' | 'identifiers'> & { identifiers?: string[] },
): Promise<Totals> {
  const full: HammerRun = { identifiers: ['one'], ...run, concurrency: CONCURRENCY };
  await Promise.all(
    workers.map((worker) => worker.request({ type: 'prepare', run: full }, 'prepared', 20_000)),
  );
  const results = workers.map((worker) =>
    worker.next<HammerResult & { [field: string]: unknown }>('result', 4 * run.durationMs + 20_000),
  );
  const startUs = await redisTimeUs(client);
  for (const worker of workers) worker.send({ type: 'go' });
  const settled = await Promise.all(results);
  const endUs = await redisTimeUs(client);
  const bySegmentEnd = new Map<number, number>();
  for (const result of settled) {
    for (const [end, count] of Object.entries(result.bySegmentEnd)) {
      bySegmentEnd.set(Number(end), (bySegmentEnd.get(Number(end)) ?? 0) + count);
    }
  }
  const sum = (pick: (r: HammerResult) => number) => settled.reduce((n, r) => n + pick(r), 0);
  const byIdentifier = new Map<string, IdentifierCounts>();
  for (const identifier of full.identifiers) {
    const parts = settled.map((r) => r.byIdentifier[identifier]!);
    byIdentifier.set(identifier, {
      admitted: parts.reduce((n, part) => n + part.admitted, 0),
      rejected: parts.reduce((n, part) => n + part.rejected, 0),
      remaining: parts.flatMap((part) => part.remaining).sort((a, b) => a - b),
    });
  }
  const totals: Totals = {
    byIdentifier,
    calls: sum((r) => r.calls),
    admitted: sum((r) => r.admitted),
    rejected: sum((r) => r.rejected),
    errors: sum((r) => r.errors),
    errorSamples: settled.flatMap((r) => r.errorSamples),
    admittedPerWorker: settled.map((r) => r.admitted),
    remaining: settled.flatMap((r) => r.remaining).sort((a, b) => a - b),
    bySegmentEnd,
    startUs,
    endUs,
  };
  console.info(
    `${run.policy.algorithm} on ${run.target.kind}: ${totals.admitted} admitted, ` +
      `${totals.rejected} rejected, ${totals.errors} errors in ${totals.calls} calls ` +
      `(per worker ${totals.admittedPerWorker.join('/')}) over ${run.durationMs} ms`,
  );
  return totals;
}

/** "n distinct values 0..n-1": every admission saw the state its predecessor left. */
function describeRemaining(values: readonly number[]): string {
  const distinct = new Set(values).size;
  const min = values.length > 0 ? Math.min(...values) : NaN;
  const max = values.length > 0 ? Math.max(...values) : NaN;
  return `${values.length} values, ${distinct} distinct, from ${min} to ${max}`;
}

function expectEveryCallAnswered(totals: Totals): void {
  expect(totals.errorSamples).toEqual([]);
  expect(totals.errors).toBe(0);
  expect(totals.admitted + totals.rejected).toBe(totals.calls);
  // The limit is reached by callers of more than one process, so they did contend.
  expect(totals.admittedPerWorker.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
  // The limit was reached.
  expect(totals.rejected).toBeGreaterThan(0);
}

function expectExactly(totals: Totals, expected: number): void {
  expectEveryCallAnswered(totals);
  expect(totals.admitted).toBe(expected);
  expect(describeRemaining(totals.remaining)).toBe(describeRemaining(range(expected)));
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** µs per unit, as rate-params computes it: floor(period / limit). */
const intervalUs = (limit: number, periodMs: number) => Math.floor((periodMs * 1000) / limit);

/** leaky-bucket admits at once every request whose wait k × interval ≤ maxDelay. */
const leakyCapacity = (limit: number, periodMs: number, maxDelayUs: number) =>
  Math.floor(maxDelayUs / intervalUs(limit, periodMs)) + 1;

interface Case {
  label: string;
  algorithm: AlgorithmName;
  policy: Omit<PolicyInput, 'name' | 'algorithm'>;
  /** How many the run must admit, whatever the load. */
  expected: number;
  /** Default SINGLE_RUN_MS. */
  durationMs?: number;
}

// A day's period gives one unit every 86 400 s / 3000 = 28.8 s: nothing refills during a run.
const INTERVAL_US = intervalUs(LIMIT, DAY_MS);
const BUCKETS: Case[] = [
  {
    label: 'sliding-log',
    algorithm: 'sliding-log',
    policy: { limit: LIMIT, periodMs: DAY_MS },
    expected: LIMIT,
  },
  {
    label: 'token-bucket, burst = limit',
    algorithm: 'token-bucket',
    policy: { limit: LIMIT, periodMs: DAY_MS },
    expected: LIMIT,
  },
  {
    label: 'gcra, burst 2500',
    algorithm: 'gcra',
    policy: { limit: LIMIT, periodMs: DAY_MS, burst: 2_500 },
    expected: 2_500,
  },
  {
    // Default maxDelay = (burst - 1) × interval: exactly a burst at once (the last waits burst - 1 intervals).
    label: 'leaky-bucket, default maxDelay',
    algorithm: 'leaky-bucket',
    policy: { limit: LIMIT, periodMs: DAY_MS },
    expected: leakyCapacity(LIMIT, DAY_MS, (LIMIT - 1) * INTERVAL_US),
  },
  {
    label: 'leaky-bucket, maxDelay 2000 intervals + 1.234 s',
    algorithm: 'leaky-bucket',
    policy: { limit: LIMIT, periodMs: DAY_MS, maxDelayMs: (2_000 * INTERVAL_US) / 1000 + 1_234 },
    expected: leakyCapacity(LIMIT, DAY_MS, 2_000 * INTERVAL_US + 1_234_000),
    // A second leaky-bucket shape: 3 s keeps the file under a minute.
    durationMs: 3_000,
  },
];

/**
 * A calendar quota and a concurrency limit of 1 000: no period boundary falls in a run (a year's
 * in Paris), and the hammer never releases a lease (a day's TTL), so exactly 1 000 pass.
 */
const QUOTAS: Case[] = [
  {
    label: 'a calendar quota (a year in Europe/Paris)',
    algorithm: 'fixed-window',
    policy: { limit: 1_000, calendar: { unit: 'year', timeZone: 'Europe/Paris' } },
    expected: 1_000,
    durationMs: 3_000,
  },
  {
    label: 'concurrency, leases held',
    algorithm: 'concurrency',
    policy: { limit: 1_000, periodMs: DAY_MS },
    expected: 1_000,
    durationMs: 3_000,
  },
];
BUCKETS.push(...QUOTAS);

function named(algorithm: AlgorithmName, policy: Case['policy'], tag: string): PolicyInput {
  return { name: `exact-${tag}`, algorithm, ...policy };
}

describe('exactness: 4 processes × 100 concurrent callers on one identifier, single Redis', () => {
  const target = (): HammerTarget => ({ kind: 'single', url: inject('redisUrl') });

  it.each(BUCKETS.map((c, i) => [c.label, c.expected, i, c] as const))(
    '%s admits exactly %i',
    async (_label, expected, index, testCase) => {
      const policy = named(testCase.algorithm, testCase.policy, `${testCase.algorithm}-${index}`);
      const totals = await hammer(single, {
        target: target(),
        prefix: `exact-${testCase.algorithm}-${index}-${Date.now()}`,
        policy,
        durationMs: testCase.durationMs ?? SINGLE_RUN_MS,
      });
      expectExactly(totals, expected);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'fixed-window admits exactly the limit per window (two windows if the run crosses a boundary)',
    async () => {
      const policy = named('fixed-window', { limit: LIMIT, periodMs: DAY_MS }, 'fixed-window');
      const prefix = `exact-fixed-window-${Date.now()}`;
      const totals = await hammer(single, {
        target: target(),
        prefix,
        policy,
        durationMs: SINGLE_RUN_MS,
      });
      const periodUs = DAY_MS * 1000;
      const firstWindow = Math.floor(totals.startUs / periodUs);
      const lastWindow = Math.floor(totals.endUs / periodUs);
      expect(lastWindow - firstWindow).toBeLessThanOrEqual(1);
      if (firstWindow === lastWindow) {
        expectExactly(totals, LIMIT);
        return;
      }
      // Crossed midnight UTC: the first window was filled, the last one holds what the key says.
      const key = `${identifierKey(prefix, 'user', toIdentifier('one'))}:${policy.name}:${ALGORITHM_CODES['fixed-window']}`;
      const [window, count] = String(await single.get(key)).split(' ');
      expect(Number(window)).toBe(lastWindow);
      expectEveryCallAnswered(totals);
      expect(totals.admitted).toBe(LIMIT + Number(count));
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'sliding-window admits exactly the limit within one window (no segment leaves during the run)',
    async () => {
      const policy = named(
        'sliding-window',
        { limit: LIMIT, periodMs: DAY_MS, segments: 10 },
        'sw-day',
      );
      const totals = await hammer(single, {
        target: target(),
        prefix: `exact-sliding-window-${Date.now()}`,
        policy,
        durationMs: SINGLE_RUN_MS,
      });
      expectExactly(totals, LIMIT);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'sliding-window never admits more than the limit in any `segments` consecutive segments',
    async () => {
      // 1 s segments, 4 per window: during 5 s the oldest segment leaves and the window refills.
      const segments = 4;
      const segmentMs = 1_000;
      const policy = named(
        'sliding-window',
        { limit: LIMIT, periodMs: segments * segmentMs, segments },
        'sw-bound',
      );
      const totals = await hammer(single, {
        target: target(),
        prefix: `exact-sliding-window-bound-${Date.now()}`,
        policy,
        durationMs: SINGLE_RUN_MS,
        segmentMs,
      });
      expectEveryCallAnswered(totals);
      // resetMs of an admission is the end of the window it opened: (segment + segments) × length.
      const bySegment = new Map<number, number>();
      for (const [end, count] of totals.bySegmentEnd) bySegment.set(end - segments, count);
      const firstSegment = Math.floor(totals.startUs / 1000 / segmentMs);
      const lastSegment = Math.floor(totals.endUs / 1000 / segmentMs);
      for (const segment of bySegment.keys()) {
        expect(segment).toBeGreaterThanOrEqual(firstSegment);
        expect(segment).toBeLessThanOrEqual(lastSegment);
      }
      expect([...bySegment.values()].reduce((a, b) => a + b, 0)).toBe(totals.admitted);
      let busiest = 0;
      for (let end = firstSegment; end <= lastSegment + segments; end++) {
        let inWindow = 0;
        for (let s = end - segments + 1; s <= end; s++) inWindow += bySegment.get(s) ?? 0;
        busiest = Math.max(busiest, inWindow);
      }
      // Full, never over.
      expect(busiest).toBe(LIMIT);
      // The run outlasts one window, so the refilled window admitted more.
      expect(totals.admitted).toBeGreaterThan(LIMIT);
      console.info(
        `sliding-window admissions by segment: ${[...bySegment.entries()]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s - firstSegment}:${n}`)
          .join(' ')}`,
      );
    },
    RUN_TIMEOUT_MS,
  );
});

/**
 * Identifiers whose state lives on each master in turn: Redis is asked which slot a key of each
 * candidate hashes to, and which master serves that slot.
 */
async function identifiersOnEveryMaster(prefix: string, policy: PolicyInput): Promise<string[]> {
  const masters = cluster.nodes('master');
  const ranges = await masters[0]!.cluster('SLOTS');
  const ownerOf = (slot: number) => {
    const [, , master] = ranges.find(([from, to]) => slot >= from && slot <= to)!;
    return `${master?.[0]}:${master?.[1]}`;
  };
  const chosen = new Map<string, string>();
  for (let n = 0; chosen.size < masters.length && n < 1_000; n++) {
    const identifier = `user-${n}`;
    const key = stateKey(prefix, policy, identifier);
    const slot = Number(await masters[0]!.cluster('KEYSLOT', key));
    const owner = ownerOf(slot);
    if (!chosen.has(owner)) chosen.set(owner, identifier);
  }
  expect(chosen.size).toBe(masters.length);
  return [...chosen.values()];
}

const stateKey = (prefix: string, policy: PolicyInput, identifier: string) =>
  `${identifierKey(prefix, 'user', toIdentifier(identifier))}:${policy.name}:${ALGORITHM_CODES[policy.algorithm]}`;

const CLUSTER_CASES: Case[] = [
  ...BUCKETS.slice(0, 4),
  {
    label: 'sliding-window',
    algorithm: 'sliding-window',
    policy: { limit: LIMIT, periodMs: DAY_MS, segments: 10 },
    expected: LIMIT,
  },
  {
    label: 'fixed-window',
    algorithm: 'fixed-window',
    policy: { limit: LIMIT, periodMs: DAY_MS },
    expected: LIMIT,
  },
  ...QUOTAS,
];

/**
 * The same Lua through EVALSHA, as on a server that forbids functions. The runs are shorter:
 * each still goes on until every identifier has been refused (HammerRun.durationMs).
 */
const EVAL_RUN_MS = 1_000;

describe('exactness through EVALSHA, single Redis', () => {
  const target = (): HammerTarget => ({ kind: 'single', url: inject('redisUrl') });

  it.each(BUCKETS.slice(0, 4).map((c) => [c.label, c.expected, c] as const))(
    '%s admits exactly %i',
    async (_label, expected, testCase) => {
      const policy = named(testCase.algorithm, testCase.policy, `eval-${testCase.algorithm}`);
      const totals = await hammer(single, {
        target: target(),
        prefix: `exact-eval-${testCase.algorithm}-${Date.now()}`,
        policy,
        durationMs: EVAL_RUN_MS,
        scripting: 'eval',
      });
      expectExactly(totals, expected);
    },
    RUN_TIMEOUT_MS,
  );
});

describe('exactness on node-redis, single Redis: the same callers through the redis package', () => {
  const target = (): HammerTarget => ({
    kind: 'single',
    url: inject('redisUrl'),
    client: 'node-redis',
  });

  it.each(BUCKETS.slice(0, 4).map((c) => [c.label, c.expected, c] as const))(
    '%s admits exactly %i',
    async (_label, expected, testCase) => {
      const policy = named(testCase.algorithm, testCase.policy, `nr-${testCase.algorithm}`);
      const totals = await hammer(single, {
        target: target(),
        prefix: `exact-nr-${testCase.algorithm}-${Date.now()}`,
        policy,
        durationMs: EVAL_RUN_MS,
      });
      expectExactly(totals, expected);
    },
    RUN_TIMEOUT_MS,
  );
});

describe.each([
  { scripting: 'function' as const, via: 'FCALL', durationMs: CLUSTER_RUN_MS },
  { scripting: 'eval' as const, via: 'EVALSHA', durationMs: EVAL_RUN_MS },
  {
    scripting: 'function' as const,
    via: 'FCALL on node-redis',
    durationMs: EVAL_RUN_MS,
    client: 'node-redis' as const,
  },
])(
  'exactness on a 3-master Redis Cluster through $via: every algorithm, an identifier on each master',
  ({ scripting, durationMs, client }) => {
    const target = (): HammerTarget => ({
      kind: 'cluster',
      nodes: inject('clusterNodes'),
      ...(client === undefined ? {} : { client }),
    });

    it.each(CLUSTER_CASES.map((c) => [c.label, c.expected, c] as const))(
      '%s admits exactly %i for each identifier, no CROSSSLOT',
      async (_label, expected, testCase) => {
        const policy = named(
          testCase.algorithm,
          testCase.policy,
          `cluster-${client ?? 'io'}-${scripting}-${testCase.algorithm}`,
        );
        const prefix = `exact-cluster-${client ?? 'io'}-${scripting}-${testCase.algorithm}-${Date.now()}`;
        const identifiers = await identifiersOnEveryMaster(prefix, policy);
        const totals = await hammer(cluster, {
          target: target(),
          prefix,
          policy,
          identifiers,
          durationMs,
          scripting,
        });
        expect(totals.errorSamples.filter((e) => e.includes('CROSSSLOT'))).toEqual([]);
        expectEveryCallAnswered(totals);
        const periodUs = DAY_MS * 1000;
        const crossedWindow =
          testCase.algorithm === 'fixed-window' &&
          Math.floor(totals.startUs / periodUs) !== Math.floor(totals.endUs / periodUs);
        for (const identifier of identifiers) {
          const counts = totals.byIdentifier.get(identifier)!;
          expect(counts.rejected, `${identifier} reached its limit`).toBeGreaterThan(0);
          // The state lives on the master that owns the identifier's hash tag.
          const key = stateKey(prefix, policy, identifier);
          expect(await cluster.exists(key), `${identifier}'s state`).toBe(1);
          if (crossedWindow) {
            // Crossed midnight UTC: the first window was filled, the new one holds the rest.
            const stored = String(await cluster.get(key));
            expect(counts.admitted).toBe(expected + Number(stored.split(' ')[1]));
            continue;
          }
          expect(counts.admitted, identifier).toBe(expected);
          expect(describeRemaining(counts.remaining), identifier).toBe(
            describeRemaining(range(expected)),
          );
        }
      },
      RUN_TIMEOUT_MS,
    );
  },
);
