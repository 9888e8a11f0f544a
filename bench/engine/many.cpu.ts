/**
 * Issue 51's Redis target alone, in about a minute: Redis main-thread CPU per decision of gcra and
 * fixed-window (the engine over RedisStore), and of gcra in eventual mode, against
 * rate-limiter-flexible's `consume`, on 10 000 identifiers, 128 in flight on one connection, the
 * four alternating, the order reversed every other round. A quicker loop than
 * `npm run bench:engine` for changing the Lua; that bench's figures are the ones
 * docs/benchmarks.md judges. `npx tsx bench/engine/many.cpu.ts` (BENCH_ROUNDS, 7; BENCH_EXTRA_KEYS,
 * 0: that many other keys written first; SHOW=1: each run).
 */
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { SluiceEngine, RedisStore } from '../../libs/sluice/src/engine/index.js';
import { measure, spread, waitForQuiet, type Call } from './measure.js';
import { startRedisServer } from '../../test/support/redis-servers.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : 7;
const IDENTIFIERS = 10_000;
const SHAPE = { inFlight: 128, durationMs: 800 };

const server = await startRedisServer();
const client = new Redis(server.url);
const admin = new Redis(server.url);
try {
  const ids = Array.from({ length: IDENTIFIERS }, (_, i) => `10.1.${(i >> 8) & 255}.${i & 255}`);
  const engine = new SluiceEngine({
    store: new RedisStore(client),
    policies: [
      { name: 'gcra', algorithm: 'gcra', limit: 1_000_000, periodMs: 60_000, key: 'ip' },
      {
        name: 'fixed-window',
        algorithm: 'fixed-window',
        limit: 1_000_000,
        periodMs: 60_000,
        key: 'ip',
      },
    ],
  });
  const eventual = new SluiceEngine({
    store: new RedisStore(client),
    prefix: 'eventual',
    policies: [
      {
        name: 'gcra',
        algorithm: 'gcra',
        limit: 1_000_000,
        periodMs: 60_000,
        key: 'ip',
        consistency: 'eventual',
      },
    ],
  });
  const flexible = new RateLimiterRedis({
    storeClient: client,
    keyPrefix: 'rlf',
    points: 1_000_000_000,
    duration: 3600,
  });
  const contenders: Array<[string, 'fcall' | 'evalsha', Call]> = [
    ['gcra', 'fcall', (i) => engine.consume('gcra', ids[i % IDENTIFIERS]!).then((d) => d.allowed)],
    [
      'fixed-window',
      'fcall',
      (i) => engine.consume('fixed-window', ids[i % IDENTIFIERS]!).then((d) => d.allowed),
    ],
    [
      'gcra, eventual',
      'fcall',
      (i) => eventual.consume('gcra', ids[i % IDENTIFIERS]!).then((d) => d.allowed),
    ],
    [
      'rate-limiter-flexible',
      'evalsha',
      (i) => flexible.consume(ids[i % IDENTIFIERS]!).then((r) => r.remainingPoints > 0),
    ],
  ];
  // Keys of other contenders, as the judged bench's Redis holds them (about 10 per identifier).
  const extra = Number(process.env.BENCH_EXTRA_KEYS) > 0 ? Number(process.env.BENCH_EXTRA_KEYS) : 0;
  for (let i = 0; i < extra; i += 1000) {
    const batch = admin.pipeline();
    for (let k = i; k < Math.min(extra, i + 1000); k++) batch.set(`extra:${k}`, 'x', 'EX', 3600);
    await batch.exec();
  }
  const quiet = await waitForQuiet(10);
  console.log(`other processes at start: ${quiet.otherCores.toFixed(2)} cores`);
  for (const [, command, call] of contenders) {
    await measure(admin, command, call, { inFlight: 128, calls: 3 * IDENTIFIERS });
  }
  const cpu = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
  const others: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const [name, command, call] of order) {
      const run = await measure(admin, command, call, SHAPE);
      if (run.rejected > 0) throw new Error(`${name}: ${run.rejected} refused`);
      cpu.get(name)!.push(run.redisCpuUs);
      if (process.env.SHOW)
        console.log(name, run.scriptCallsPerCall.toFixed(3), run.redisCpuUs.toFixed(2));
      others.push(run.otherCores);
    }
  }
  const peer = spread(cpu.get('rate-limiter-flexible')!).median;
  for (const [name, values] of cpu) {
    const s = spread(values);
    console.log(
      `${name.padEnd(22)} ${s.median.toFixed(2)} µs (${s.min.toFixed(2)}–${s.max.toFixed(2)}) of Redis CPU a decision, ${(s.median / peer).toFixed(2)}× rate-limiter-flexible`,
    );
  }
  const o = spread(others);
  console.log(
    `other processes: ${o.median.toFixed(2)} cores (${o.min.toFixed(2)}–${o.max.toFixed(2)})`,
  );
} finally {
  client.disconnect();
  admin.disconnect();
  await server.stop();
}
