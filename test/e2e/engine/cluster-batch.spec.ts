// On a Redis Cluster the RedisStore batches per master (docs/architecture.md, one request hop by
// hop): the calls of one turn reach each master in one write, one FCALL per slot, and each call
// is decided exactly once, also when a slot has moved since the client read the slot map.
import { Redis, type Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceEngine, type PolicyInput } from '@sluice/nest/internals';
import { RedisStore } from '@sluice/nest/engine';
import { clusterSlot } from '@sluice/nest/src/store/cluster.slot.js';
import { closeAll, connectCluster, connectRedis } from '../../support/redis.clients.js';
import { startRedisCluster, type RedisCluster } from '../../support/redis-servers.js';

const HOUR_MS = 3_600_000;
// A cluster of this file's own: the counts of reads and FCALLs each master reports are its own.
let redisCluster: RedisCluster;
let client: Cluster;
/** A direct connection to each master, by its `host:port`. */
const masters = new Map<string, Redis>();
let prefixCount = 0;

beforeAll(async () => {
  redisCluster = await startRedisCluster({ masters: 3 });
  client = connectCluster(redisCluster.nodes);
  await client.cluster('INFO'); // the slot map is loaded from here on
  for (const node of client.nodes('master')) {
    const { host, port } = node.options;
    masters.set(`${host}:${port}`, connectRedis(`redis://${host}:${port}`));
  }
}, 60_000);
afterAll(async () => {
  await closeAll();
  await redisCluster?.stop();
});

function engineWith(policies: PolicyInput[]) {
  const prefix = `cluster-batch-${++prefixCount}`;
  const engine = new SluiceEngine({ store: new RedisStore(client), prefix, policies });
  return { engine, keyOf: (identifier: string) => `${prefix}:{user:${identifier}}` };
}

interface MasterCounts {
  fcalls: number;
  /** Read events on the server's sockets: a pipeline is one, unless split by the kernel. */
  reads: number;
  /** Calls refused with MOVED: sent to a master that no longer serves their slot. */
  moved: number;
}

async function countsByMaster(): Promise<Map<string, MasterCounts>> {
  const counts = new Map<string, MasterCounts>();
  for (const [address, master] of masters) {
    const info = String(await master.call('INFO', 'stats', 'commandstats', 'errorstats'));
    const field = (pattern: RegExp) => Number(pattern.exec(info)?.[1] ?? 0);
    counts.set(address, {
      fcalls: field(/cmdstat_fcall:calls=(\d+)/),
      reads: field(/total_reads_processed:(\d+)/),
      moved: field(/errorstat_MOVED:count=(\d+)/),
    });
  }
  return counts;
}

/** What each master did between two countsByMaster(), less the INFO that read the second. */
function delta(before: Map<string, MasterCounts>, after: Map<string, MasterCounts>) {
  return [...after].map(([address, now]) => ({
    address,
    fcalls: now.fcalls - (before.get(address)?.fcalls ?? 0),
    reads: now.reads - (before.get(address)?.reads ?? 0) - 1,
    moved: now.moved - (before.get(address)?.moved ?? 0),
  }));
}

/** The master serving `key`, as the server says. */
async function masterOf(key: string): Promise<string> {
  const slot = Number(await client.cluster('KEYSLOT', key));
  const ranges = await client.cluster('SLOTS');
  const master = ranges.find(([from, to]) => from <= slot && slot <= to)?.[2];
  if (master === undefined) throw new Error(`no master serves slot ${slot}`);
  return `${master[0]}:${master[1]}`;
}

