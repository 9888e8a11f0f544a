// A refusal charges nothing (docs/architecture.md, rules of the hot path): the only state it may
// change is the violation count of a policy with a `penalty`. Checked byte for byte with DUMP on
// a real Redis.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  SluiceEngine,
  type AlgorithmName,
  type PolicyInput,
} from '@sluice/nest/internals';
import { ALGORITHM_CODES } from '@sluice/nest/src/algorithms/algorithm.types.js';
import { RedisStore } from '@sluice/nest/engine';
import { minuteClock } from '../../support/minute.clock.js';
import { closeAll, connectRedis, filePrefixes } from '../../support/redis.clients.js';

interface KeyState {
  dump: Buffer;
  pttl: number;
}

interface Snapshot {
  keys: Map<string, KeyState>;
  /** Client time before the snapshot was taken, ms. */
  takenAt: number;
}

const prefixes = filePrefixes('rif');
let redis: Redis;

beforeAll(() => {
  redis = connectRedis();
});
afterAll(async () => {
  await prefixes.removeAll(redis);
  await closeAll();
});

async function scanKeys(pattern: string): Promise<string[]> {
  const keys = new Set<string>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    for (const key of batch) keys.add(key);
    cursor = next;
  } while (cursor !== '0');
  return [...keys].sort();
}

/** DUMP and PTTL of every key under `base`, read in one transaction. */
async function snapshot(base: string): Promise<Snapshot> {
  const takenAt = Date.now();
  const keys = await scanKeys(`${base}*`);
  const multi = redis.multi();
  for (const key of keys) multi.dumpBuffer(key).pttl(key);
  const replies = (await multi.exec()) ?? [];
  const states = new Map<string, KeyState>();
  keys.forEach((key, index) => {
    const [dumpError, dump] = replies[index * 2] ?? [];
    const [pttlError, pttl] = replies[index * 2 + 1] ?? [];
    if (dumpError || pttlError) throw (dumpError ?? pttlError) as Error;
    // A key that expired between SCAN and the transaction reads as null / -2.
    if (dump !== null) states.set(key, { dump: dump as Buffer, pttl: pttl as number });
  });
  return { keys: states, takenAt };
}

/** Every key of `before` is in `after` with the same bytes and a TTL that only ran down. */
function expectUnchanged(
  before: Snapshot,
  after: Snapshot,
  except: (key: string) => boolean = () => false,
): void {
  const elapsed = Date.now() - before.takenAt;
  const kept = (snap: Snapshot) => [...snap.keys.keys()].filter((key) => !except(key));
  expect(kept(after)).toEqual(kept(before));
  for (const key of kept(before)) {
    const was = before.keys.get(key) as KeyState;
    const now = after.keys.get(key) as KeyState;
    expect(now.dump.equals(was.dump), `DUMP of ${key} changed`).toBe(true);
    expect(now.pttl, `PTTL of ${key}`).toBeGreaterThan(0);
    expect(now.pttl, `PTTL of ${key} grew`).toBeLessThanOrEqual(was.pttl);
    expect(
      was.pttl - now.pttl,
      `PTTL of ${key} fell by more than the time passed`,
    ).toBeLessThanOrEqual(elapsed + 1);
  }
}

function setup(policies: PolicyInput[]): { engine: SluiceEngine; prefix: string } {
  const prefix = prefixes.next();
  const store = new RedisStore(redis, { clock: minuteClock() });
  const engine = new SluiceEngine({ store, prefix, policies });
  return { engine, prefix };
}

/** A minute-long policy, so nothing refills or slides out while a test runs. */
function policyFor(algorithm: AlgorithmName, name: string, limit = 4): PolicyInput {
  return { name, algorithm, limit, periodMs: 60_000, key: 'user' };
}

/** Consumes until the first rejection would come; returns how many were admitted. */
async function fill(
  engine: SluiceEngine,
  names: string | string[],
  identifier: string,
): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < 50; i++) {
    const decision = await engine.peek(names, identifier);
    if (!decision.allowed) return admitted;
    expect((await engine.consume(names, identifier)).allowed).toBe(true);
    admitted += 1;
  }
  throw new Error(`${String(names)} never filled up`);
}

