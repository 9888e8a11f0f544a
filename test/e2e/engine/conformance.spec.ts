import fc from 'fast-check';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ceilDiv } from '@sluice/nest/src/algorithms/integer-math.js';
import { ALGORITHMS, parsePolicy, type AlgorithmName, type Policy } from '@sluice/nest/internals';
import {
  type Operation,
  type PolicySpec,
  type StoreCall,
} from '@sluice/nest/src/store/store.types.js';
import { capacity } from '@sluice/nest/src/policy/policy.schema.js';
import { CALENDAR_CLOCK_SKEW_MS, toPolicySpec } from '@sluice/nest/src/engine/policy-spec.js';
import { CALENDAR_UNITS, periodAt } from '@sluice/nest/src/clock/calendar.js';
import { runOperation } from '@sluice/nest/src/store/operations.js';
import { loadLuaLibrary } from '@sluice/nest/src/store/script.source.js';
import {
  callArgument,
  decodeReply,
  encodeSpec,
  readQuota,
} from '@sluice/nest/src/store/spec.codec.js';
import { RedisStore } from '@sluice/nest/src/store/redis.store.js';
import { resultsOf, scriptCall } from '@sluice/nest/src/store/batched.call.js';
import {
  closeAll,
  connectCluster,
  connectNodeRedis,
  connectNodeRedisCluster,
  connectRedis,
} from '../../support/redis.clients.js';
import { fromNodeRedis } from '@sluice/nest/src/store/node-redis.client.js';

/**
 * A property that runs past the test's own timeout is reported by fast-check, with its seed and
 * the case it was on, instead of by Vitest with neither: a case that hangs fails after
 * RUN_TIMEOUT_MS, and a property still running (or shrinking a failure) after PROPERTY_TIME_MS
 * stops and fails, below the 30 s test timeout.
 */
const RUN_TIMEOUT_MS = 10_000;
const PROPERTY_TIME_MS = 25_000;
fc.configureGlobal({
  timeout: RUN_TIMEOUT_MS,
  interruptAfterTimeLimit: PROPERTY_TIME_MS,
  markInterruptAsFailure: true,
});

/**
 * The Lua scripts and their TypeScript twins are one function of (state, now, request): random
 * request sequences at injected times must get identical answers, to the µs, leave identical
 * state behind, and give every written key the TTL the twin computes.
 */
const PERIODS_MS = [1, 7, 250, 1_000, 60_000, 86_400_000];
const TIERS = ['free', 'pro'] as const;
const IDENTIFIERS = ['alice', 'bob', 'carol'];