describe('a Redis Cluster: calls batched per master', () => {
  it('computes the slot of a key as the server does', async () => {
    const keys = [
      'plain',
      'sluice:{ip:203.0.113.7}',
      'a{}b',
      '{x}{y}',
      'user:{é-ü}',
      '日本:{用户}',
    ];
    for (const key of keys) {
      expect(clusterSlot(key), key).toBe(Number(await client.cluster('KEYSLOT', key)));
    }
  });

  it('40 calls on one identifier at once: exactly 30 admitted, in one FCALL', async () => {
    const { engine } = engineWith([
      { name: 'api', algorithm: 'fixed-window', limit: 30, periodMs: HOUR_MS },
    ]);
    await engine.consume('api', 'warm-up'); // the library is loaded on the masters first

    const before = await countsByMaster();
    const decisions = await Promise.all(
      Array.from({ length: 40 }, () => engine.consume('api', 'busy')),
    );
    const done = delta(before, await countsByMaster());

    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(30);
    expect(decisions.slice(30).every((decision) => decision.reason === 'limit')).toBe(true);
    expect(done.reduce((sum, master) => sum + master.fcalls, 0)).toBe(1);
  });

  it('two calls on each of 45 identifiers: one write per master, one FCALL per slot, one admitted each', async () => {
    const { engine, keyOf } = engineWith([
      { name: 'api', algorithm: 'gcra', limit: 1, periodMs: HOUR_MS },
    ]);
    await engine.consume('api', 'warm-up');
    const identifiers = Array.from({ length: 45 }, (_, index) => `user-${index}`);
    const slotsByMaster = new Map<string, Set<number>>();
    const callsByMaster = new Map<string, number>();
    for (const identifier of identifiers) {
      const master = await masterOf(keyOf(identifier));
      const slots = slotsByMaster.get(master) ?? new Set<number>();
      slots.add(clusterSlot(keyOf(identifier)));
      slotsByMaster.set(master, slots);
      callsByMaster.set(master, (callsByMaster.get(master) ?? 0) + 2);
    }
    // Each master's calls fit in one send (64 at most), so each gets one pipeline.
    expect(Math.max(...callsByMaster.values())).toBeLessThanOrEqual(64);

    const before = await countsByMaster();
    const decisions = await Promise.all(
      identifiers.flatMap((identifier) => [
        engine.consume('api', identifier),
        engine.consume('api', identifier),
      ]),
    );
    const done = delta(before, await countsByMaster());

    for (let index = 0; index < identifiers.length; index++) {
      const pair = decisions.slice(2 * index, 2 * index + 2).map((decision) => decision.allowed);
      expect(pair, identifiers[index]).toEqual([true, false]);
    }
    expect(slotsByMaster.size).toBe(3);
    for (const master of done) {
      expect(master.fcalls, master.address).toBe(slotsByMaster.get(master.address)?.size);
      expect(master.reads, master.address).toBeLessThanOrEqual(2);
    }
  });

  it('a slot moved since the client read the map: its calls follow it, the others run once', async () => {
    const { engine, keyOf } = engineWith([
      { name: 'api', algorithm: 'fixed-window', limit: 10, periodMs: HOUR_MS },
    ]);
    await engine.consume('api', 'warm-up');
    // Two identifiers on one master, the first in a slot that holds no key, so it may move.
    let moving = '';
    let staying = '';
    let from = '';
    for (let index = 0; staying === ''; index++) {
      const identifier = `id-${index}`;
      const master = await masterOf(keyOf(identifier));
      const slot = clusterSlot(keyOf(identifier));
      const keysInSlot = Number(await masters.get(master)?.cluster('COUNTKEYSINSLOT', slot));
      if (moving === '' && keysInSlot === 0) [moving, from] = [identifier, master];
      else if (moving !== '' && master === from && slot !== clusterSlot(keyOf(moving))) {
        staying = identifier;
      }
    }
    const to = [...masters.keys()].find((address) => address !== from) as string;
    const toId = String(await masters.get(to)?.cluster('MYID'));
    const slot = clusterSlot(keyOf(moving));
    // An empty slot may be handed over directly; the client's map still puts it on `from`.
    await masters.get(from)?.cluster('SETSLOT', slot, 'NODE', toId);
    await masters.get(to)?.cluster('SETSLOT', slot, 'NODE', toId);

    const before = await countsByMaster();
    const decisions = await Promise.all(
      [moving, moving, moving, staying, staying, staying].map((identifier) =>
        engine.consume('api', identifier),
      ),
    );
    const done = delta(before, await countsByMaster());

    expect(decisions.map((decision) => decision.allowed)).toEqual(Array(6).fill(true));
    expect(decisions.map((decision) => decision.remaining)).toEqual([9, 8, 7, 9, 8, 7]);
    expect((await engine.peek('api', moving)).remaining).toBe(7);
    expect((await engine.peek('api', staying)).remaining).toBe(7);
    // The old master refused the moved slot's FCALL (MOVED), which ran nothing; each
    // identifier's three calls ran in one FCALL.
    expect(done.find((master) => master.address === from)?.moved).toBeGreaterThanOrEqual(1);
    expect(done.find((master) => master.address === from)?.fcalls).toBe(1);
    expect(done.find((master) => master.address === to)?.fcalls).toBe(1);
    expect(Number(await masters.get(to)?.cluster('COUNTKEYSINSLOT', slot))).toBeGreaterThan(0);
  });

  it('one slot failing in a pipeline fails its calls alone: the others run and count', async () => {
    const { engine, keyOf } = engineWith([
      { name: 'api', algorithm: 'gcra', limit: 10, periodMs: HOUR_MS },
      { name: 'log', algorithm: 'sliding-log', limit: 10, periodMs: HOUR_MS },
    ]);
    await engine.consume('api', 'warm-up');
    // Two identifiers on one master, in different slots.
    const fine = 'fine-0';
    const master = await masterOf(keyOf(fine));
    let broken = '';
    for (let index = 0; broken === ''; index++) {
      const candidate = `broken-${index}`;
      const sameMaster = (await masterOf(keyOf(candidate))) === master;
      if (sameMaster && clusterSlot(keyOf(candidate)) !== clusterSlot(keyOf(fine))) {
        broken = candidate;
      }
    }
    // Someone else's string where the sliding log keeps its sorted set: its FCALL fails.
    await client.set(`${keyOf(broken)}:log:sl`, 'not a sorted set');

    const before = await countsByMaster();
    const [ok, failed] = await Promise.allSettled([
      engine.consume('api', fine),
      engine.consume('log', broken),
    ]);
    const done = delta(before, await countsByMaster());

    expect(failed.status).toBe('rejected');
    expect(ok).toMatchObject({ status: 'fulfilled', value: { allowed: true, remaining: 9 } });
    expect((await engine.peek('api', fine)).remaining).toBe(9);
    expect(done.find((each) => each.address === master)?.reads).toBeLessThanOrEqual(2);
  });
});
