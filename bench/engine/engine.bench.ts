/**
 * `npm run bench:engine`: what one decision costs in Redis and in Node, for each algorithm, against
 * a plain INCR + PEXPIRE script, rate-limiter-flexible's RateLimiterRedis and a GET + SET floor,
 * on one identifier and on many, with eventual mode beside exact. Starts its own redis-server,
 * prints the figures and writes the "Engine" section of docs/benchmarks.md from them.
 *
 * Knobs (environment): BENCH_ROUNDS (default 5), BENCH_RUN_MS (500), BENCH_HOT_RUN_MS (400),
 * BENCH_VARIANT_MS (120), BENCH_STUB_MS (150), BENCH_IDLE_WAIT_S (10).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import {
  ALGORITHMS,
  EventualStore,
  RedisStore,
  SluiceEngine,
  type AlgorithmName,
} from '../../libs/sluice/src/engine/index.js';
import { loadLuaLibrary } from '../../libs/sluice/src/store/script.source.js';
import { decodeReply } from '../../libs/sluice/src/store/spec.codec.js';
import {
  FLOOR_SCRIPT,
  PLAIN_SCRIPT,
  algorithmVariants,
  commonVariants,
  leanVariants,
  type Variant,
} from './lua-variants.js';
import { info, measure, respBytes, waitForQuiet, type Call, type Run } from './measure.js';
import { startRedisServer } from '../../test/support/redis-servers.js';
import { EVENTUAL_ALGORITHMS, writeReport, type Results } from './report.js';

const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

export const SETTINGS = {
  rounds: envInt('BENCH_ROUNDS', 5),
  runMs: envInt('BENCH_RUN_MS', 500),
  hotRunMs: envInt('BENCH_HOT_RUN_MS', 400),
  variantMs: envInt('BENCH_VARIANT_MS', 120),
  stubMs: envInt('BENCH_STUB_MS', 150),
  /** Wait at most this long at start for the machine to be quiet (others < 0.5 core). */
  idleWaitS:
    Number.isInteger(Number(process.env.BENCH_IDLE_WAIT_S)) &&
    process.env.BENCH_IDLE_WAIT_S !== undefined
      ? Number(process.env.BENCH_IDLE_WAIT_S)
      : 10,
  inFlight: 128,
  identifiers: 10_000,
  memoryIdentifiers: 1000,
  /** The whole run is aborted past this. */
  hardLimitMs: 480_000,
};

/** Throughput policies: nothing may be rejected, so limits are far above what a run sends. */
const THROUGHPUT_POLICIES = ALGORITHMS.map((algorithm) =>
  algorithm === 'sliding-log'
    ? // The log holds every admission of the period: a 1 s period keeps it short.
      { name: algorithm, algorithm, limit: 100_000, periodMs: 1000, key: 'ip' }
    : { name: algorithm, algorithm, limit: 1_000_000, periodMs: 60_000, key: 'ip' },
);
/** Memory policies: an ordinary limit, 100 per minute (sliding-window: default 10 segments). */
const MEMORY_POLICIES = ALGORITHMS.map((algorithm) => ({
  name: algorithm,
  algorithm,
  limit: 100,
  periodMs: 60_000,
  key: 'ip',
}));
const PLAIN_TTL_MS = '60000';
const EVENTUAL_POLICIES = THROUGHPUT_POLICIES.filter((p) =>
  EVENTUAL_ALGORITHMS.includes(p.algorithm),
).map((p) => ({ ...p, consistency: 'eventual' as const }));

const ipv4 = (prefix: string, i: number) => `${prefix}.${(i >> 8) & 255}.${i & 255}`;
const ids = Array.from({ length: SETTINGS.identifiers }, (_, i) =>
  ipv4(`10.${(i >> 16) & 255}`, i),
);
const HOT_ID = '203.0.113.7';
const MEMORY_IDS = Array.from({ length: SETTINGS.memoryIdentifiers }, (_, i) => ipv4('198.51', i));
const baseKey = (id: string) => `sluice:{ip:${id}}`;