const algorithmPolicy = (algorithm: AlgorithmName, name: string) =>
  fc
    .record({
      limit: fc.integer({ min: 1, max: 12 }),
      periodMs: fc.constantFrom(...PERIODS_MS),
      burst: fc.option(fc.integer({ min: 1, max: 15 }), { nil: null }),
      segments: fc.constantFrom(2, 4, 5, 10, 20),
      maxDelayFactor: fc.option(fc.constantFrom(0, 0.5, 1, 2.5), { nil: null }),
      shadow: fc.boolean(),
      penalty: fc.option(
        fc.record({
          afterViolations: fc.integer({ min: 1, max: 3 }),
          blockFactor: fc.constantFrom(0.3, 1, 2),
          escalation: fc.constantFrom(1, 1.5, 2, 3),
          maxFactor: fc.constantFrom(1, 3, 10),
          forgetFactor: fc.constantFrom(0, 1, 5),
        }),
        { nil: null },
      ),
      overrides: fc.array(
        fc.record({
          identifier: fc.constantFrom(...IDENTIFIERS),
          limit: fc.integer({ min: 1, max: 20 }),
        }),
        { maxLength: 2 },
      ),
      /** Two tiers' rates, which steps switch between on the same keys. */
      tiers: fc.option(
        fc.tuple(
          fc.record({
            limit: fc.integer({ min: 1, max: 12 }),
            burst: fc.option(fc.integer({ min: 1, max: 15 }), { nil: null }),
          }),
          fc.record({
            limit: fc.integer({ min: 1, max: 12 }),
            burst: fc.option(fc.integer({ min: 1, max: 15 }), { nil: null }),
          }),
        ),
        { nil: null },
      ),
    })
    .map((raw) => {
      const isBucket = ['token-bucket', 'leaky-bucket', 'gcra'].includes(algorithm);
      const ms = (factor: number) => Math.max(1, Math.round(raw.periodMs * factor));
      const overrides = raw.overrides.filter(
        (o, i, all) => all.findIndex((other) => other.identifier === o.identifier) === i,
      );
      return parsePolicy({
        name,
        algorithm,
        limit: raw.limit,
        periodMs: raw.periodMs,
        burst: isBucket ? raw.burst : null,
        segments: algorithm === 'sliding-window' ? raw.segments : null,
        maxDelayMs:
          algorithm === 'leaky-bucket' && raw.maxDelayFactor !== null
            ? Math.round(raw.periodMs * raw.maxDelayFactor)
            : null,
        mode: raw.shadow ? 'shadow' : 'enforce',
        penalty: raw.penalty && {
          afterViolations: raw.penalty.afterViolations,
          blockMs: ms(raw.penalty.blockFactor),
          escalation: raw.penalty.escalation,
          maxBlockMs: ms(raw.penalty.blockFactor * raw.penalty.maxFactor),
          forgetAfterMs: Math.round(raw.periodMs * raw.penalty.forgetFactor),
        },
        overrides: overrides.map((o) => ({ identifier: o.identifier, limit: o.limit })),
        tiers:
          raw.tiers &&
          Object.fromEntries(
            raw.tiers.map((tier, i) => [
              TIERS[i] as string,
              { limit: tier.limit, burst: isBucket ? tier.burst : null },
            ]),
          ),
      });
    })
    .filter((policy) =>
      policy.overrides.every((o) => o.limit === null || o.limit <= policy.periodMs * 1000),
    );

const step = fc.record({
  op: fc.constantFrom<Operation>(
    ...(Array(14).fill('consume') as Operation[]),
    'peek',
    'peek',
    'refund',
    'refund',
    'reset',
    'block',
    'unblock',
    'sync',
    'sync',
    'grant',
    'settle',
    'release',
    'release',
  ),
  identifier: fc.constantFrom(...IDENTIFIERS),
  /** grant: the credits (0 reads); settle: the units; release: which consume's lease it ends. */
  amount: fc.integer({ min: -5, max: 5 }),
  /** grant: made once under this mark, or that mark's grant taken back (`undo`). */
  mark: fc.constantFrom(undefined, 'm1', 'm2'),
  undo: fc.boolean(),
  /** Fraction of the first policy's period to let pass before this step. */
  gap: fc.oneof(
    fc.constant(0),
    fc.double({ min: 0, max: 0.2, noNaN: true }),
    fc.double({ min: 0, max: 3, noNaN: true }),
  ),
  costShare: fc.double({ min: 0, max: 1, noNaN: true }),
  blockShare: fc.double({ min: 0, max: 2, noNaN: true }),
  /** The request's tier: a policy with tiers decides at its rate, on the same counters. */
  tier: fc.constantFrom(undefined, ...TIERS),
  /**
   * For a calendar policy: move to this share of the clock skew past the next boundary, where
   * the engine's boundaries still name the period before and the store's clock is in the next.
   */
  boundary: fc.option(fc.constantFrom(0, 0.001, 0.5, 0.999), { nil: null }),
});

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** A proposed revision of the policy of the same name, decided beside it (mode 'candidate'). */
type Decided = Policy & { proposed?: true };

/**
 * The spec the engine would send for this identifier: its override's limit, else the request's
 * tier's, else the policy's; the tier's burst; the request's cost.
 */
function specFor(
  policy: Decided,
  identifier: string,
  costShare: number,
  nowUs: number,
  tier?: string,
): PolicySpec {
  const rate = tier === undefined ? undefined : policy.tiers?.[tier];
  const limit =
    policy.overrides.find((o) => o.identifier === identifier)?.limit ?? rate?.limit ?? policy.limit;
  const room = capacity(policy.algorithm, limit, rate === undefined ? policy.burst : rate.burst);
  const spec = toPolicySpec(
    policy,
    limit,
    1 + Math.floor(costShare * (room - 1)),
    rate === undefined ? undefined : tier,
  );
  // A calendar policy's boundaries, as the engine computes them from its own clock.
  if (policy.calendar !== null) {
    const atMs = Math.floor(nowUs / 1000) - CALENDAR_CLOCK_SKEW_MS;
    spec.calendar = periodAt(atMs, policy.calendar);
  }
  return policy.proposed ? { ...spec, name: `${spec.name}~c`, mode: 'candidate' } : spec;
}

