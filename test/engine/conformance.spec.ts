import fc from 'fast-check';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ceilDiv } from '../../libs/sluice/src/algorithms/integer-math.js';
import {
  ALGORITHMS,
  parsePolicy,
  type AlgorithmName,
  type Operation,
  type Policy,
  type PolicySpec,
  type StoreCall,
} from '../../libs/sluice/src/internals.js';
import { capacity } from '../../libs/sluice/src/policy/policy.schema.js';
import { toPolicySpec } from '../../libs/sluice/src/engine/policy-spec.js';
import { runOperation } from '../../libs/sluice/src/store/operations.js';
import { loadLuaLibrary } from '../../libs/sluice/src/store/script.source.js';
import { decodeReply, encodeSpec } from '../../libs/sluice/src/store/spec.codec.js';
import { closeAll, connectCluster, connectRedis } from '../support/redis.clients.js';

/**
 * The Lua scripts and their TypeScript twins are one function of (state, now, request): random
 * request sequences at injected times must get identical answers, to the µs, leave identical
 * state behind, and give every written key the TTL the twin computes.
 */
const PERIODS_MS = [1, 7, 250, 1_000, 60_000, 86_400_000];
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
  ),
  identifier: fc.constantFrom(...IDENTIFIERS),
  /** Fraction of the first policy's period to let pass before this step. */
  gap: fc.oneof(
    fc.constant(0),
    fc.double({ min: 0, max: 0.2, noNaN: true }),
    fc.double({ min: 0, max: 3, noNaN: true }),
  ),
  costShare: fc.double({ min: 0, max: 1, noNaN: true }),
  blockShare: fc.double({ min: 0, max: 2, noNaN: true }),
});

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** The spec the engine would send for this identifier: its override's limit, the request's cost. */
function specFor(policy: Policy, identifier: string, costShare: number): PolicySpec {
  const limit = policy.overrides.find((o) => o.identifier === identifier)?.limit ?? policy.limit;
  const room = capacity(policy.algorithm, limit, policy.burst);
  return toPolicySpec(policy, limit, 1 + Math.floor(costShare * (room - 1)));
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
      return { window: numbers[0], count: numbers[1] };
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

async function conforms(client: Redis | Cluster, policies: Policy[], steps: Step[]): Promise<void> {
  script ??= snapshotScript();
  const prefix = `conf${process.pid}-${run++}`;
  let now = 1_700_000_000_000_000 + run * 86_400_000_000;
  const firstPeriod = (policies[0] as Policy).periodMs * 1000;
  for (const [index, request] of steps.entries()) {
    now += Math.floor(request.gap * firstPeriod);
    const specs = policies.map((policy) => specFor(policy, request.identifier, request.costShare));
    const cost = Math.min(...specs.map((spec) => spec.cost));
    const call: StoreCall = {
      op: request.op,
      key: `${prefix}:{user:${request.identifier}}`,
      specs: specs.map((spec) => ({ ...spec, cost })),
      durationMs: Math.max(1, Math.round(request.blockShare * (policies[0] as Policy).periodMs)),
    };
    const args = [call.op, String(now), String(call.durationMs), ...call.specs.map(encodeSpec)];
    const [before, reply, after] = (await client.eval(script, 1, call.key, ...args)) as [
      Snapshot,
      unknown,
      Snapshot,
    ];
    const states = decodeAll(call.specs, before);
    const ttls = new Map<string, number>();
    const twin = runOperation(
      {
        get: <T>(key: string) => states.get(key) as T | undefined,
        set: (key, value, ttl) => {
          if (ttl <= 0) states.delete(key);
          else states.set(key, value);
          ttls.set(key, ttl);
        },
        delete: (key) => states.delete(key),
      },
      call,
      now,
    );
    const context = `step ${index}: ${JSON.stringify(call)}`;
    expect(decodeReply(reply, call.specs.length), context).toEqual(twin);
    // Redis counts expiry in whole milliseconds from a clock it caches, so a key written with a
    // 1 ms TTL can be gone by the end of the very script that wrote it.
    const stored = decodeAll(call.specs, after);
    for (const [key, ttl] of ttls) {
      if (ttl > 0 && ttl <= 1000 && !stored.has(key)) states.delete(key);
    }
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

afterAll(closeAll);

describe.each([
  { target: 'a single Redis server', connect: () => connectRedis(), runs: 120 },
  { target: 'a 3-master Redis Cluster', connect: () => connectCluster(), runs: 40 },
])('Lua and TypeScript twins on $target', ({ connect, runs }) => {
  const client = connect();

  it.each(ALGORITHMS)('%s: identical decisions and figures', async (algorithm) => {
    await fc.assert(
      fc.asyncProperty(algorithmPolicy(algorithm, 'p'), stepsArbitrary, (policy, steps) =>
        conforms(client, [policy], steps),
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
