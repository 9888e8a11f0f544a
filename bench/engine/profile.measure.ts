/**
 * What the traffic profile and the replay's record cost per request (docs/algorithms.md,
 * "Traffic profiles", "Replay"): the identifier tally counts simulated traffic, 5 000 requests a
 * second for 3 minutes of a manual clock, flushed once a simulated second into the Redis given,
 * with both and without either, alternated. App CPU per request is the difference of the two
 * runs' process CPU (counting, recording and flushing, the same decisions), Redis CPU the
 * difference of the main thread's CPU (INFO cpu). One address, 1 000 and 10 000 identifiers, a
 * policy of a minute, one of a second and a calendar day in Paris (its windows found by time zone). Run by `npm run bench` (its "profile" scenario) and
 * `npm run bench:profile` (bench/engine/profile.cost.ts).
 */
import { Redis } from 'ioredis';
import {
  ManualClock,
  PolicyRegistry,
  type CalendarInput,
} from '../../libs/sluice/src/internals.js';
import { IdentifierTally } from '../../libs/sluice/src/stats/identifier.tally.js';
import { LocalIdentifierStats } from '../../libs/sluice/src/stats/local-identifier.stats.js';
import { RedisTrafficProfile } from '../../libs/sluice/src/stats/redis-traffic.profile.js';
import { RedisReplayStore } from '../../libs/sluice/src/stats/redis-replay.store.js';
import { decisionOf, partDecision } from '../../libs/sluice/src/testing/decision.fixture.js';
import { seededRandom } from '../../libs/sluice/src/testing/seeded-random.fixture.js';
import { redisCpuNow, spread, type Spread } from './measure.js';

export const PER_SECOND = 5_000;
export const SECONDS = 180;
const SHAPES = [1, 1_000, 10_000];
/** A policy of a minute, of a second (every second a window to fold), and a calendar day. */
const PERIODS: ReadonlyArray<{ periodMs: number; calendar: CalendarInput | null }> = [
  { periodMs: 60_000, calendar: null },
  { periodMs: 1_000, calendar: null },
  { periodMs: 86_400_000, calendar: { unit: 'day', timeZone: 'Europe/Paris' } },
];

const decision = decisionOf(partDecision('api', true));

/** One run: app CPU µs and Redis CPU µs per request. */
async function run(
  url: string,
  admin: Redis,
  identifiers: number,
  period: (typeof PERIODS)[number],
  withProfile: boolean,
  round: number,
) {
  const clock = new ManualClock(1_800_000_000_000_000);
  const policies = new PolicyRegistry();
  const periodMs = period.periodMs;
  policies.set(
    period.calendar === null
      ? { name: 'api', algorithm: 'fixed-window', limit: 100, periodMs }
      : { name: 'api', algorithm: 'fixed-window', limit: 100, calendar: period.calendar },
  );
  const client = new Redis(url);
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

/** One shape's cost: app and Redis CPU per request, µs, over the rounds. */
export interface ProfileCostRow {
  periodMs: number;
  /** The calendar unit whose periods the policy counts in, or null. */
  calendar: string | null;
  identifiers: number;
  app: Spread;
  redis: Spread;
}

/** Each shape, `rounds` pairs of runs, on the Redis at `url` (`admin` reads its CPU). */
export async function measureProfileCost(
  url: string,
  admin: Redis,
  rounds: number,
  report: (row: ProfileCostRow) => void = () => undefined,
): Promise<ProfileCostRow[]> {
  const rows: ProfileCostRow[] = [];
  for (const period of PERIODS) {
    for (const identifiers of SHAPES) {
      const app: number[] = [];
      const redis: number[] = [];
      for (let round = 0; round < rounds; round++) {
        // Alternated, so a busy moment of the machine falls on both.
        const without = await run(url, admin, identifiers, period, false, round);
        const withIt = await run(url, admin, identifiers, period, true, round);
        app.push(withIt.app - without.app);
        redis.push(withIt.redis - without.redis);
      }
      const row = {
        periodMs: period.periodMs,
        calendar: period.calendar?.unit ?? null,
        identifiers,
        app: spread(app),
        redis: spread(redis),
      };
      rows.push(row);
      report(row);
    }
  }
  return rows;
}

/** A row as one line. */
export function describeProfileCost(row: ProfileCostRow): string {
  const { app: a, redis: r } = row;
  return (
    `${row.calendar === null ? `period ${row.periodMs / 1000} s` : `calendar ${row.calendar}`}, ${row.identifiers} identifiers: app CPU +${a.median.toFixed(3)} µs ` +
    `a request (${a.min.toFixed(3)}–${a.max.toFixed(3)}), Redis CPU +${r.median.toFixed(3)} µs ` +
    `(${r.min.toFixed(3)}–${r.max.toFixed(3)})`
  );
}