function machine(redisVersion: string) {
  const require = createRequire(import.meta.url);
  const ioredis = (require('ioredis/package.json') as { version: string }).version;
  const cores = cpus();
  return {
    cpu: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    node: process.version,
    redis: redisVersion,
    ioredis,
    date: new Date().toISOString(),
    command: 'npm run bench:engine',
    loadBefore: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    loadAfter: '',
    quiet: '',
    code: codeVersion(),
  };
}

/** The commit, and whether libs/ differs from it: the Lua measured is named by its library name. */
function codeVersion(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: fileURLToPath(new URL('../..', import.meta.url)) })
      .toString()
      .trim();
  try {
    const dirty = git('status', '--porcelain', '--', 'libs') !== '';
    return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ', with uncommitted changes in libs/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  let stop = async (): Promise<void> => {};
  const abort = setTimeout(() => {
    console.error(`bench:engine: over ${SETTINGS.hardLimitMs / 1000} s, aborting`);
    void stop().finally(() => process.exit(1));
  }, SETTINGS.hardLimitMs);
  abort.unref();

  const server = await startRedisServer();
  // Should this process die without stopping it, the server it started goes with it.
  const killServer = () => process.kill(server.pid, 'SIGKILL');
  process.once('exit', killServer);
  const clients: Redis[] = [];
  stop = async () => {
    for (const c of clients) c.disconnect();
    process.off('exit', killServer);
    await server.stop();
  };
  try {
    console.log(`redis-server pid ${server.pid} on ${server.host}:${server.port}`);
    const connect = () => {
      const c = new Redis({ host: server.host, port: server.port });
      clients.push(c);
      return c;
    };
    const client = connect();
    const admin = connect();
    const serverInfo = await info(admin, 'server');
    const results: Results = {
      settings: SETTINGS,
      machine: machine(serverInfo.get('redis_version') ?? '?'),
      series: new Map(),
      inner: new Map(),
      memory: [],
      bytes: [],
      variants: [],
      functions: 0,
      engineCommand: 'fcall',
      rejected: 0,
      elapsedS: 0,
    };
    const push = (name: string, value: number) => {
      const list = results.series.get(name) ?? [];
      list.push(value);
      results.series.set(name, list);
    };

    // --- Lua: the engine's library, the plain script, the cut-down copies -------------------------
    const lib = loadLuaLibrary();
    results.functions = (lib.definitions.match(/\bfunction\b/g) ?? []).length;
    const plainSha = (await admin.script('LOAD', PLAIN_SCRIPT)) as string;
    const floorSha = (await admin.script('LOAD', FLOOR_SCRIPT)) as string;
    const common = commonVariants(lib.definitions);
    const perAlgorithm = algorithmVariants(lib.definitions);
    const lean = leanVariants();
    /** Calls a loaded variant: EVALSHA of its SHA, or FCALL of its function. */
    const invokers = new Map<Variant, (key: string, args: string[]) => Promise<unknown>>();
    for (const v of [...common, ...perAlgorithm, ...lean]) {
      if (!v.source) continue;
      if (v.kind === 'script') {
        const sha = (await admin.script('LOAD', v.source)) as string;
        invokers.set(v, (key, args) => client.evalsha(sha, 1, key, ...args));
      } else {
        await admin.call('FUNCTION', 'LOAD', 'REPLACE', v.source);
        const name = v.call as string;
        invokers.set(v, (key, args) => client.fcall(name, 1, key, ...args));
      }
    }
    results.variants = [...common, ...perAlgorithm, ...lean].map(
      ({ name, what, kind, skipped }) => ({
        name,
        what: `${kind === 'script' ? 'EVALSHA' : 'FCALL'}: ${what}`,
        ...(skipped ? { skipped } : {}),
      }),
    );

    // --- the exact command the store sends, per algorithm -----------------------------------------
    const captured: Array<{ command: 'evalsha' | 'fcall'; args: string[] }> = [];
    const recorder = new Proxy(client, {
      get(target, property) {
        if (property === 'evalsha' || property === 'fcall') {
          return (...args: (string | number)[]) => {
            captured.push({ command: property, args: args.map(String) });
            return target.call(property.toUpperCase(), ...args.map(String));
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const recordingEngine = new SluiceEngine({
      store: new RedisStore(recorder),
      policies: THROUGHPUT_POLICIES,
    });
    const argsFor = new Map<AlgorithmName, string[]>();
    let engineCommand: 'evalsha' | 'fcall' = 'fcall';
    let engineTarget = '';
    for (const algorithm of ALGORITHMS) {
      captured.length = 0;
      await recordingEngine.consume(algorithm, ids[0] as string);
      // The last one: a first call may have been refused (NOSCRIPT, function not loaded) and repeated.
      const sent = captured.at(-1);
      if (!sent || sent.args[1] !== '1' || sent.args[2] !== baseKey(ids[0] as string)) {
        throw new Error(`unexpected command from the store: ${JSON.stringify(captured)}`);
      }
      engineCommand = sent.command;
      engineTarget = sent.args[0] as string;
      argsFor.set(algorithm, sent.args.slice(3));
      const command = [sent.command.toUpperCase(), ...sent.args];
      results.bytes.push({
        algorithm,
        command: command.slice(0, 2).join(' '),
        keyLength: sent.args[2].length,
        computed: respBytes(command),
        fixed: respBytes(command) - sent.args[2].length,
        spec: sent.args.at(-1) as string,
      });
    }
    results.engineCommand = engineCommand;

    // --- contenders ----------------------------------------------------------------------------
    const engine = new SluiceEngine({
      store: new RedisStore(client),
      policies: THROUGHPUT_POLICIES,
    });
    // Eventual policies are decided by an EventualStore over Redis, as SluiceModule chains them
    // (store/store.factory.ts); over a RedisStore alone they would be exact calls.
    const eventualStore = new EventualStore(new RedisStore(client));
    const eventualEngine = new SluiceEngine({ store: eventualStore, policies: EVENTUAL_POLICIES });
    // The peer: its Redis limiter as its guard calls it, one EVALSHA per request, on the same
    // connection; the floor: a GET and a SET with expiry in one script per decision.
    const flexible = new RateLimiterRedis({
      storeClient: client,
      keyPrefix: 'rlf',
      points: 1_000_000_000,
      duration: 3600,
    });
    const keys = ids.map(baseKey);
    const plainKeys = ids.map((id) => `${baseKey(id)}:plain`);
    const n = ids.length;
    /** A reply of the engine's Lua for one policy (the short form included) that admits. */
    const admittedReply = (r: unknown) => decodeReply(r, 1).admitted;
    const args = (algorithm: AlgorithmName) => argsFor.get(algorithm) as string[];
    /** The engine's own Lua, called straight from ioredis with the store's arguments. */
    const sameScript = (key: string, algorithm: AlgorithmName) =>
      engineCommand === 'fcall'
        ? client.fcall(engineTarget, 1, key, ...args(algorithm))
        : client.evalsha(engineTarget, 1, key, ...args(algorithm));
    const engineCall =
      (algorithm: AlgorithmName, hot = false): Call =>
      (i) =>
        engine.consume(algorithm, hot ? HOT_ID : (ids[i % n] as string)).then((d) => d.allowed);
    const plainCall =
      (hot = false): Call =>
      (i) =>
        client
          .evalsha(
            plainSha,
            1,
            hot ? `${baseKey(HOT_ID)}:plain` : (plainKeys[i % n] as string),
            PLAIN_TTL_MS,
          )
          .then((r) => typeof r === 'number');
    const eventualCall =
      (algorithm: AlgorithmName, hot = false): Call =>
      (i) =>
        eventualEngine
          .consume(algorithm, hot ? HOT_ID : (ids[i % n] as string))
          .then((d) => d.allowed);
    const flexibleCall =
      (hot = false): Call =>
      (i) =>
        flexible.consume(hot ? HOT_ID : (ids[i % n] as string)).then((r) => r.remainingPoints > 0);
    const floorKeys = ids.map((id) => `${baseKey(id)}:floor`);
    const floorCall =
      (hot = false): Call =>
      (i) =>
        client
          .evalsha(
            floorSha,
            1,
            hot ? `${baseKey(HOT_ID)}:floor` : (floorKeys[i % n] as string),
            '1763790000123456',
            PLAIN_TTL_MS,
          )
          .then((r) => r === 1);
    const rawCall =
      (algorithm: AlgorithmName): Call =>
      (i) =>
        sameScript(keys[i % n] as string, algorithm).then(admittedReply);
    const variantCall = (
      v: Variant,
      args: string[],
      keyOf: (i: number) => string,
    ): Call | undefined => {
      const invoke = invokers.get(v);
      return invoke && ((i) => invoke(keyOf(i), args).then(() => true));
    };
    const engineKey = (i: number) => keys[i % n] as string;
    const leanArgs: Record<string, string[]> = {
      'lean-gcra': ['60', String(1_000_000 * 60), '1'],
      'lean-fixed-window': [String(60_000_000), '1000000', '1'],
    };

    const tput = { inFlight: SETTINGS.inFlight, durationMs: SETTINGS.runMs };
    const hotShape = { inFlight: SETTINGS.inFlight, durationMs: SETTINGS.hotRunMs };
    const fixed = { inFlight: SETTINGS.inFlight, durationMs: SETTINGS.variantMs };

    const record = (prefix: string, run: Run) => {
      results.rejected += run.rejected;
      push(`${prefix}:perSec`, run.perSec);
      push(`${prefix}:usec`, run.usecPerCall);
      push(`${prefix}:redisCpu`, run.redisCpuUs);
      push(`${prefix}:scriptCalls`, run.scriptCallsPerCall);
      push(`${prefix}:nodeCpu`, run.nodeCpuUs);
      push(`${prefix}:netIn`, run.netInBytes);
      push(`${prefix}:netOut`, run.netOutBytes);
      push(`${prefix}:other`, run.otherCores);
      for (const [command, stat] of run.inner) {
        const name = `${prefix}:inner:${command}`;
        push(`${name}:calls`, stat.perCall);
        push(`${name}:usec`, stat.usecPerCall);
        const set = results.inner.get(prefix) ?? new Set<string>();
        set.add(command);
        results.inner.set(prefix, set);
      }
    };

    // --- the engine's own JavaScript: RedisStore over a client stub that answers at once ----------
    const stubEngines = new Map<AlgorithmName, SluiceEngine>();
    for (const algorithm of ALGORITHMS) {
      const canned = await sameScript(keys[0] as string, algorithm);
      if (!admittedReply(canned)) {
        throw new Error(`${algorithm}: not admitted: ${JSON.stringify(canned)}`);
      }
      const answer = () => Promise.resolve(canned);
      const stub = { evalsha: answer, fcall: answer, eval: answer } as unknown as Redis;
      stubEngines.set(
        algorithm,
        new SluiceEngine({ store: new RedisStore(stub), policies: THROUGHPUT_POLICIES }),
      );
    }
    const stubRun = async (algorithm: AlgorithmName, keep = true) => {
      const stubEngine = stubEngines.get(algorithm) as SluiceEngine;
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      let count = 0;
      while (performance.now() - t0 < SETTINGS.stubMs) {
        for (let k = 0; k < 100; k++, count++) {
          if (!(await stubEngine.consume(algorithm, ids[count % n] as string)).allowed)
            results.rejected++;
        }
      }
      const used = process.cpuUsage(cpu);
      if (!keep) return;
      push(`stub:${algorithm}:cpu`, (used.user + used.system) / count);
      push(`stub:${algorithm}:wall`, ((performance.now() - t0) * 1000) / count);
    };

    // --- warm-up: JIT, script cache, keys --------------------------------------------------------
    const quiet = await waitForQuiet(SETTINGS.idleWaitS);
    results.machine.quiet = `waited ${quiet.waitedS.toFixed(0)} s for a quiet machine (at most ${SETTINGS.idleWaitS} s); other processes then used ${quiet.otherCores.toFixed(2)} cores`;
    console.log(results.machine.quiet);
    for (const algorithm of ALGORITHMS) await stubRun(algorithm, false);
    const warm = { inFlight: SETTINGS.inFlight, calls: 1500 };
    await measure(admin, 'evalsha', plainCall(), warm);
    await measure(admin, 'evalsha', flexibleCall(), warm);
    await measure(admin, 'evalsha', floorCall(), warm);
    for (const algorithm of EVENTUAL_ALGORITHMS) {
      await measure(admin, engineCommand, eventualCall(algorithm), warm);
    }
    for (const algorithm of ALGORITHMS) {
      await measure(admin, engineCommand, engineCall(algorithm), warm);
      await measure(admin, engineCommand, rawCall(algorithm), warm);
    }
    console.log(`warm-up done in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // --- rounds: contenders alternate, and swap order every other round -------------------------
    for (let round = 0; round < SETTINGS.rounds; round++) {
      const flip = <T>(list: T[]) => (round % 2 === 1 ? list.reverse() : list);
      for (const algorithm of ALGORITHMS) {
        const eventual = EVENTUAL_ALGORITHMS.includes(algorithm);
        const block: Array<[string, () => Promise<Run>]> = flip([
          [`engine:${algorithm}`, () => measure(admin, engineCommand, engineCall(algorithm), tput)],
          [`plain@${algorithm}`, () => measure(admin, 'evalsha', plainCall(), tput)],
          [`flexible@${algorithm}`, () => measure(admin, 'evalsha', flexibleCall(), tput)],
          [`floor@${algorithm}`, () => measure(admin, 'evalsha', floorCall(), tput)],
          [`raw:${algorithm}`, () => measure(admin, engineCommand, rawCall(algorithm), tput)],
          ...(eventual
            ? ([
                [
                  `eventual:${algorithm}`,
                  () => measure(admin, engineCommand, eventualCall(algorithm), tput),
                ],
              ] as Array<[string, () => Promise<Run>]>)
            : []),
        ]);
        const runs = new Map<string, Run>();
        for (const [name, run] of block) runs.set(name, await run());
        for (const [name, run] of runs) record(name, run);
        const engineRun = runs.get(`engine:${algorithm}`) as Run;
        const plainRun = runs.get(`plain@${algorithm}`) as Run;
        const flexibleRun = runs.get(`flexible@${algorithm}`) as Run;
        push(`ratio:${algorithm}`, engineRun.perSec / plainRun.perSec);
        push(`usecRatio:${algorithm}`, engineRun.usecPerCall / plainRun.usecPerCall);
        push(`overFlexible:${algorithm}`, engineRun.redisCpuUs / flexibleRun.redisCpuUs);
        if (eventual) {
          const eventualRun = runs.get(`eventual:${algorithm}`) as Run;
          push(`eventualOverExact:${algorithm}`, eventualRun.redisCpuUs / engineRun.redisCpuUs);
        }
      }
      for (const algorithm of ALGORITHMS) {
        const block: Array<[string, () => Promise<Run>]> = flip([
          [
            `hot-engine:${algorithm}`,
            () => measure(admin, engineCommand, engineCall(algorithm, true), hotShape),
          ],
          [`hot-plain@${algorithm}`, () => measure(admin, 'evalsha', plainCall(true), hotShape)],
          [
            `hot-flexible@${algorithm}`,
            () => measure(admin, 'evalsha', flexibleCall(true), hotShape),
          ],
          [`hot-floor@${algorithm}`, () => measure(admin, 'evalsha', floorCall(true), hotShape)],
        ]);
        const runs = new Map<string, Run>();
        for (const [name, run] of block) runs.set(name, await run());
        for (const [name, run] of runs) record(name, run);
        push(
          `hot-overFlexible:${algorithm}`,
          (runs.get(`hot-engine:${algorithm}`) as Run).redisCpuUs /
            (runs.get(`hot-flexible@${algorithm}`) as Run).redisCpuUs,
        );
        push(
          `hot-ratio:${algorithm}`,
          (runs.get(`hot-engine:${algorithm}`) as Run).perSec /
            (runs.get(`hot-plain@${algorithm}`) as Run).perSec,
        );
      }
      for (const algorithm of flip([...ALGORITHMS])) await stubRun(algorithm);

      // Server-side attribution: the cut-down copies, called raw for a fixed time each.
      const jobs: Array<[string, 'evalsha' | 'fcall', Call]> = [];
      const job = (label: string, v: Variant, call: Call | undefined) => {
        if (call) jobs.push([label, v.kind === 'script' ? 'evalsha' : 'fcall', call]);
      };
      for (const v of common) {
        if (v.name === 'plain') job('v:plain', v, plainCall());
        else if (v.name === 'plain-fcall') {
          job(
            `v:${v.name}`,
            v,
            variantCall(v, [PLAIN_TTL_MS], (i) => plainKeys[i % n] as string),
          );
        } else if (v.name === 'floor-gcra') {
          job(
            `v:${v.name}`,
            v,
            variantCall(v, [], (i) => `${keys[i % n]}:floor`),
          );
        } else job(`v:${v.name}`, v, variantCall(v, args('gcra'), engineKey));
      }
      for (const algorithm of ALGORITHMS) {
        jobs.push([`v:full:${algorithm}`, engineCommand, rawCall(algorithm)]);
        for (const v of perAlgorithm) {
          job(`v:${v.name}:${algorithm}`, v, variantCall(v, args(algorithm), engineKey));
        }
      }
      for (const v of lean) {
        job(
          `v:${v.name}`,
          v,
          variantCall(v, leanArgs[v.name] ?? [], (i) => `${keys[i % n]}:${v.name}`),
        );
      }
      // Two passes, the second in reverse order: each copy is measured twice per round.
      for (const pass of [flip(jobs), [...jobs].reverse()]) {
        for (const [name, command, call] of pass) {
          record(name, await measure(admin, command, call, fixed));
        }
      }
      console.log(
        `round ${round + 1}/${SETTINGS.rounds} done at ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }

    // --- memory per identifier ------------------------------------------------------------------
    const memoryEngine = new SluiceEngine({
      store: new RedisStore(client),
      policies: MEMORY_POLICIES,
    });
    const memoryOf = async (name: string, create: (id: string) => Promise<unknown>) => {
      await admin.flushall();
      const usedBefore = Number((await info(admin, 'memory')).get('used_memory'));
      for (let i = 0; i < MEMORY_IDS.length; i += SETTINGS.inFlight) {
        await Promise.all(MEMORY_IDS.slice(i, i + SETTINGS.inFlight).map(create));
      }
      const usedAfter = Number((await info(admin, 'memory')).get('used_memory'));
      const all = await admin.keys('*');
      const pipeline = admin.pipeline();
      for (const k of all) pipeline.call('MEMORY', 'USAGE', k, 'SAMPLES', '0');
      const usages = ((await pipeline.exec()) ?? []).map(([error, value]) => {
        if (error) throw error;
        return Number(value);
      });
      const total = usages.reduce((a, b) => a + b, 0);
      const keyBytes = all.reduce((a, k) => a + Buffer.byteLength(k), 0);
      const types = new Set(await Promise.all(all.slice(0, 20).map((k) => admin.type(k))));
      const encodings = new Set(
        await Promise.all(
          all.slice(0, 20).map((k) => admin.object('ENCODING', k) as Promise<string>),
        ),
      );
      const sample = all[0] ?? '';
      results.memory.push({
        name,
        identifiers: MEMORY_IDS.length,
        keys: all.length,
        perIdentifier: total / MEMORY_IDS.length,
        perKey: total / Math.max(1, all.length),
        minKey: Math.min(...usages),
        maxKey: Math.max(...usages),
        keyLength: keyBytes / Math.max(1, all.length),
        usedMemoryPerIdentifier: (usedAfter - usedBefore) / MEMORY_IDS.length,
        type: [...types].join(','),
        encoding: [...encodings].join(','),
        sampleKey: sample,
      });
    };
    for (const algorithm of ALGORITHMS) {
      await memoryOf(algorithm, async (id) => {
        const decision = await memoryEngine.consume(algorithm, id);
        if (!decision.allowed) results.rejected++;
      });
    }
    await memoryOf('plain script', (id) =>
      client.evalsha(plainSha, 1, `${baseKey(id)}:plain`, PLAIN_TTL_MS),
    );
    await eventualStore.close();
    await admin.flushall();

    results.machine.loadAfter = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    results.elapsedS = (performance.now() - started) / 1000;
    const docPath = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));
    const text = await writeReport(results, docPath);
    console.log(text);
    console.log(`\nwritten to ${docPath}`);
  } finally {
    clearTimeout(abort);
    await stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
