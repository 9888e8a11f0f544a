/**
 * What setting a string key's expiry costs Redis: one script SETs each of 10 000 keys five times
 * with `PXAT` (a new expiry, as an exact gcra write does), with `KEEPTTL` (the grid's write in
 * its cell), and with neither, timed by Redis TIME inside the script, so no I/O or client is
 * counted. Why gcra's batch writes keep their TTL within a grid cell (docs/algorithms.md, "A gcra
 * key's expiry"). `npx tsx bench/engine/set.expiry.ts` (BENCH_ROUNDS, 5); figures in
 * docs/benchmarks.md.
 */
import { Redis } from 'ioredis';
import { startRedisServer } from '../../test/support/redis-servers.js';
import { spread } from './measure.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : 5;
const KEYS = 10_000;
const PASSES = 5;

// ARGV: the mode, the key count, the passes. Returns the µs the loop took.
const SCRIPT = `
local mode, n, passes = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local expiry = tonumber(t[1]) * 1000 + 3600000
local started = redis.call('TIME')
for pass = 1, passes do
  for i = 1, n do
    local key = 'set-expiry:' .. i
    if mode == 'pxat' then
      redis.call('SET', key, '1796000000000000 ', 'PXAT', expiry + pass)
    elseif mode == 'keepttl' then
      redis.call('SET', key, '1796000000000000 ', 'KEEPTTL')
    else
      redis.call('SET', key, '1796000000000000 ')
    end
  end
end
local finished = redis.call('TIME')
return (tonumber(finished[1]) - tonumber(started[1])) * 1000000 + tonumber(finished[2]) - tonumber(started[2])
`;

const server = await startRedisServer();
const client = new Redis(server.url);
try {
  const results = new Map<string, number[]>();
  // pxat first in each round: keepttl then runs on keys that have an expiry, as in a batch.
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['pxat', 'keepttl', 'plain']) {
      const usec = Number(await client.eval(SCRIPT, 0, mode, KEYS, PASSES));
      const list = results.get(mode) ?? [];
      list.push(usec / (KEYS * PASSES));
      results.set(mode, list);
    }
  }
  for (const [mode, values] of results) {
    const s = spread(values);
    console.log(
      `SET … ${mode.padEnd(8)} ${s.median.toFixed(2)} µs (${s.min.toFixed(2)}–${s.max.toFixed(2)}) a write on ${KEYS} keys`,
    );
  }
} finally {
  client.disconnect();
  await server.stop();
}
