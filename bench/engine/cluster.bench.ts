/**
 * `npm run bench:cluster`: the engine on a 3-master Redis Cluster of the bench's own, against the
 * same Lua sent one FCALL per decision (what the store did before it batched per master) and the
 * plain INCR + PEXPIRE script sent one per decision. Writes the "Engine on a Redis Cluster"
 * section of docs/benchmarks.md.
 *
 * Knobs (environment): BENCH_ROUNDS (default 5), BENCH_RUN_MS (500), BENCH_IDLE_WAIT_S (10).
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Cluster, Redis } from 'ioredis';
import { RedisStore, SluiceEngine } from '../../libs/sluice/src/engine/index.js';
import { decodeReply } from '../../libs/sluice/src/store/spec.codec.js';
import { startRedisCluster } from '../../test/support/redis-servers.js';
import { PLAIN_SCRIPT } from './lua-variants.js';
import { writeMarkedSection } from './report.js';
import {
  closedLoop,
  commandStats,
  info,
  machineBusySeconds,
  waitForQuiet,
  spread,
  type Call,
  type Spread,
} from './measure.js';

const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value >= 0 && process.env[name] !== undefined
    ? value
    : fallback;
};
const SETTINGS = {
  rounds: Math.max(1, envInt('BENCH_ROUNDS', 5)),
  runMs: Math.max(50, envInt('BENCH_RUN_MS', 500)),
  idleWaitS: envInt('BENCH_IDLE_WAIT_S', 10),
  inFlight: 128,
  identifiers: 10_000,
  /** The whole run is aborted past this. */
  hardLimitMs: 180_000,
};
const POLICY = { name: 'gcra', algorithm: 'gcra', limit: 1_000_000, periodMs: 60_000 } as const;
const HOT_ID = '203.0.113.7';
const START = '<!-- bench:cluster:start -->';
const END = '<!-- bench:cluster:end -->';

interface Run {
  perSec: number;
  nodeCpuUs: number;
  redisCpuUs: number;
  scriptCallsPerDecision: number;
  readsPerDecision: number;
  otherCores: number;
}

const CONTENDERS = {
  sluice: 'Sluice (RedisStore on the Cluster: a pipeline per master, one FCALL per slot)',
  'fcall-each': 'the same FCALL, one per decision (as the store sent them before)',
  plain: 'plain script (INCR + PEXPIRE), one EVALSHA per decision',
} as const;
type ContenderName = keyof typeof CONTENDERS;
const MODES = {
  spread: `${SETTINGS.identifiers.toLocaleString('en-US')} identifiers`,
  hot: 'one identifier',
};
type Mode = keyof typeof MODES;

async function clusterFigures(masters: Redis[]) {
  let cpu = 0;
  let scriptCalls = 0;
  let reads = 0;
  for (const master of masters) {
    const fields = await info(master, 'cpu', 'stats', 'commandstats');
    cpu +=
      Number(fields.get('used_cpu_user_main_thread')) +
      Number(fields.get('used_cpu_sys_main_thread'));
    reads += Number(fields.get('total_reads_processed'));
    for (const [name, stat] of commandStats(fields)) {
      if (name === 'fcall' || name === 'evalsha') scriptCalls += stat.calls;
    }
  }
  return { cpu, scriptCalls, reads };
}

