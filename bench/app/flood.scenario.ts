import type { LoadResult } from '../load/load.types.js';
import type { BenchContext } from './bench.context.js';
import { ContenderProcess } from './contender.process.js';
import type { SluiceRule } from './limiters/sluice.limiter.js';
import { redisSnapshot, redisUsage, type RedisUsage } from './redis.stats.js';
import { loadOf } from './throughput.scenario.js';

export const ATTACKERS = 1000;
export const NORMAL_USERS = 100;
/**
 * 20 per 12 s (one every 0.6 s, bursts of 20): a normal user at one request a second never
 * reaches it; an attacker does within seconds, and its first refusal blocks it for 10 minutes.
 */
export const FLOOD_RULE: SluiceRule = {
  algorithm: 'gcra',
  limit: 20,
  periodMs: 12_000,
  penalty: { afterViolations: 1, blockMs: 600_000 },
};
/** Requests per attacker in the warm-up: past the burst, the refill and the first refusal. */
const WARMUP_PER_ATTACKER = 40;
const ATTACKER_CONNECTIONS = 40;
const NORMAL_CONNECTIONS = 10;
const ATTACKERS_ALONE_S = 3;
const NORMAL_WARMUP_S = 2;
/** Each normal user once a second. */
const NORMAL_RATE = NORMAL_USERS;

export interface FloodRun {
  /** Attackers' requests per second once blocked; null: as fast as they are answered. */
  attackerRate: number | null;
  /** The normal users alone, then with the attackers. */
  normalAlone: LoadResult;
  normalUnderFlood: LoadResult;
  attackersUnderFlood: LoadResult;
  /** As fast as answered, until every attacker is blocked. */
  attackerWarmup: LoadResult;
  /** The attackers alone once blocked: Redis's work per attacker request. */
  attackersAlone: { load: LoadResult; redis: RedisUsage };
  /** Decisions sent to Redis per attacker request, once every attacker is blocked (with the normal users). */
  blockedDecisionsPerAttackerRequest: number;
  /** … and over the whole flood, warm-up included. */
  decisionsPerAttackerRequest: number;
}

/**
 * 1000 attacker identifiers hammer the users route while 100 normal users go on at one request
 * a second each: the normal users' p99 with and without the flood, and the Redis calls the
 * attackers cause once blocked (the block cache answers them).
 */
export async function runFlood(context: BenchContext): Promise<FloodRun[]> {
  const { settings, redis } = context;
  const rates: Array<number | null> = [null];
  if (settings.flood.attackerRate !== null) rates.push(settings.flood.attackerRate);
  const runs: FloodRun[] = [];
  for (const attackerRate of rates) {
    await redis.admin.flushall();
    const app = await ContenderProcess.start({
      contender: 'sluice-gcra',
      adapter: 'fastify',
      redisUrl: redis.url,
      rule: FLOOD_RULE,
    });
    try {
      runs.push(await floodOnce(context, app, attackerRate));
    } finally {
      await app.stop();
    }
  }
  return runs;
}

async function floodOnce(
  context: BenchContext,
  app: ContenderProcess,
  attackerRate: number | null,
): Promise<FloodRun> {
  const { settings, redis, load, secondLoad } = context;
  const { durationS } = settings.flood;
  const normal = (seconds: number) =>
    loadOf(
      'users',
      app.url,
      { connections: NORMAL_CONNECTIONS, durationS: seconds, rate: NORMAL_RATE },
      { prefix: 'normal-', count: NORMAL_USERS },
    );
  const attack = (shape: { durationS?: number; amount?: number; rate?: number }) =>
    loadOf(
      'users',
      app.url,
      { connections: ATTACKER_CONNECTIONS, ...shape },
      { prefix: 'attacker-', count: ATTACKERS },
    );
  const rate = attackerRate !== null ? { rate: attackerRate } : {};
  const mgets = async () => (await redisSnapshot(redis.admin)).calls.get('mget') ?? 0;

  await load.run(normal(NORMAL_WARMUP_S));
  const normalAlone = await load.run(normal(durationS));

  const start = await mgets();
  const attackerWarmup = await secondLoad.run(attack({ amount: ATTACKERS * WARMUP_PER_ATTACKER }));
  const aloneBefore = await redisSnapshot(redis.admin);
  const alone = await secondLoad.run(attack({ durationS: ATTACKERS_ALONE_S, ...rate }));
  const aloneAfter = await redisSnapshot(redis.admin);
  const [attackersUnderFlood, normalUnderFlood] = await Promise.all([
    secondLoad.run(attack({ durationS: durationS + 1, ...rate })),
    load.run(normal(durationS)),
  ]);
  const end = await mgets();
  // Every decision reads its state with one MGET; each normal request is one decision.
  const mgetsOnceBlocked =
    (aloneAfter.calls.get('mget') ?? 0) -
    (aloneBefore.calls.get('mget') ?? 0) +
    end -
    (aloneAfter.calls.get('mget') ?? 0) -
    normalUnderFlood.requests;
  const attackerRequests = attackerWarmup.requests + alone.requests + attackersUnderFlood.requests;
  return {
    attackerRate,
    normalAlone,
    normalUnderFlood,
    attackersUnderFlood,
    attackerWarmup,
    attackersAlone: { load: alone, redis: redisUsage(aloneBefore, aloneAfter, alone.requests) },
    blockedDecisionsPerAttackerRequest:
      mgetsOnceBlocked / (alone.requests + attackersUnderFlood.requests),
    decisionsPerAttackerRequest: (end - start - normalUnderFlood.requests) / attackerRequests,
  };
}