/**
 * The production library, run through EVAL so that the same script call also returns the state
 * of every key it may touch before and after: Redis freezes expiry while a script runs, so the
 * twin can be given exactly the state the script saw, whatever Redis expired in real time.
 */
function snapshotScript(): string {
  return `${loadLuaLibrary().definitions}
local function snapshot()
  local keys = {}
  for i = 4, #ARGV do
    local name, code = string.match(ARGV[i], '^(%S+) (%S+)')
    for _, part in ipairs({ ':' .. code, ':p' }) do
      local key = KEYS[1] .. ':' .. name .. part
      local kind = redis.call('TYPE', key).ok
      local value = {}
      if kind == 'string' then
        value = { redis.call('GET', key) }
      elseif kind == 'hash' then
        value = redis.call('HGETALL', key)
      elseif kind == 'zset' then
        value = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
      end
      keys[#keys + 1] = { key, kind, value, redis.call('PTTL', key) }
    end
  end
  return keys
end
local before = snapshot()
local result = operate(KEYS, ARGV)
return { before, result, snapshot() }`;
}

type Snapshot = Array<[key: string, kind: string, value: string[], pttl: number]>;

/** Redis's representation of a key, in the shape the TypeScript twin keeps it. */
function decode(spec: PolicySpec, key: string, kind: string, value: string[]): unknown {
  if (kind === 'none') return undefined;
  if (spec.algorithm === 'sliding-log' && !key.endsWith(':p')) {
    return value.filter((_, i) => i % 2 === 1).map(Number);
  }
  if (spec.algorithm === 'concurrency' && !key.endsWith(':p')) {
    const leases: Array<{ member: string; expires: number }> = [];
    for (let i = 0; i < value.length; i += 2) {
      leases.push({ member: value[i] as string, expires: Number(value[i + 1]) });
    }
    return leases;
  }
  const words = (value[0] as string).split(' ');
  const numbers = words.map(Number);
  if (key.endsWith(':p')) {
    const [blockedUntil, offence, violations, since] = numbers;
    return { blockedUntil, offence, violations, since };
  }
  switch (spec.algorithm) {
    case 'gcra':
    case 'leaky-bucket':
      return numbers[0];
    case 'fixed-window':
      return numbers.length > 2
        ? { window: numbers[0], count: numbers[1], granted: numbers[2] }
        : { window: numbers[0], count: numbers[1] };
    case 'token-bucket':
      return { tokens: numbers[0], stamp: numbers[1] };
    default: {
      const counts = new Array<number>(spec.segments ?? 1).fill(0);
      for (const word of words.slice(1)) {
        const [slot, count] = word.split(':').map(Number);
        counts[slot as number] = count as number;
      }
      return { latest: numbers[0], counts };
    }
  }
}

function decodeAll(specs: PolicySpec[], snapshot: Snapshot): Map<string, unknown> {
  const states = new Map<string, unknown>();
  snapshot.forEach(([key, kind, value], index) => {
    const state = decode(specs[Math.floor(index / 2)] as PolicySpec, key, kind, value);
    if (state !== undefined) states.set(key, state);
  });
  return states;
}

let run = 0;
let script: string | undefined;

