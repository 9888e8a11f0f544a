/**
 * How little a batched GCRA decision can cost Redis on 10 000 identifiers: a hand-written
 * function deciding a batch's keys in one FCALL (one MGET, then a SET with PX per admitted key,
 * three integers a reply), with the state alone and with a penalty key read beside it, against
 * what the library's FCALL costs (`npm run bench:engine`). A measure of the floor for issue 51's
 * Redis target, not a limiter: no spec, no penalty decided, no write-back cache.
 * `npx tsx bench/engine/lean.batch.ts`; figures in docs/benchmarks.md.
 */
import { Redis } from 'ioredis';
import { startRedisServer } from '../../test/support/redis-servers.js';
import { redisCpuPerDecision } from './measure.js';

const IDENTIFIERS = 10_000;
const IN_FLIGHT_DECISIONS = 128;
const BATCHES = [1, 8, 32, 64];
const WARM_MS = 1000;
const RUN_MS = 4000;

/** `penalty`: each key's penalty key is read in the same MGET, as the library reads both. */
const library = (penalty: boolean) => `#!lua name=leanbatch${penalty ? '2' : '1'}
local function decide(keys)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local interval, burst = 60, 60000000
  local values
  if ${penalty ? 'true' : 'false'} then
    local reads = {}
    for i, key in ipairs(keys) do
      reads[2 * i - 1], reads[2 * i] = key .. ':p', key
    end
    local both = redis.call('MGET', unpack(reads))
    values = {}
    for i = 1, #keys do
      values[i] = both[2 * i]
    end
  else
    values = redis.call('MGET', unpack(keys))
  end
  local out = {}
  for i, key in ipairs(keys) do
    local tat = math.max(tonumber(values[i]) or now, now) + interval
    local allowed = tat - now <= burst
    if allowed then
      local ttl = math.ceil((tat - now) / 1000) + 1
      redis.call('SET', key, string.format('%d', tat), 'PX', string.format('%d', ttl))
    end
    out[i] = { allowed and 1 or 0, math.floor((burst - (tat - now)) / interval), tat - now }
  end
  return out
end
redis.register_function('lean_batch_${penalty ? 2 : 1}', decide)`;

const server = await startRedisServer();
const client = new Redis(server.url);
try {
  const ids = Array.from(
    { length: IDENTIFIERS },
    (_, i) => `lean:{ip:10.0.${(i >> 8) & 255}.${i & 255}}`,
  );
  for (const penalty of [false, true]) {
    await client.function('LOAD', 'REPLACE', library(penalty));
    const name = `lean_batch_${penalty ? 2 : 1}`;
    for (const batch of BATCHES) {
      let next = 0;
      const perDecision = await redisCpuPerDecision(
        client,
        Math.max(1, Math.floor(IN_FLIGHT_DECISIONS / batch)),
        async () => {
          const keys = Array.from({ length: batch }, () => ids[next++ % IDENTIFIERS] as string);
          await client.fcall(name, keys.length, ...keys);
          return batch;
        },
        WARM_MS,
        RUN_MS,
      );
      console.log(
        `${penalty ? 'state and penalty keys' : 'state key only'}, ${batch} a call: ${perDecision.toFixed(2)} µs of Redis CPU a decision`,
      );
    }
  }
} finally {
  client.disconnect();
  await server.stop();
}