describe('a rejected request leaves Redis byte-identical', () => {
  describe.each(ALGORITHMS)('%s', (algorithm) => {
    it('at the limit: the rejected consume changes no key', async () => {
      const { engine, prefix } = setup([policyFor(algorithm, 'only')]);
      const base = `${prefix}:{user:alice}`;
      expect(await fill(engine, 'only', 'alice')).toBeGreaterThanOrEqual(4);

      const before = await snapshot(base);
      expect([...before.keys.keys()]).toEqual([`${base}:only:${ALGORITHM_CODES[algorithm]}`]);
      for (let i = 0; i < 3; i++) {
        const decision = await engine.consume('only', 'alice');
        expect(decision.allowed).toBe(false);
        expect(decision.reason).toBe('limit');
      }
      expectUnchanged(before, await snapshot(base));
    });

    it('with room for less than the cost: the rejected consume charges nothing', async () => {
      const { engine, prefix } = setup([policyFor(algorithm, 'only', 6)]);
      const base = `${prefix}:{user:bob}`;
      // Charge one unit at a time while two more would still fit: that leaves room for one at
      // most (leaky-bucket admits by queue wait, not room, so it ends up simply full).
      let charged = 0;
      while ((await engine.peek('only', 'bob', { cost: 2 })).allowed) {
        expect((await engine.consume('only', 'bob')).allowed).toBe(true);
        charged += 1;
        expect(charged).toBeLessThan(20);
      }
      const oneFits = (await engine.peek('only', 'bob', { cost: 1 })).allowed;
      if (algorithm !== 'leaky-bucket') expect(oneFits).toBe(true);

      const before = await snapshot(base);
      const decision = await engine.consume('only', 'bob', { cost: 2 });
      expect(decision.allowed).toBe(false);
      expectUnchanged(before, await snapshot(base));
      // ...and the unit of room is still there
      expect((await engine.consume('only', 'bob', { cost: 1 })).allowed).toBe(oneFits);
    });

    it('peek on a full key changes nothing either', async () => {
      const { engine, prefix } = setup([policyFor(algorithm, 'only')]);
      const base = `${prefix}:{user:carol}`;
      await fill(engine, 'only', 'carol');
      const before = await snapshot(base);
      expect((await engine.peek('only', 'carol')).allowed).toBe(false);
      expect((await engine.peek('only', 'carol', { cost: 3 })).allowed).toBe(false);
      expectUnchanged(before, await snapshot(base));
    });
  });

  it('several policies, one rejects: none of the others is charged', async () => {
    const others = ALGORITHMS.map((algorithm) => policyFor(algorithm, `p-${algorithm}`, 10));
    const tight = { name: 'tight', algorithm: 'fixed-window', limit: 2, periodMs: 60_000 } as const;
    const { engine, prefix } = setup([...others, tight]);
    const names = [...others.map((p) => p.name), 'tight'];
    const base = `${prefix}:{user:dave}`;

    expect((await engine.consume(names, 'dave')).allowed).toBe(true);
    expect((await engine.consume(names, 'dave')).allowed).toBe(true);
    const before = await snapshot(base);
    expect(before.keys.size).toBe(names.length);

    for (let i = 0; i < 3; i++) {
      const decision = await engine.consume(names, 'dave');
      expect(decision.allowed).toBe(false);
      expect(decision.policy).toBe('tight');
      expect(decision.policies.filter((p) => !p.allowed).map((p) => p.policy)).toEqual(['tight']);
    }
    expectUnchanged(before, await snapshot(base));
    // the other policies still have exactly what two requests left them
    for (const policy of others) {
      const alone = await engine.peek(policy.name, 'dave');
      expect(alone.allowed, policy.name).toBe(true);
    }
  });

  it('several policies, one rejects: policies never used before get no key', async () => {
    const fresh = ALGORITHMS.map((algorithm) => policyFor(algorithm, `f-${algorithm}`));
    const tight = { name: 'tight', algorithm: 'gcra', limit: 1, periodMs: 60_000 } as const;
    const { engine, prefix } = setup([...fresh, tight]);
    const base = `${prefix}:{user:erin}`;
    expect((await engine.consume('tight', 'erin')).allowed).toBe(true);

    const before = await snapshot(base);
    expect([...before.keys.keys()]).toEqual([`${base}:tight:gc`]);
    const decision = await engine.consume([...fresh.map((p) => p.name), 'tight'], 'erin');
    expect(decision.allowed).toBe(false);
    expectUnchanged(before, await snapshot(base));
  });

  it('with a penalty policy: only its :p key changes', async () => {
    const penalised: PolicyInput = {
      ...policyFor('sliding-log', 'strict', 2),
      penalty: { afterViolations: 3, blockMs: 60_000 },
    };
    const roomy: PolicyInput = {
      ...policyFor('token-bucket', 'roomy', 100),
      penalty: { afterViolations: 1, blockMs: 60_000 },
    };
    const { engine, prefix } = setup([penalised, policyFor('fixed-window', 'plain', 100), roomy]);
    const names = ['strict', 'plain', 'roomy'];
    const base = `${prefix}:{user:frank}`;
    const penaltyKey = `${base}:strict:p`;
    const isPenaltyKey = (key: string) => key === penaltyKey;

    expect(await fill(engine, names, 'frank')).toBe(2);
    let before = await snapshot(base);
    expect([...before.keys.keys()]).toEqual([
      `${base}:plain:fw`,
      `${base}:roomy:tb`,
      `${base}:strict:sl`,
    ]);

    // Two violations: counted in :p, nothing else moves.
    const dumps: Buffer[] = [];
    for (let i = 1; i <= 2; i++) {
      const decision = await engine.consume(names, 'frank');
      expect(decision.allowed).toBe(false);
      expect(decision.reason).toBe('limit');
      expect(decision.blocked).toBeUndefined();
      const after = await snapshot(base);
      expectUnchanged(before, after, isPenaltyKey);
      const penalty = after.keys.get(penaltyKey);
      expect(penalty, 'the violation is recorded').toBeDefined();
      dumps.push((penalty as KeyState).dump);
      before = after;
    }
    expect(dumps[0]?.equals(dumps[1] as Buffer), 'the second violation is counted').toBe(false);
    // "<blockedUntil> <offence> <violations> <since>"
    expect(String(await redis.get(penaltyKey)).split(' ')[2]).toBe('2');
    // The roomy policy admitted, so its own penalty was not touched.
    expect(before.keys.has(`${base}:roomy:p`)).toBe(false);

    // The third starts the block; still only :p changes.
    const third = await engine.consume(names, 'frank');
    expect(third.allowed).toBe(false);
    expect(third.blocked?.offence).toBe(1);
    const blocked = await snapshot(base);
    expectUnchanged(before, blocked, isPenaltyKey);
    expect(
      blocked.keys.get(penaltyKey)?.dump.equals(before.keys.get(penaltyKey)?.dump as Buffer),
    ).toBe(false);

    // While blocked, a request is rejected without touching anything, :p included.
    const whileBlocked = await engine.consume(names, 'frank');
    expect(whileBlocked.allowed).toBe(false);
    expect(whileBlocked.reason).toBe('blocked');
    expectUnchanged(blocked, await snapshot(base));
  });

  it('a manually blocked identifier is rejected without any key changing', async () => {
    const { engine, prefix } = setup(
      ALGORITHMS.map((algorithm) => policyFor(algorithm, algorithm)),
    );
    const base = `${prefix}:{user:gina}`;
    for (const algorithm of ALGORITHMS) await engine.consume(algorithm, 'gina');
    await engine.block('gcra', 'gina', 60_000);
    const before = await snapshot(base);
    expect(before.keys.has(`${base}:gcra:p`)).toBe(true);
    const decision = await engine.consume([...ALGORITHMS], 'gina');
    expect(decision.allowed).toBe(false);
    expect(decision.reason).toBe('blocked');
    expectUnchanged(before, await snapshot(base));
  });
});