async function conforms(
  client: Redis | Cluster,
  policies: Decided[],
  steps: Step[],
): Promise<void> {
  script ??= snapshotScript();
  const prefix = `conf${process.pid}-${run++}`;
  let now = 1_700_000_000_000_000 + run * 86_400_000_000;
  const firstPeriod = (policies[0] as Policy).periodMs * 1000;
  const calendar = (policies[0] as Policy).calendar;
  const leases: string[] = [];
  // Grants' marks live beside the policies' state: the twin keeps them across steps.
  const marks = new Map<string, unknown>();
  for (const [index, request] of steps.entries()) {
    now += Math.floor(request.gap * firstPeriod);
    if (calendar !== null && request.boundary !== null) {
      const { end } = periodAt(Math.floor(now / 1000), calendar);
      now = end * 1000 + Math.floor(request.boundary * CALENDAR_CLOCK_SKEW_MS * 1000);
    }
    const specs = policies.map((policy) =>
      specFor(policy, request.identifier, request.costShare, now, request.tier),
    );
    const cost = Math.min(...specs.map((spec) => spec.cost));
    // Credits apply to fixed windows only: a grant on anything else is a peek here.
    const quotas = specs.every((spec) => spec.algorithm === 'fixed-window');
    const op = (request.op === 'grant' || request.op === 'settle') && !quotas ? 'peek' : request.op;
    const call: StoreCall = {
      op,
      key: `${prefix}:{user:${request.identifier}}`,
      specs: specs.map((spec) => ({ ...spec, cost })),
      durationMs: Math.max(1, Math.round(request.blockShare * (policies[0] as Policy).periodMs)),
      amount: request.amount,
    };
    if (op === 'consume' || op === 'peek') leases.push((call.lease = `l${index}`));
    if (op === 'release') call.lease = leases[Math.abs(request.amount) % (leases.length || 1)];
    if (op === 'grant' && request.mark !== undefined) {
      call.once = request.mark;
      call.undo = request.undo;
    }
    const args = [call.op, String(now), callArgument(call), ...call.specs.map(encodeSpec)];
    const [before, reply, after] = (await client.eval(script, 1, call.key, ...args)) as [
      Snapshot,
      unknown,
      Snapshot,
    ];
    // Redis counts expiry in whole milliseconds from a clock it caches before the script runs,
    // so a key written with a 1 ms TTL can be gone by the end of the very script that wrote it,
    // and an operation that reads it back after writing it (a sync's verdict on a sorted set)
    // then reads nothing. The twin runs again with such a key gone as soon as it is written.
    const marksBefore = new Map(marks);
    const twinRun = (gone: ReadonlySet<string>) => {
      marks.clear();
      for (const [key, value] of marksBefore) marks.set(key, value);
      const states = decodeAll(call.specs, before);
      const ttls = new Map<string, number>();
      const twin = runOperation(
        {
          get: <T>(key: string) =>
            (key.includes(':g:') ? marks.get(key) : states.get(key)) as T | undefined,
          set: (key, value, ttl) => {
            if (key.includes(':g:')) marks.set(key, value);
            else if (ttl <= 0 || (ttl <= 1000 && gone.has(key))) states.delete(key);
            else states.set(key, value);
            if (!key.includes(':g:')) ttls.set(key, ttl);
          },
          delete: (key) => states.delete(key),
        },
        call,
        now,
      );
      return { states, ttls, twin };
    };
    const stored = decodeAll(call.specs, after);
    let { states, ttls, twin } = twinRun(new Set());
    const gone = new Set<string>();
    for (const [key, ttl] of ttls) {
      if (ttl > 0 && ttl <= 1000 && !stored.has(key)) gone.add(key);
    }
    if (gone.size > 0) ({ states, ttls, twin } = twinRun(gone));
    const context = `step ${index}: ${JSON.stringify(call)}`;
    const decoded = decodeReply(reply, call.specs.length);
    if (op === 'grant' || op === 'settle') {
      for (const outcome of decoded.outcomes) readQuota(outcome);
    }
    expect(decoded, context).toEqual(twin);
    expect(Object.fromEntries(stored), context).toEqual(Object.fromEntries(states));
    for (const [key, kind, , pttl] of after) {
      const ttl = ttls.get(key);
      if (ttl !== undefined && ttl > 0 && kind !== 'none') {
        expect(pttl, `${context}: PTTL of ${key}`).toBeGreaterThanOrEqual(0);
        expect(pttl, `${context}: PTTL of ${key}`).toBeLessThanOrEqual(ceilDiv(ttl, 1000));
      }
    }
  }
}

const stepsArbitrary = fc.array(step, { minLength: 1, maxLength: 40 });

