/**
 * `npm run bench`: the tiny Nest app under each limiter, side by side, each in its own process,
 * loaded by autocannon from two processes of its own, against a redis-server started here on a
 * free port. Writes the "Application" section of docs/benchmarks.md (see it for the knobs).
 */
import { Redis } from 'ioredis';
import { startRedisServer } from '../../test/support/redis-servers.js';
import { LoadGenerator } from '../load/load.generator.js';
import type { BenchContext } from './bench.context.js';
import { readSettings } from './bench.settings.js';
import { buildContenders } from './contender.build.js';
import { runExactness } from './exactness.scenario.js';
import { runEventual } from './eventual.scenario.js';
import { runFlood } from './flood.scenario.js';
import { runPaced } from './paced.scenario.js';
import { describeMachine, waitForQuiet } from './machine.js';
import { writeAppReport, type AppResults } from './app.report.js';
import { runThroughput, type Sample } from './throughput.scenario.js';
import { describeProfileCost, measureProfileCost } from '../engine/profile.measure.js';

const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function describe(sample: Sample): string {
  const { load, redis } = sample;
  const status = Object.entries(load.byStatus)
    .map(([code, n]) => `${code}×${n}`)
    .join(' ');
  return (
    `[round ${sample.round}] ${sample.contender} ${sample.adapter} ${sample.mode}: ` +
    `${fmt(load.perSecond)} req/s, p50 ${fmt(load.p50)} ms, p99 ${fmt(load.p99)} ms, ` +
    `app ${fmt(sample.appCpuUs, 1)} µs/req, load ${fmt(sample.loadCpuUs, 1)} µs/req, Redis ${fmt(redis.scriptCalls, 3)} scripts, ` +
    `${fmt(redis.bytesIn)} B, ${fmt(redis.cpuUs, 1)} µs/req (${fmt(redis.scriptUs, 2)} in FCALL), others ${fmt(sample.otherCores, 2)} cores (${status})`
  );
}

async function main(): Promise<void> {
  const started = performance.now();
  const settings = readSettings(process.env);
  console.log('compiling the contender app (tsc)…');
  await buildContenders();
  const quiet = await waitForQuiet();
  const server = await startRedisServer();
  const admin = new Redis(server.url);
  const [load, secondLoad] = await Promise.all([LoadGenerator.start(), LoadGenerator.start()]);
  const context: BenchContext = {
    settings,
    redis: { url: server.url, admin, pid: server.pid },
    load,
    secondLoad,
  };
  const results: AppResults = {
    settings,
    machine: await describeMachine(admin, quiet),
    samples: [],
    flood: [],
    exactness: [],
    eventual: [],
    paced: [],
    profile: [],
    elapsedS: 0,
  };
  try {
    console.log(`redis-server pid ${server.pid} at ${server.url}`);
    if (settings.scenarios.includes('throughput')) {
      await runThroughput(context, (sample) => {
        results.samples.push(sample);
        console.log(describe(sample));
      });
    }
    if (settings.scenarios.includes('paced')) results.paced = await runPaced(context);
    if (settings.scenarios.includes('exactness')) results.exactness = await runExactness(context);
    if (settings.scenarios.includes('flood')) results.flood = await runFlood(context);
    if (settings.scenarios.includes('eventual')) results.eventual = await runEventual(context);
    if (settings.scenarios.includes('profile')) {
      results.profile = await measureProfileCost(server.url, admin, settings.rounds, (row) =>
        console.log(describeProfileCost(row)),
      );
    }
  } finally {
    admin.disconnect();
    await Promise.all([load.stop(), secondLoad.stop()]);
    await server.stop();
  }
  results.elapsedS = (performance.now() - started) / 1000;
  const section = await writeAppReport(results);
  console.log(section);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
