/**
 * `npm run bench:profile`: the traffic profile's and the replay record's cost per request alone
 * (bench/engine/profile.measure.ts), on a Redis of its own; BENCH_ROUNDS (5). Printed; `npm run
 * bench` measures the same in its "profile" scenario and writes it into docs/benchmarks.md.
 */
import { Redis } from 'ioredis';
import { startRedisServer } from '../../test/support/redis-servers.js';
import { describeProfileCost, measureProfileCost, PER_SECOND, SECONDS } from './profile.measure.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : 5;

const server = await startRedisServer();
const admin = new Redis(server.url);
console.log(`${PER_SECOND} requests a second for ${SECONDS} s of a manual clock, ${ROUNDS} rounds`);
try {
  await measureProfileCost(server.url, admin, ROUNDS, (row) =>
    console.log(describeProfileCost(row)),
  );
} finally {
  admin.disconnect();
  await server.stop();
}