/** Fixed windows that are calendar periods, in zones with and without summer time. */
const calendarPolicy = fc
  .record({
    limit: fc.integer({ min: 1, max: 12 }),
    unit: fc.constantFrom(...CALENDAR_UNITS),
    timeZone: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Australia/Sydney'),
    anchorDay: fc.option(fc.integer({ min: 1, max: 31 }), { nil: null }),
    tiers: fc.option(fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 })), {
      nil: null,
    }),
  })
  .map((raw) =>
    parsePolicy({
      name: 'q',
      algorithm: 'fixed-window',
      limit: raw.limit,
      calendar: {
        unit: raw.unit,
        timeZone: raw.timeZone,
        anchorDay: raw.unit === 'month' ? raw.anchorDay : null,
      },
      tiers:
        raw.tiers &&
        Object.fromEntries(raw.tiers.map((limit, i) => [TIERS[i] as string, { limit }])),
    }),
  );

afterAll(closeAll);

/** node-redis's client as the store sees it (RedisStore adapts the one it is given the same way). */
const throughNodeRedis = async () => fromNodeRedis(await connectNodeRedis());
const throughNodeRedisCluster = async () => fromNodeRedis(await connectNodeRedisCluster());

describe.each([
  { target: 'a single Redis server', connect: () => Promise.resolve(connectRedis()), runs: 120 },
  {
    target: 'a 3-master Redis Cluster',
    connect: () => Promise.resolve(connectCluster()),
    runs: 40,
  },
  // The same Lua, its replies read through node-redis: fewer runs, the property is the same.
  { target: 'a single Redis server through node-redis', connect: throughNodeRedis, runs: 30 },
  {
    target: 'a 3-master Redis Cluster through node-redis',
    connect: throughNodeRedisCluster,
    runs: 15,
  },
])('Lua and TypeScript twins on $target', ({ connect, runs }) => {
  let client: Redis | Cluster;
  beforeAll(async () => {
    client = await connect();
  });

  it.each(ALGORITHMS)('%s: identical decisions and figures', async (algorithm) => {
    await fc.assert(
      fc.asyncProperty(algorithmPolicy(algorithm, 'p'), stepsArbitrary, (policy, steps) =>
        conforms(client, [policy], steps),
      ),
      { numRuns: runs },
    );
  });

  it('fixed-window on calendar periods: identical decisions, across boundaries', async () => {
    await fc.assert(
      fc.asyncProperty(calendarPolicy, stepsArbitrary, (policy, steps) =>
        conforms(client, [policy], steps),
      ),
      { numRuns: runs },
    );
  });

  it('a policy beside its candidate, and another policy: the candidate never refuses', async () => {
    const withCandidate = fc
      .tuple(
        fc.constantFrom(...ALGORITHMS),
        fc.constantFrom(...ALGORITHMS),
        fc.option(fc.constantFrom(...ALGORITHMS), { nil: null }),
      )
      .chain(([live, proposed, other]) =>
        fc.tuple(
          algorithmPolicy(live, 'p'),
          algorithmPolicy(proposed, 'p').map((policy): Decided => ({ ...policy, proposed: true })),
          other === null ? fc.constant(null) : algorithmPolicy(other, 'q'),
        ),
      );
    await fc.assert(
      fc.asyncProperty(withCandidate, stepsArbitrary, ([live, candidate, other], steps) =>
        conforms(client, other === null ? [live, candidate] : [live, candidate, other], steps),
      ),
      { numRuns: runs },
    );
  });

  it('several policies of one identifier at once, all or nothing', async () => {
    const anyPolicies = fc
      .uniqueArray(fc.constantFrom(...ALGORITHMS), { minLength: 2, maxLength: 4 })
      .chain((algorithms) =>
        fc.tuple(...algorithms.map((algorithm, i) => algorithmPolicy(algorithm, `p${i}`))),
      );
    await fc.assert(
      fc.asyncProperty(anyPolicies, stepsArbitrary, (policies, steps) =>
        conforms(client, policies, steps),
      ),
      { numRuns: runs },
    );
  });
});

