// A steady load for SOAK_SECONDS (60 in CI; `npm run soak` for 10 minutes) over identifiers that
// keep cycling: the Node heap after a full GC and the number of Redis keys must stay flat.
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoad } from '../../support/load.generator.js';
import { startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { startRedisServer, type RedisServer } from '../../support/redis-servers.js';
import { percentile, recordReliabilitySection } from '../../support/measured-figures.js';
import { SOAK_ROUTES, soakApp } from './support/soak.app.js';

const SECONDS = soakSeconds(process.env.SOAK_SECONDS);
/** JIT, connection pools and the first pass over the identifiers settle before sampling. */
const WARM_UP_MS = 5_000;
const SAMPLE_EVERY_MS = 1_000;
/** Each route takes REQUESTS_EACH requests from one identifier, then from the next. */
const IDENTIFIERS = 2_000;
const REQUESTS_EACH = 8;
const PAUSE_MS = 10;
/** Last quarter against first: more than this is growth, not noise. */
const HEAP_GROWTH_BOUND_MB = 3;
const KEYS_GROWTH_BOUND = 1.25;
/** Few keys live at once, so a handful more is noise. */
const KEYS_GROWTH_SLACK = 20;
/** Latencies are kept per whole millisecond up to 10 s. */
const LATENCY_BUCKETS = 10_001;

function soakSeconds(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 60;
  const seconds = Number(raw);
  if (!/^\d+$/.test(raw) || seconds < 20 || seconds > 86_400) {
    throw new Error(
      `SOAK_SECONDS must be a whole number from 20 to 86400, got ${JSON.stringify(raw)}`,
    );
  }
  return seconds;
}

/** The V8 collector, made callable without restarting Node with --expose-gc. */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** The smallest whole millisecond at or below which p % of the requests answered. */
function histogramPercentile(buckets: Uint32Array, p: number): number {
  const total = buckets.reduce((sum, count) => sum + count, 0);
  let seen = 0;
  for (let ms = 0; ms < buckets.length; ms++) {
    seen += buckets[ms]!;
    if (seen >= (p / 100) * total) return ms;
  }
  return buckets.length - 1;
}

const median = (values: readonly number[]): number => percentile(values, 50);
const mb = (bytes: number): number => bytes / 1024 / 1024;

/** Least-squares slope of values sampled once a second, per minute. */
function slopePerMinute(values: readonly number[]): number {
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, value) => sum + value, 0) / n;
  let numerator = 0;
  let denominator = 0;
  values.forEach((value, x) => {
    numerator += (x - meanX) * (value - meanY);
    denominator += (x - meanX) ** 2;
  });
  return (numerator / denominator) * (60_000 / SAMPLE_EVERY_MS);
}

/** Decision counts are kept per policy and second for 15 minutes: they grow with time, not identifiers. */
async function identifierKeyCount(redis: Redis): Promise<number> {
  let statsKeys = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', '*{stats:*', 'COUNT', 1000);
    statsKeys += keys.length;
    cursor = next;
  } while (cursor !== '0');
  return (await redis.dbsize()) - statsKeys;
}