async function measureOn(masters: Redis[], call: Call): Promise<Run> {
  const before = await clusterFigures(masters);
  const busy = machineBusySeconds();
  const cpu = process.cpuUsage();
  const loop = await closedLoop(call, { inFlight: SETTINGS.inFlight, durationMs: SETTINGS.runMs });
  const nodeCpu = process.cpuUsage(cpu);
  const busyAfter = machineBusySeconds();
  const after = await clusterFigures(masters);
  const calls = Math.max(1, loop.calls);
  const redisCpu = after.cpu - before.cpu;
  const own = (nodeCpu.user + nodeCpu.system) / 1e6 + redisCpu;
  if (loop.rejected > 0) throw new Error(`${loop.rejected} calls were refused`);
  return {
    perSec: loop.perSec,
    nodeCpuUs: (nodeCpu.user + nodeCpu.system) / calls,
    redisCpuUs: (redisCpu * 1e6) / calls,
    scriptCallsPerDecision: (after.scriptCalls - before.scriptCalls) / calls,
    // Each master's INFO is read once after the loop.
    readsPerDecision: (after.reads - before.reads - masters.length) / calls,
    otherCores: Math.max(0, busyAfter - busy - own) / (loop.ms / 1000),
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const abort = setTimeout(() => {
    console.error(`bench:cluster: over ${SETTINGS.hardLimitMs / 1000} s, aborting`);
    process.exit(1);
  }, SETTINGS.hardLimitMs);
  abort.unref();
  const redisCluster = await startRedisCluster({ masters: 3 });
  const client = new Cluster([...redisCluster.nodes], { scaleReads: 'master' });
  const masters: Redis[] = [];
  try {
    await client.cluster('INFO');
    for (const node of client.nodes('master')) {
      masters.push(new Redis({ host: node.options.host, port: node.options.port }));
    }
    const version = (await info(masters[0] as Redis, 'server')).get('redis_version') ?? '?';
    const engine = new SluiceEngine({ store: new RedisStore(client), policies: [POLICY] });
    await engine.consume(POLICY.name, 'warm-up'); // loads the library on every master

    // The FCALL the store sends for one decision, captured once, then sent as is per decision.
    const captured: Array<Array<string | number>> = [];
    const recorder = new Proxy(client, {
      get(target, property) {
        if (property === 'fcall') {
          return (...args: Array<string | number>) => {
            captured.push(args);
            return target.fcall(...(args as Parameters<typeof target.fcall>));
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const recording = new SluiceEngine({ store: new RedisStore(recorder), policies: [POLICY] });
    await recording.consume(POLICY.name, 'capture');
    const [name, , , ...args] = (captured.at(-1) ?? []).map(String) as [string, ...string[]];
    if (name === undefined) throw new Error('the store sent no FCALL');
    const plainSha = String(await client.script('LOAD', PLAIN_SCRIPT));
    await Promise.all(masters.map((master) => master.script('LOAD', PLAIN_SCRIPT)));

    const ids = Array.from({ length: SETTINGS.identifiers }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    const identifier = (mode: Mode, i: number) =>
      mode === 'hot' ? HOT_ID : (ids[i % ids.length] as string);
    const calls: Record<ContenderName, (mode: Mode) => Call> = {
      sluice: (mode) => (i) =>
        engine.consume(POLICY.name, identifier(mode, i)).then((d) => d.allowed),
      'fcall-each': (mode) => (i) =>
        client
          .fcall(name, 1, `sluice:{ip:${identifier(mode, i)}}`, ...args)
          .then((reply) => decodeReply(reply, 1).admitted),
      plain: (mode) => (i) =>
        client
          .evalsha(plainSha, 1, `sluice:{ip:${identifier(mode, i)}}:plain`, '60000')
          .then((reply) => typeof reply === 'number'),
    };

    const quiet = await waitForQuiet(SETTINGS.idleWaitS);
    const names = Object.keys(CONTENDERS) as ContenderName[];
    for (const mode of Object.keys(MODES) as Mode[]) {
      for (const contender of names) await measureOn(masters, calls[contender](mode)); // warm-up
    }
    const runs = new Map<string, Run[]>();
    for (let round = 0; round < SETTINGS.rounds; round++) {
      for (const mode of Object.keys(MODES) as Mode[]) {
        const order = round % 2 === 0 ? names : [...names].reverse();
        for (const contender of order) {
          const key = `${mode}:${contender}`;
          runs.set(key, [
            ...(runs.get(key) ?? []),
            await measureOn(masters, calls[contender](mode)),
          ]);
        }
      }
      console.log(
        `round ${round + 1}/${SETTINGS.rounds} at ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }

    const section = render(runs, {
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      node: process.version,
      redis: version,
      date: new Date().toISOString(),
      load: loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
      quiet,
      elapsedS: (performance.now() - started) / 1000,
    });
    console.log(section);
    const docPath = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));
    await writeMarkedSection(docPath, START, END, section);
    console.log(`\nwritten to ${docPath}`);
  } finally {
    clearTimeout(abort);
    for (const master of masters) master.disconnect();
    client.disconnect();
    await redisCluster.stop();
  }
}

const f0 = (v: number) => Math.round(v).toLocaleString('en-US');
const f1 = (v: number) => v.toFixed(1);
const f2 = (v: number) => v.toFixed(2);
const f3 = (v: number) => v.toFixed(3);
const range = (s: Spread, fmt: (v: number) => string) =>
  `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;

function render(
  runs: Map<string, Run[]>,
  machine: {
    cpu: string;
    cores: number;
    node: string;
    redis: string;
    date: string;
    load: string;
    quiet: { waitedS: number; otherCores: number };
    elapsedS: number;
  },
): string {
  const of = (key: string, pick: (run: Run) => number) => spread((runs.get(key) ?? []).map(pick));
  /** Per round, the first contender's figure divided by the second's. */
  const ratio = (mode: Mode, a: ContenderName, b: ContenderName) => {
    const first = runs.get(`${mode}:${a}`) ?? [];
    const second = runs.get(`${mode}:${b}`) ?? [];
    return spread(first.map((run, i) => run.perSec / (second[i]?.perSec ?? NaN)));
  };
  const other = spread([...runs.values()].flat().map((run) => run.otherCores));
  const lines = [
    START,
    '',
    '## Engine on a Redis Cluster',
    '',
    'Generated by `npm run bench:cluster` (bench/engine/cluster.bench.ts) from the run below; run it again rather than editing the figures.',
    '',
    '| | |',
    '| --- | --- |',
    `| CPU | ${machine.cpu}, ${machine.cores} logical cores |`,
    `| Node | ${machine.node} |`,
    `| Redis | ${machine.redis}: a cluster of 3 masters, no replicas, of the bench's own on loopback ports |`,
    `| Date | ${machine.date} |`,
    `| Load average after (1, 5, 15 min) | ${machine.load} |`,
    `| Other processes | ${f2(machine.quiet.otherCores)} cores at start (waited ${machine.quiet.waitedS.toFixed(0)} s for < 0.5); during the runs median ${f2(other.median)} cores (max ${f2(other.max)}) |`,
    `| Duration | ${machine.elapsedS.toFixed(0)} s |`,
    '',
    `One Node process keeps ${SETTINGS.inFlight} decisions in flight through one ioredis \`Cluster\` client for ${SETTINGS.runMs} ms per contender, the contenders alternating (the order reversed every other round), ${SETTINGS.rounds} rounds; figures are the median (min–max) over the rounds, and "×" divides each round's throughput by the other contender's in the same round. The policy is gcra with a limit out of reach. Redis CPU is the three masters' main threads together; script calls and reads (INFO \`total_reads_processed\`, the read events on the masters' sockets) are summed over the masters, per decision.`,
    '',
    '| Identifiers | Contender | Decisions/s | × one FCALL per decision | × plain script | Node CPU µs/decision | Redis CPU µs/decision | Script calls/decision | Reads/decision |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const mode of Object.keys(MODES) as Mode[]) {
    for (const contender of Object.keys(CONTENDERS) as ContenderName[]) {
      const key = `${mode}:${contender}`;
      const vsEach =
        contender === 'fcall-each'
          ? '1'
          : range(ratio(mode, contender, 'fcall-each'), (v) => `${f2(v)}×`);
      const vsPlain =
        contender === 'plain' ? '1' : range(ratio(mode, contender, 'plain'), (v) => `${f2(v)}×`);
      lines.push(
        `| ${MODES[mode]} | ${CONTENDERS[contender]} | ${range(
          of(key, (r) => r.perSec),
          f0,
        )} | ${vsEach} | ${vsPlain} | ${f1(of(key, (r) => r.nodeCpuUs).median)} | ${f1(of(key, (r) => r.redisCpuUs).median)} | ${f3(of(key, (r) => r.scriptCallsPerDecision).median)} | ${f3(of(key, (r) => r.readsPerDecision).median)} |`,
      );
    }
  }
  lines.push('', END);
  return lines.join('\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