/** Only the snapshot: the state of every key the specs of ARGV[4..] may touch under KEYS[1]. */
let stateScriptText: string | undefined;
function stateScript(): string {
  if (stateScriptText === undefined) {
    // Built once: the library is read from disk.
    const withOperate = snapshotScript();
    stateScriptText = `${withOperate.slice(0, withOperate.indexOf('local before = snapshot()'))}return snapshot()`;
  }
  return stateScriptText;
}

/**
 * Long periods and blocks only: a batch's keys are written with TTLs of seconds or more, so
 * nothing expires in real time between the batches of one case, and the twins need no help.
 */
const LONG_PERIODS_MS = [60_000, 3_600_000, 86_400_000];

const batchCall = (policyCount: number) =>
  fc.record({
    op: fc.constantFrom<Operation>(
      ...(Array(10).fill('consume') as Operation[]),
      'peek',
      'refund',
      'reset',
      'block',
      'unblock',
      'sync',
    ),
    identifier: fc.constantFrom(...IDENTIFIERS),
    /** Which of the case's policies this call is under (at least one), in their order. */
    policies: fc.subarray(
      Array.from({ length: policyCount }, (_, i) => i),
      { minLength: 1 },
    ),
    costShare: fc.double({ min: 0, max: 1, noNaN: true }),
    blockShare: fc.double({ min: 0.05, max: 2, noNaN: true }),
  });

type BatchCall = typeof batchCall extends (n: number) => fc.Arbitrary<infer T> ? T : never;