describe(`soak: ${SECONDS} s of steady load over cycling identifiers`, () => {
  let server: RedisServer;
  let redis: Redis;
  let app: RunningApp;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = connectRedis(server.url);
    app = await startApp('express', soakApp({ redis: server.url, prefix: uniquePrefix('soak') }));
  });

  afterAll(async () => {
    await app?.close();
    await closeAll();
    await server?.stop();
  });

  it(
    'keeps the heap and the number of Redis keys flat',
    async () => {
      const gc = fullGc();
      const statuses = new Map<number, number>();
      // A fixed histogram rather than a list: what the test keeps must not grow the heap it measures.
      const latencies = new Uint32Array(LATENCY_BUCKETS);
      let worst = 0;
      const sent = new Map<string, number>();
      const load = startLoad({
        targets: SOAK_ROUTES.map((route) => ({ name: route, url: `${app.url}/${route}` })),
        identifier: ({ name }) => {
          const count = sent.get(name) ?? 0;
          sent.set(name, count + 1);
          return `id-${Math.floor(count / REQUESTS_EACH) % IDENTIFIERS}`;
        },
        workersPerTarget: 1,
        pauseMs: PAUSE_MS,
        record: (sample) => {
          statuses.set(sample.status, (statuses.get(sample.status) ?? 0) + 1);
          latencies[Math.min(Math.ceil(sample.ms), LATENCY_BUCKETS - 1)]! += 1;
          worst = Math.max(worst, sample.ms);
        },
      });
      await sleep(WARM_UP_MS);
      const heap: number[] = [];
      const keys: number[] = [];
      const until = performance.now() + SECONDS * 1000;
      while (performance.now() < until) {
        await sleep(SAMPLE_EVERY_MS);
        gc();
        heap.push(process.memoryUsage().heapUsed);
        keys.push(await identifierKeyCount(redis));
      }
      await load.stop();

      const quarter = Math.max(1, Math.floor(heap.length / 4));
      const first = { heap: median(heap.slice(0, quarter)), keys: median(keys.slice(0, quarter)) };
      const last = { heap: median(heap.slice(-quarter)), keys: median(keys.slice(-quarter)) };
      const requests = [...statuses.values()].reduce((sum, count) => sum + count, 0);
      const figures = {
        requests,
        rate: requests / (SECONDS + WARM_UP_MS / 1000),
        heapFirst: mb(first.heap),
        heapLast: mb(last.heap),
        heapSlope: mb(slopePerMinute(heap)),
        keysFirst: first.keys,
        keysLast: last.keys,
        keysMax: Math.max(...keys),
        p99: histogramPercentile(latencies, 99),
        worst,
        statuses: Object.fromEntries(statuses),
      };
      expect(Object.keys(figures.statuses).sort()).toEqual(['200', '429']);
      expect(figures.heapLast - figures.heapFirst, 'heap growth, MB').toBeLessThanOrEqual(
        HEAP_GROWTH_BOUND_MB,
      );
      expect(figures.keysLast, 'Redis keys, last quarter').toBeLessThanOrEqual(
        figures.keysFirst * KEYS_GROWTH_BOUND + KEYS_GROWTH_SLACK,
      );
      await recordReliabilitySection('soak', report(figures));
    },
    (SECONDS + 60) * 1000,
  );
});

function report(f: {
  requests: number;
  rate: number;
  heapFirst: number;
  heapLast: number;
  heapSlope: number;
  keysFirst: number;
  keysLast: number;
  keysMax: number;
  p99: number;
  worst: number;
  statuses: Record<string, number>;
}): string {
  return `## Soak

| duration | requests | rate | heap after GC, first → last quarter (median) | heap trend | Redis keys, first → last quarter (median, max) | p99 / worst latency | answers |
| -------- | -------- | ---- | -------------------------------------------- | ---------- | ---------------------------------------------- | ------------------- | ------- |
| ${SECONDS} s | ${f.requests} | ${f.rate.toFixed(0)}/s | ${f.heapFirst.toFixed(1)} → ${f.heapLast.toFixed(1)} MB | ${f.heapSlope >= 0 ? '+' : ''}${f.heapSlope.toFixed(2)} MB/min | ${f.keysFirst} → ${f.keysLast} (max ${f.keysMax}) | ${f.p99.toFixed(0)} / ${f.worst.toFixed(0)} ms | ${Object.entries(
    f.statuses,
  )
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ')} |

Method (\`test/measured/faults/soak.spec.ts\`: \`npx vitest run test/measured/faults/soak.spec.ts\` for
60 s, \`npm run soak\` for 10 minutes, or set \`SOAK_SECONDS\`): the test starts its own
redis-server and one Express app in its own process, with one route per algorithm (fixed window,
sliding log, token bucket, GCRA; each 5 a second) and one whose offenders are blocked for a second
(penalty, block cache). One client loop per route sends a request, reads the answer and pauses
${PAUSE_MS} ms; each route takes ${REQUESTS_EACH} requests from an identifier (so limits refuse and
blocks start), then moves to the next of ${IDENTIFIERS}, which it meets again only once every key the
previous visit left has expired. What the app keeps per identifier in memory (the block cache) is
bounded by those ${IDENTIFIERS}, reached within a few minutes at this rate. After ${WARM_UP_MS / 1000} s of warm-up,
once a second the test runs a full garbage collection and records \`process.memoryUsage().heapUsed\`
(the app, the client loops and the test runner share the process) and \`DBSIZE\` less the decision-count
keys (\`{stats:<policy>}\`, one per policy and second kept 15 minutes and one per minute kept 7 days,
whatever the traffic; counted apart by SCAN). The test fails when the
last quarter's median heap exceeds the first's by more than ${HEAP_GROWTH_BOUND_MB} MB, or the last quarter's median
key count exceeds the first's by more than ${Math.round((KEYS_GROWTH_BOUND - 1) * 100)} % plus ${KEYS_GROWTH_SLACK} keys.`;
}
