import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ManualClock,
  parsePolicy,
  type AlgorithmName,
  type PolicyInput,
} from '@sluice/nest/internals';
import { EventualStore, RedisStore, type SluiceStore } from '@sluice/nest/engine';
import { toPolicySpec } from '@sluice/nest/src/engine/policy-spec.js';
import type { PolicySpec } from '@sluice/nest/src/store/store.types.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';

/**
 * consistency: 'eventual' against real Redis (docs/algorithms.md, eventual consistency): three
 * instances, each an EventualStore over its own RedisStore, send three times the limit. Time is a
 * shared manual clock and the syncs are made by hand every five requests per instance (a 50 ms
 * interval at 100 requests a second each), so the bound is exact and nothing waits.
 */

const INSTANCES = 3;
const LIMIT = 30;
const PER_SYNC = 5;
const STEP_US = 10_000;
const ALGORITHMS: AlgorithmName[] = [
  'fixed-window',
  'sliding-window',
  'sliding-log',
  'token-bucket',
  'gcra',
];

afterAll(closeAll);

function eventual(algorithm: AlgorithmName, input: Partial<PolicyInput> = {}): PolicySpec {
  const policy = parsePolicy({
    name: 'reply',
    algorithm,
    limit: LIMIT,
    // A day: no window ends and no unit refills within the run.
    periodMs: 86_400_000,
    consistency: 'eventual',
    syncMs: 50,
    ...input,
  });
  return toPolicySpec(policy, policy.limit, policy.cost);
}

/** Instances sharing one Redis and one clock, started at the beginning of a day. */
function instances(client: Redis | Cluster) {
  const clock = new ManualClock(1_700_006_400_000_000 + 1_000);
  const schedule = () => () => undefined;
  const stores = Array.from({ length: INSTANCES }, () => {
    const redis = new RedisStore(client, { clock: clock.now });
    return new EventualStore(redis, { clock: clock.now, schedule });
  });
  return { clock, stores };
}

const consume = (store: SluiceStore, key: string, spec: PolicySpec) =>
  store.run({ op: 'consume', key, specs: [spec] });

describe.each([
  ['a single Redis', () => connectRedis()],
  ['a 3-master Redis Cluster', () => connectCluster()],
] as const)('eventual consistency on %s', (_, connect) => {
  const client = connect();

  it.each(ALGORITHMS)(
    '%s: three instances at three times the limit admit the limit and at most one interval each beyond it',
    async (algorithm) => {
      const { clock, stores } = instances(client);
      const key = `ev-${randomUUID()}:{user:ann}`;
      const spec = eventual(algorithm);
      let admitted = 0;
      for (let round = 1; round * INSTANCES <= 3 * LIMIT; round++) {
        for (const store of stores) if ((await consume(store, key, spec)).admitted) admitted++;
        clock.advance(STEP_US);
        if (round % PER_SYNC === 0) await Promise.all(stores.map((store) => store.flush()));
      }
      await Promise.all(stores.map((store) => store.close()));
      expect(admitted).toBeGreaterThanOrEqual(LIMIT);
      expect(admitted).toBeLessThanOrEqual(LIMIT + INSTANCES * PER_SYNC);
      // Redis asked twice per instance: the first request is only seen, the second teaches the
      // view; the rest was decided locally.
      expect(stores.map((store) => store.counts.exact)).toEqual([2, 2, 2]);
      // Every unit that fitted reached Redis: nothing is left.
      const after = await new RedisStore(client, { clock: clock.now }).run({
        op: 'peek',
        key,
        specs: [spec],
      });
      expect(after.outcomes[0]!.remaining).toBe(0);
    },
  );

  it('charges a sync only as far as there is room, and never counts it as a violation', async () => {
    const { clock } = instances(client);
    const redis = new RedisStore(client, { clock: clock.now });
    const key = `ev-${randomUUID()}:{user:ann}`;
    const spec = eventual('fixed-window', { penalty: { afterViolations: 1, blockMs: 60_000 } });
    const synced = await redis.run({ op: 'sync', key, specs: [{ ...spec, cost: LIMIT + 12 }] });
    expect(synced.outcomes[0]).toMatchObject({ allowed: true, remaining: 0, blockedUntil: 0 });
    const next = await redis.run({ op: 'consume', key, specs: [spec] });
    // Refused by the rate, and only now is a violation counted: the block starts here.
    expect(next.outcomes[0]).toMatchObject({ reason: 'limit', blockStarted: true });
  });

  it("says a quota's credits while deciding locally, and drops them when the period ends", async () => {
    const { clock, stores } = instances(client);
    const store = stores[0]!;
    const key = `ev-${randomUUID()}:{user:ann}`;
    const spec = eventual('fixed-window');
    await new RedisStore(client, { clock: clock.now }).run({
      op: 'grant',
      key,
      specs: [spec],
      amount: 7,
    });
    await consume(store, key, spec);
    const exact = await consume(store, key, spec);
    const local = await consume(store, key, spec);
    expect(store.counts.exact).toBe(2);
    expect(exact.outcomes[0]).toMatchObject({ granted: 7, remaining: LIMIT + 7 - 2 });
    expect(local.outcomes[0]).toMatchObject({ granted: 7, remaining: LIMIT + 7 - 3 });
    await store.flush();
    clock.advance(86_400_000_000);
    const nextDay = await consume(store, key, spec);
    expect(nextDay.outcomes[0]).toMatchObject({ granted: 0, remaining: LIMIT - 1 });
    await store.close();
  });

  it('brings a block set through one instance to another with its next sync', async () => {
    const { stores } = instances(client);
    const [first, second] = stores as [EventualStore, EventualStore];
    const key = `ev-${randomUUID()}:{user:ann}`;
    const spec = eventual('gcra');
    await consume(second, key, spec);
    await consume(second, key, spec);
    await first.run({ op: 'block', key, specs: [spec], durationMs: 60_000 });
    expect((await consume(second, key, spec)).admitted).toBe(true);
    await second.flush();
    const refused = await consume(second, key, spec);
    expect(refused.outcomes[0]!.reason).toBe('blocked');
    // Both requests before the block went to Redis (the first only seen); both after, not.
    expect(second.counts.exact).toBe(2);
  });
});