const batchedCase = fc
  .uniqueArray(fc.constantFrom(...ALGORITHMS), { minLength: 1, maxLength: 3 })
  .chain((algorithms) =>
    fc.record({
      policies: fc.tuple(
        ...algorithms.map((algorithm, i) =>
          algorithmPolicy(algorithm, `b${i}`).filter((policy) =>
            LONG_PERIODS_MS.includes(policy.periodMs),
          ),
        ),
      ),
      batches: fc.array(
        fc.record({
          /** Fraction of the first policy's period between this batch and the one before. */
          gap: fc.double({ min: 0, max: 1.5, noNaN: true }),
          calls: fc.array(batchCall(algorithms.length), { minLength: 2, maxLength: 24 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  );

/**
 * The usual turn of a busy policy: every call a consume of one policy at one cost, on a few
 * identifiers, so identifiers repeat, refusals come and penalties start within a batch; a batch
 * of mixed calls now and then puts a block or a reset between them. Such a batch takes the lean
 * path of operateMany (consumeBatch in charge.ops.lua), which must answer as the twins do.
 */
const consumeBatchCase = fc
  .constantFrom<Policy['algorithm']>(
    'gcra',
    'fixed-window',
    'token-bucket',
    'leaky-bucket',
    'sliding-window',
  )
  .chain((algorithm) =>
    fc.record({
      policies: fc.tuple(
        algorithmPolicy(algorithm, 'b0').filter((policy) =>
          LONG_PERIODS_MS.includes(policy.periodMs),
        ),
      ),
      batches: fc.array(
        fc.oneof(
          {
            weight: 3,
            arbitrary: fc.record({
              gap: fc.double({ min: 0, max: 0.5, noNaN: true }),
              calls: fc
                .tuple(
                  fc.double({ min: 0, max: 0.3, noNaN: true }),
                  fc.array(fc.constantFrom(...IDENTIFIERS), { minLength: 2, maxLength: 40 }),
                )
                .map(([costShare, identifiers]) =>
                  identifiers.map((identifier) => ({
                    op: 'consume' as const,
                    identifier,
                    policies: [0],
                    costShare,
                    blockShare: 1,
                  })),
                ),
            }),
          },
          {
            weight: 1,
            arbitrary: fc.record({
              gap: fc.double({ min: 0, max: 0.5, noNaN: true }),
              calls: fc.array(batchCall(1), { minLength: 2, maxLength: 8 }),
            }),
          },
        ),
        { minLength: 1, maxLength: 6 },
      ),
    }),
  );

/**
 * Each batch goes through the production RedisStore, whose calls made in one turn leave in one
 * FCALL (operateMany, with its write-back string cache); the twins run the same calls one at a
 * time. Replies, and every key's state after the last batch, must be identical.
 */
async function batchConforms(
  client: Redis | Cluster,
  policies: Policy[],
  batches: Array<{ gap: number; calls: BatchCall[] }>,
  sameIdentifier: boolean,
  scripting: 'function' | 'eval' = 'function',
): Promise<void> {
  const prefix = `batch${process.pid}-${run++}`;
  let now = 1_700_000_000_000_000 + run * 86_400_000_000;
  const store = new RedisStore(client, { clock: () => now, scripting });
  const fcalls = countCalls(client, scripting === 'function' ? 'fcall' : 'evalsha');
  const states = new Map<string, unknown>();
  const twinStore = {
    get: <T>(key: string) => states.get(key) as T | undefined,
    set: (key: string, value: unknown, ttl: number) => {
      if (ttl <= 0) states.delete(key);
      else states.set(key, value);
    },
    delete: (key: string) => states.delete(key),
  };
  const firstPeriod = (policies[0] as Policy).periodMs * 1000;
  const touched = new Set<string>();
  for (const [index, batch] of batches.entries()) {
    now += Math.floor(batch.gap * firstPeriod);
    const calls: StoreCall[] = batch.calls.map((request, at) => {
      const identifier = sameIdentifier ? IDENTIFIERS[0]! : request.identifier;
      const under = request.policies.map((i) => policies[i] as Policy);
      const specs = under.map((policy) => specFor(policy, identifier, request.costShare, now));
      const cost = Math.min(...specs.map((spec) => spec.cost));
      return {
        op: request.op,
        key: `${prefix}:{user:${identifier}}`,
        specs: specs.map((spec) => ({ ...spec, cost })),
        durationMs: Math.max(1, Math.round(request.blockShare * (under[0] as Policy).periodMs)),
        // As the engine sends it: a lease only where a concurrency policy takes one.
        lease: under.some((p) => p.algorithm === 'concurrency') ? `l${index}.${at}` : undefined,
      };
    });
    for (const call of calls) touched.add(call.key);
    const before = fcalls.count;
    const replies =
      'nodes' in client
        ? await operateManyOnOneSlot(client, calls, now)
        : await Promise.all(calls.map((call) => store.run(call)));
    const context = `batch ${index}: ${JSON.stringify(calls)}`;
    expect(fcalls.count - before, context).toBe(1);
    const twins = calls.map((call) => runOperation(twinStore, call, now));
    expect(replies, context).toEqual(twins);
  }
  // The state every key holds in Redis after the last batch, as the twins left theirs.
  const stored = new Map<string, unknown>();
  const specs = policies.map((policy) => specFor(policy, IDENTIFIERS[0]!, 0, now));
  for (const key of touched) {
    const args = ['peek', '0', '', ...specs.map(encodeSpec)];
    const snapshot = (await client.eval(stateScript(), 1, key, ...args)) as Snapshot;
    for (const [name, state] of decodeAll(specs, snapshot)) stored.set(name, state);
  }
  expect(Object.fromEntries(stored)).toEqual(Object.fromEntries(states));
}

/**
 * A Cluster's RedisStore sends each call alone (its keys have their own slot), so the batch of one
 * identifier's calls is sent to the library's many-calls function directly, encoded as RedisStore
 * encodes a batch on a single server (scriptCall).
 */
let libraryLoaded: Promise<unknown> | undefined;
let luaLibrary: ReturnType<typeof loadLuaLibrary> | undefined;

async function operateManyOnOneSlot(
  client: Cluster,
  calls: StoreCall[],
  now: number,
): Promise<unknown[]> {
  const library = (luaLibrary ??= loadLuaLibrary());
  // Loaded once: a real RedisStore loads it on the first "Function not found".
  libraryLoaded ??= Promise.all(
    client
      .nodes('master')
      .map((master) => master.function('LOAD', 'REPLACE', library.functionSource)),
  );
  await libraryLoaded;
  const batched = calls.map((call) => ({
    key: call.key,
    args: [call.op, String(now), callArgument(call), ...call.specs.map(encodeSpec)],
  }));
  const { keys, keysAndArgs } = scriptCall(batched);
  const reply = await client.fcall(library.manyName, keys, ...keysAndArgs);
  return resultsOf(batched, reply).map((each) => {
    if (each instanceof Error) throw each;
    return each;
  });
}

const callCounters = new WeakMap<Redis | Cluster, Map<string, { count: number }>>();

/** Counts the FCALLs or EVALSHAs sent on `client` (wrapping its method once). */
function countCalls(
  client: Redis | Cluster,
  method: 'fcall' | 'evalsha',
): { readonly count: number } {
  const counters = callCounters.get(client) ?? new Map<string, { count: number }>();
  callCounters.set(client, counters);
  const known = counters.get(method);
  if (known !== undefined) return known;
  const counter = { count: 0 };
  counters.set(method, counter);
  const original = client[method].bind(client) as (...args: unknown[]) => Promise<unknown>;
  Object.defineProperty(client, method, {
    configurable: true,
    value: (...args: unknown[]) => {
      counter.count++;
      return original(...args);
    },
  });
  return counter;
}

describe('the batched path (operateMany) against the twins one call at a time', () => {
  it('a single Redis: mixed identifiers, policies and operations in one FCALL', async () => {
    const client = connectRedis();
    // The library is loaded first, so that no batch's count includes a "Function not found".
    await client.function('LOAD', 'REPLACE', loadLuaLibrary().functionSource);
    await fc.assert(
      fc.asyncProperty(batchedCase, ({ policies, batches }) =>
        batchConforms(client, policies, batches, false),
      ),
      { numRuns: 150 },
    );
  });

  it('a single Redis: turns of one policy consumed on a few identifiers (the lean batch)', async () => {
    const client = connectRedis();
    await client.function('LOAD', 'REPLACE', loadLuaLibrary().functionSource);
    await fc.assert(
      fc.asyncProperty(consumeBatchCase, ({ policies, batches }) =>
        batchConforms(client, policies, batches, false),
      ),
      { numRuns: 150 },
    );
  });

  it('a single Redis through EVALSHA: mixed identifiers, policies and operations in one call', async () => {
    const client = connectRedis();
    // Loaded first, so that no batch's count includes a NOSCRIPT.
    await new RedisStore(client, { scripting: 'eval' }).prepare();
    await fc.assert(
      fc.asyncProperty(batchedCase, ({ policies, batches }) =>
        batchConforms(client, policies, batches, false, 'eval'),
      ),
      { numRuns: 60 },
    );
  });

  it('node-redis on a single Redis: mixed identifiers, policies and operations in one FCALL', async () => {
    const client = await throughNodeRedis();
    await client.function('LOAD', 'REPLACE', loadLuaLibrary().functionSource);
    await fc.assert(
      fc.asyncProperty(batchedCase, ({ policies, batches }) =>
        batchConforms(client, policies, batches, false),
      ),
      { numRuns: 60 },
    );
  });

  it('node-redis on a single Redis through EVALSHA: mixed calls in one call', async () => {
    const client = await throughNodeRedis();
    await new RedisStore(client, { scripting: 'eval' }).prepare();
    await fc.assert(
      fc.asyncProperty(batchedCase, ({ policies, batches }) =>
        batchConforms(client, policies, batches, false, 'eval'),
      ),
      { numRuns: 30 },
    );
  });

  it('node-redis on a 3-master Redis Cluster: one identifier’s calls in one FCALL', async () => {
    const client = await throughNodeRedisCluster();
    await fc.assert(
      fc.asyncProperty(batchedCase, ({ policies, batches }) =>
        batchConforms(client, policies, batches, true),
      ),
      { numRuns: 30 },
    );
  });

  it('a 3-master Redis Cluster: one identifier’s policies and operations in one FCALL', async () => {
    const client = connectCluster();
    await fc.assert(
      fc.asyncProperty(batchedCase, ({ policies, batches }) =>
        batchConforms(client, policies, batches, true),
      ),
      { numRuns: 60 },
    );
  });

  it('a 3-master Redis Cluster: one identifier’s turns of one policy (the lean batch)', async () => {
    const client = connectCluster();
    await fc.assert(
      fc.asyncProperty(consumeBatchCase, ({ policies, batches }) =>
        batchConforms(client, policies, batches, true),
      ),
      { numRuns: 60 },
    );
  });
});
