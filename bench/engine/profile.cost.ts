/**
 * What the traffic profile and the replay's record cost per request (docs/algorithms.md,
 * "Traffic profiles", "Replay"): the identifier tally counts simulated traffic, 5 000 requests a
 * second for 3 minutes of a manual clock, flushed once a simulated second into a Redis of its
 * own, with both and without either.
 * App CPU per request is the difference of the two runs' process CPU (counting and flushing,
 * the same decisions), Redis CPU per request the main thread's CPU the profile's calls took
 * (INFO cpu around the profile run, less the run without it). One address, 1 000 and 10 000
 * identifiers, a policy of a minute and one of a second. `npm run bench:profile` (BENCH_ROUNDS, 5); printed, and
 * quoted in docs/benchmarks.md.
 */
import { Redis } from 'ioredis';
import { ManualClock, PolicyRegistry } from '../../libs/sluice/src/internals.js';
import type { Decision } from '../../libs/sluice/src/engine/decision.js';
import { IdentifierTally } from '../../libs/sluice/src/stats/identifier.tally.js';
import { LocalIdentifierStats } from '../../libs/sluice/src/stats/local-identifier.stats.js';
import { RedisTrafficProfile } from '../../libs/sluice/src/stats/redis-traffic.profile.js';
import { RedisReplayStore } from '../../libs/sluice/src/stats/redis-replay.store.js';
import { seededRandom } from '../../libs/sluice/src/testing/seeded-random.fixture.js';
import { startRedisServer } from '../../test/support/redis-servers.js';
import { redisCpuNow, spread } from './measure.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : 5;
const PER_SECOND = 5_000;
const SECONDS = 180;
const SHAPES = [1, 1_000, 10_000];
/** A policy of a minute, and of a second: every second a window to fold. */
const PERIODS_MS = [60_000, 1_000];

const server = await startRedisServer();
const admin = new Redis(server.url);

const ok = {
  allowed: true,
  policy: 'api',
  algorithm: 'fixed-window' as const,
  limit: 100,
  remaining: 1,
  resetMs: 1,
  retryAfterMs: 0,
  delayMs: 0,
  reason: 'ok' as const,
};
const decision: Decision = { ...ok, policies: [ok] };

/** One run: app CPU µs and Redis CPU µs per request. */
async function run(identifiers: number, periodMs: number, withProfile: boolean, round: number) {
  const clock = new ManualClock(1_800_000_000_000_000);
  const policies = new PolicyRegistry();
  policies.set({ name: 'api', algorithm: 'fixed-window', limit: 100, periodMs });
  const client = new Redis(server.url);
  const profile = withProfile
    ? new RedisTrafficProfile(client, `bench-${round}-${identifiers}-${periodMs}`)
    : undefined;
  const replays = withProfile
    ? new RedisReplayStore(client, `bench-${round}-${identifiers}-${periodMs}`)
    : undefined;
  const tally = new IdentifierTally(
    new LocalIdentifierStats(clock.now),
    clock.now,
    profile,
    policies,
    replays,
  );
  const names = Array.from(
    { length: identifiers },
    (_, at) => `10.${at >> 16}.${(at >> 8) & 255}.${at & 255}`,
  );
  const random = seededRandom(round + 1);
  const redisBefore = await redisCpuNow(admin);
  const appBefore = process.cpuUsage();
  for (let second = 0; second < SECONDS; second++) {
    for (let n = 0; n < PER_SECOND; n++) {
      clock.advance(1_000_000 / PER_SECOND);
      tally.count(decision, 'ip', names[Math.floor(random() * identifiers)] as string);
    }
    await tally.flush();
  }
  const app = process.cpuUsage(appBefore);
  const redis = (await redisCpuNow(admin)) - redisBefore;
  client.disconnect();
  const requests = PER_SECOND * SECONDS;
  return { app: (app.user + app.system) / requests, redis: (redis * 1e6) / requests };
}

console.log(`${PER_SECOND} requests a second for ${SECONDS} s of a manual clock, ${ROUNDS} rounds`);
for (const periodMs of PERIODS_MS) {
  for (const identifiers of SHAPES) {
    const app: number[] = [];
    const redis: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternated, so a busy moment of the machine falls on both.
      const without = await run(identifiers, periodMs, false, round);
      const withIt = await run(identifiers, periodMs, true, round);
      app.push(withIt.app - without.app);
      redis.push(withIt.redis - without.redis);
    }
    const a = spread(app);
    const r = spread(redis);
    console.log(
      `period ${periodMs / 1000} s, ${identifiers} identifiers: app CPU +${a.median.toFixed(3)} µs ` +
        `a request (${a.min.toFixed(3)}–${a.max.toFixed(3)}), Redis CPU +${r.median.toFixed(3)} µs ` +
        `(${r.min.toFixed(3)}–${r.max.toFixed(3)})`,
    );
  }
}
admin.disconnect();
await server.stop();
