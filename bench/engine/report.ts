import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { ALGORITHMS, type AlgorithmName } from '../../libs/sluice/src/internals.js';
import { spread, type Spread } from './measure.js';

export interface MemoryRow {
  name: string;
  identifiers: number;
  keys: number;
  /** MEMORY USAGE summed over an identifier's keys. */
  perIdentifier: number;
  perKey: number;
  minKey: number;
  maxKey: number;
  /** Average key name length, bytes. */
  keyLength: number;
  /** INFO used_memory growth per identifier (adds the TTL entry and hash-table slots). */
  usedMemoryPerIdentifier: number;
  type: string;
  encoding: string;
  sampleKey: string;
}

export interface BytesRow {
  algorithm: AlgorithmName;
  /** `FCALL <function>` or `EVALSHA <sha>`. */
  command: string;
  keyLength: number;
  /** RESP size of the command the store sends. */
  computed: number;
  /** The same without KEYS[1]'s characters. */
  fixed: number;
  spec: string;
}

export interface Results {
  settings: {
    rounds: number;
    runMs: number;
    hotRunMs: number;
    variantMs: number;
    stubMs: number;
    inFlight: number;
    identifiers: number;
    memoryIdentifiers: number;
  };
  machine: {
    cpu: string;
    cores: number;
    node: string;
    redis: string;
    ioredis: string;
    date: string;
    command: string;
    loadBefore: string;
    loadAfter: string;
    quiet: string;
    /** Commit, and whether libs/ had uncommitted changes. */
    code: string;
  };
  series: Map<string, number[]>;
  /** Per measured contender, the commands its script ran. */
  inner: Map<string, Set<string>>;
  memory: MemoryRow[];
  bytes: BytesRow[];
  variants: Array<{ name: string; what: string; skipped?: string }>;
  /** `function` keywords in the engine's Lua: closures an EVALSHA-style script rebuilds per call. */
  functions: number;
  /** What the store sends per decision. */
  engineCommand: 'evalsha' | 'fcall';
  rejected: number;
  elapsedS: number;
}

/** Redis CPU per decision against the rate-limiter-flexible guard's per request, either key mode. */
const OVER_FLEXIBLE: Record<AlgorithmName, number | undefined> = {
  gcra: 0.5,
  'fixed-window': 0.5,
  'token-bucket': 0.5,
  'leaky-bucket': 0.5,
  'sliding-window': 0.7,
  'sliding-log': 1.0,
  concurrency: undefined,
};
/** Eventual mode is measured for these, against the same algorithm in exact mode. */
export const EVENTUAL_ALGORITHMS: AlgorithmName[] = ['gcra', 'fixed-window'];
/**
 * Eventual mode's Redis CPU per decision against exact mode's, on many identifiers: never more.
 * Each of the 10 000 comes back less often than its sync interval here, so Redis decides it as in
 * exact mode (docs/algorithms.md, "Only for identifiers seen often"); the earlier 0.5× is out of
 * reach without widening the over-admission bound (docs/benchmarks.md, "Eventual mode on many
 * identifiers").
 */
const EVENTUAL_OVER_EXACT = 1;

const TARGETS = {
  throughputRatio: 0.9,
  fixedWindowVsPlain: 1.2,
  gcraUsec: 7,
  memoryOverKey: 100,
  bytesSent: 200,
};

const START = '<!-- bench:engine:start -->';
const END = '<!-- bench:engine:end -->';

type Fmt = (v: number) => string;
const f1: Fmt = (v) => (Number.isFinite(v) ? v.toFixed(1) : '–');
const f2: Fmt = (v) => (Number.isFinite(v) ? v.toFixed(2) : '–');
const f0: Fmt = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
const pct: Fmt = (v) => (Number.isFinite(v) ? `${(v * 100).toFixed(0)} %` : '–');
const verdict = (ok: boolean) => (ok ? '**PASS**' : '**MISS**');

/** "median (min–max)". */
const range = (s: Spread, fmt: Fmt) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;

export async function writeReport(results: Results, docPath: string): Promise<string> {
  const section = render(results);
  await writeMarkedSection(docPath, START, END, section);
  return section;
}

/** Puts `section` between the `start` and `end` markers of docPath, or at its end if absent. */
export async function writeMarkedSection(
  docPath: string,
  start: string,
  end: string,
  section: string,
): Promise<void> {
  const existing = await readFile(docPath, 'utf8').catch(() => '# Benchmarks\n\n');
  const from = existing.indexOf(start);
  const to = existing.indexOf(end);
  const next =
    from >= 0 && to > from
      ? existing.slice(0, from) + section + existing.slice(to + end.length)
      : `${existing.trimEnd()}\n\n${section}\n`;
  await mkdir(dirname(docPath), { recursive: true });
  // Formatted as `npm run lint` (prettier --check) expects it.
  const options = (await resolveConfig(docPath)) ?? {};
  await writeFile(docPath, await format(next, { ...options, filepath: docPath }));
}

function render(r: Results): string {
  const s = (name: string): Spread => spread(r.series.get(name) ?? []);
  const med = (name: string) => s(name).median;
  const all = (prefix: string, suffix: string): Spread =>
    spread(ALGORITHMS.flatMap((a) => r.series.get(`${prefix}${a}:${suffix}`) ?? []));
  const everyRun = (suffix: string) =>
    [...r.series].filter(([name]) => name.endsWith(`:${suffix}`)).flatMap(([, values]) => values);
  const plainUsec = all('plain@', 'usec');
  const plainRedisCpu = all('plain@', 'redisCpu');
  const plainNodeCpu = all('plain@', 'nodeCpu');
  const plainRate = all('plain@', 'perSec');
  const { settings: cfg, machine: m } = r;
  const CMD = r.engineCommand.toUpperCase();
  const out: string[] = [];
  const line = (text = '') => out.push(text);

  // Redis CPU per call of a variant, and the stages of one algorithm's decision.
  const cpu = (name: string) => med(`${name}:redisCpu`);
  const scriptCalls = (name: string) => med(`${name}:scriptCalls`);
  const both = (name: string) => `${f1(med(`${name}:usec`))} / ${f1(cpu(name))}`;
  const perCall = (cpu('v:ten-calls') - cpu('v:return-1')) / 10;
  const trivialInside = med('v:ten-calls:inner:exists:usec') / 10;
  const stages = (a: AlgorithmName) => {
    const commands = [...(r.inner.get(`v:full:${a}`) ?? [])]
      .map((c) => ({
        c,
        calls: med(`v:full:${a}:inner:${c}:calls`),
        usec: med(`v:full:${a}:inner:${c}:usec`),
      }))
      .filter((x) => x.calls > 0);
    const full = cpu(`v:full:${a}`);
    return {
      dispatch: cpu('v:return-1'),
      parse: cpu('v:parsed') - cpu('v:return-1'),
      evaluate: cpu(`v:evaluated:${a}`) - cpu('v:parsed'),
      write: cpu(`v:written:${a}`) - cpu(`v:evaluated:${a}`),
      reply: full - cpu(`v:written:${a}`),
      full,
      penaltyRead: full - cpu(`v:no-penalty-read:${a}`),
      specCache: cpu(`v:no-spec-cache:${a}`) - full,
      evalStyle: cpu(`v:eval-style:${a}`) - full,
      calls: commands.reduce((t, x) => t + x.calls, 0),
      inside: commands.reduce((t, x) => t + x.usec, 0),
      names: commands.map((x) => x.c.toUpperCase()),
      list: commands
        .map((x) => `${x.c.toUpperCase()}${Math.abs(x.calls - 1) < 0.01 ? '' : `×${f2(x.calls)}`}`)
        .join(', '),
    };
  };

  line(START);
  line('## Engine');
  line();
  line(
    'Generated by `npm run bench:engine` (bench/engine/engine.bench.ts) from the run below; do not edit the figures by hand, run the bench again.',
  );
  line();
  line('| | |');
  line('|---|---|');
  line(`| CPU | ${m.cpu}, ${m.cores} logical cores (os.cpus()) |`);
  line(`| Node | ${m.node} |`);
  line(
    `| Redis | ${m.redis} (its own redis-server on a loopback port, \`--save '' --appendonly no\`) |`,
  );
  line(`| ioredis | ${m.ioredis} (one connection, default options: no auto-pipelining) |`);
  line(`| Date | ${m.date} |`);
  line(`| Command | \`${m.command}\` |`);
  line(`| Code | ${m.code} |`);
  line(`| Load average (1, 5, 15 min) | ${m.loadBefore} at start, ${m.loadAfter} at end |`);
  line(
    `| Other processes | ${m.quiet}; during the measured runs, median ${f2(spread(everyRun('other')).median)} cores (max ${f2(spread(everyRun('other')).max)}) |`,
  );
  line(`| Duration | ${r.elapsedS.toFixed(0)} s |`);
  line();
  line(
    `The store sends each decision in an \`${r.bytes[0]?.command ?? CMD} …\` (the decisions made in one turn of the event loop, or while the previous FCALL is out, share one: \`operateMany\`); the plain script is called by raw ioredis \`evalsha\`. Rounds: ${cfg.rounds}. In each round every contender runs once, in alternation (engine, raw plain, the engine's Lua called raw, for each algorithm; the order reversed every other round), so drift hits all alike. Figures are the **median (min–max) over the rounds**. Throughput runs last ${cfg.runMs} ms (hot identifier: ${cfg.hotRunMs} ms) with ${cfg.inFlight} calls kept in flight from one Node process over one ioredis connection; identifiers cycle over ${cfg.identifiers.toLocaleString('en-US')} IPv4 strings (\`sluice:{ip:10.x.y.z}\`). Policies: limit 1 000 000 per 60 s (sliding-log: 100 000 per 1 s, so its log stays short), so nothing is rejected: ${r.rejected} rejections in the whole run. CONFIG RESETSTAT precedes each run; server µs per call is the usec of \`cmdstat_${r.engineCommand}\` for the engine and of \`cmdstat_evalsha\` for the plain script, divided by the calls made (decisions, for the engine). Redis and Node share the machine's ${m.cores} cores; "Redis CPU" is the Redis main thread's user+sys time per call (INFO cpu): it also counts reading the request and writing the reply, but unlike usec_per_call it is not inflated when Redis is descheduled by other processes.`,
  );
  line();
  const others = spread(everyRun('other'));
  if (others.median > 0.25) {
    line(
      `> Note: other processes used a median ${f2(others.median)} cores (max ${f2(others.max)}) of the ${m.cores} during the measured runs, so absolute figures are inflated and spread wider than on an idle machine (the min of a range is the least disturbed round). Ratios of contenders run side by side are less affected.`,
    );
    line();
  } else if (others.max > 0.5) {
    line(
      `> Note: the machine was mostly quiet (other processes: median ${f2(others.median)} cores), but reached ${f2(others.max)} cores during some runs; the widest ranges below come from those.`,
    );
    line();
  }

  // --- targets -------------------------------------------------------------------------------
  const targetRows: string[] = [];
  const misses: string[] = [];
  for (const a of ALGORITHMS) {
    const ratio = s(`ratio:${a}`);
    const ok = ratio.median >= TARGETS.throughputRatio;
    if (!ok) misses.push(`throughput:${a}`);
    targetRows.push(
      `| Engine ≥ 90 % of raw ioredis EVALSHA (plain script) throughput, ${a} | ${range(ratio, pct)} | ${verdict(ok)} |`,
    );
  }
  const fwPaired = s('usecRatio:fixed-window');
  const fwOfMedians = med('engine:fixed-window:usec') / plainUsec.median;
  const fwOk = fwOfMedians <= TARGETS.fixedWindowVsPlain;
  if (!fwOk) misses.push('fixed-window-usec');
  targetRows.push(
    `| fixed-window ≤ 1.2× the plain script, server µs/call (median of the engine's fixed-window runs ÷ median of all plain runs; in brackets the ratio paired per round) | ${f2(fwOfMedians)}× = ${f1(med('engine:fixed-window:usec'))} ÷ ${f2(plainUsec.median)} µs (paired: ${range(fwPaired, f2)}×) | ${verdict(fwOk)} |`,
  );
  const gcra = s('engine:gcra:usec');
  const gcraOk = gcra.median <= TARGETS.gcraUsec;
  if (!gcraOk) misses.push('gcra-usec');
  targetRows.push(`| gcra ≤ 7 µs per call (server) | ${range(gcra, f1)} µs | ${verdict(gcraOk)} |`);
  for (const row of r.memory) {
    if (row.name === 'sliding-log' || row.name === 'plain script') continue;
    const over = row.perIdentifier - row.keyLength;
    const ok = over <= TARGETS.memoryOverKey;
    if (!ok) misses.push(`memory:${row.name}`);
    targetRows.push(
      `| Memory ≤ 100 B + key length per identifier, ${row.name} | ${f0(row.perIdentifier)} B = key ${f0(row.keyLength)} B + ${f0(over)} B | ${verdict(ok)} |`,
    );
  }
  const worstNetIn = Math.max(...ALGORITHMS.map((a) => med(`engine:${a}:netIn`)));
  const worstComputed = Math.max(...r.bytes.map((b) => b.computed));
  const bytesOk = worstNetIn <= TARGETS.bytesSent && worstComputed <= TARGETS.bytesSent;
  if (!bytesOk) misses.push('bytes');
  targetRows.push(
    `| Bytes sent to Redis per single-policy consume ≤ 200 B | ${f0(worstComputed)} B computed, ${f0(worstNetIn)} B measured (largest over the algorithms; KEYS[1] of ${r.bytes[0]?.keyLength ?? '?'} chars) | ${verdict(bytesOk)} |`,
  );
  // Redis CPU per decision against the peer, both key modes (docs/benchmarks.md explains why
  // this measure, which the co-located client cannot distort).
  const flexibleRows: string[] = [];
  for (const a of ALGORITHMS) {
    const target = OVER_FLEXIBLE[a];
    for (const [mode, prefix] of [
      ['one identifier', 'hot-'],
      [`${cfg.identifiers.toLocaleString('en-US')} identifiers`, ''],
    ] as const) {
      const ratio = s(`${prefix}overFlexible:${a}`);
      const ok = target === undefined || ratio.median <= target;
      if (!ok) misses.push(`flexible:${a}:${prefix}`);
      const sluice = med(`${prefix}engine:${a}:redisCpu`);
      const flexible = med(`${prefix}flexible@${a}:redisCpu`);
      const floor = med(`${prefix}floor@${a}:redisCpu`);
      flexibleRows.push(
        `| ${a} | ${mode} | ${f1(sluice)} (${f1(med(`${prefix}engine:${a}:usec`))} in ${CMD}) | ${f1(flexible)} | ${range(ratio, f2)}× | ${target === undefined ? 'reported' : `≤ ${target}×`} | ${f1(floor)} | ${f0(1e6 / sluice)} | ${f0(1e6 / flexible)} | ${target === undefined ? '' : verdict(ok)} |`,
      );
    }
  }
  for (const a of EVENTUAL_ALGORITHMS) {
    const ratio = s(`eventualOverExact:${a}`);
    const ok = ratio.median <= EVENTUAL_OVER_EXACT;
    if (!ok) misses.push(`eventual:${a}`);
    targetRows.push(
      `| ${a} with consistency eventual, ${cfg.identifiers.toLocaleString('en-US')} identifiers: Redis CPU per decision ≤ ${EVENTUAL_OVER_EXACT}× exact mode's | ${range(ratio, f2)}× (${f1(med(`eventual:${a}:redisCpu`))} vs ${f1(med(`engine:${a}:redisCpu`))} µs; script calls per decision ${f2(scriptCalls(`eventual:${a}`))}) | ${verdict(ok)} |`,
    );
  }
  line('### Targets');
  line();
  line('| Target | Measured: median (min–max) | Verdict |');
  line('|---|---|---|');
  for (const row of targetRows) line(row);
  line();
  line('### Redis CPU per decision against rate-limiter-flexible');
  line();
  line(
    `Redis's main-thread CPU (INFO) per decision, the one resource every instance shares: 10⁶ ÷ it is how many decisions one Redis core (or one Cluster shard) can take. Sluice is the engine over RedisStore; rate-limiter-flexible is \`RateLimiterRedis#consume\` on the same ioredis connection (one EVALSHA per request, as its guard calls it); the floor is a script doing only a GET and a SET with expiry per decision (\`FLOOR_SCRIPT\`, bench/engine/lua-variants.ts), what any limiter keeping one string per identifier must do. The three run side by side in every round with ${cfg.inFlight} calls in flight; "×" is Sluice ÷ rate-limiter-flexible per round, median (min–max) over the rounds.`,
  );
  line();
  line(
    '| Algorithm | Identifiers | Sluice, Redis CPU µs/decision | rate-limiter-flexible, µs/request | × rate-limiter-flexible | Target | Floor (GET + SET script), µs | Sluice decisions/s per Redis core | rate-limiter-flexible requests/s per Redis core | Verdict |',
  );
  line('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of flexibleRows) line(row);
  line();

  // --- throughput and server time --------------------------------------------------------------
  line(
    `### Server time and throughput, ${cfg.identifiers.toLocaleString('en-US')} identifiers cycling`,
  );
  line();
  line(
    `"Raw plain" is ioredis \`evalsha(plainSha, 1, key, ttl)\` of the plain script (\`INCR KEYS[1]\` + \`PEXPIRE KEYS[1] ARGV[1]\`), run beside each algorithm; "same Lua raw" is ioredis \`${r.engineCommand}\` of the engine's own Lua with the exact arguments the store sends, without the engine's TypeScript around it.`,
  );
  line();
  line(
    '| Contender | Server µs/call (usec_per_call) | Redis CPU µs/call | Decisions/s | Raw plain decisions/s (same rounds) | Engine ÷ raw plain | Same Lua raw, decisions/s | Node CPU µs/call | Other processes, cores |',
  );
  line('|---|---|---|---|---|---|---|---|---|');
  line(
    `| plain script (all plain runs) | ${range(plainUsec, f2)} | ${range(plainRedisCpu, f1)} | ${range(plainRate, f0)} | | | | ${range(plainNodeCpu, f1)} | ${f2(all('plain@', 'other').median)} |`,
  );
  for (const a of ALGORITHMS) {
    line(
      `| engine, ${a} | ${range(s(`engine:${a}:usec`), f1)} | ${range(s(`engine:${a}:redisCpu`), f1)} | ${range(s(`engine:${a}:perSec`), f0)} | ${range(s(`plain@${a}:perSec`), f0)} | ${range(s(`ratio:${a}`), pct)} | ${range(s(`raw:${a}:perSec`), f0)} | ${range(s(`engine:${a}:nodeCpu`), f1)} (same Lua raw: ${f1(med(`raw:${a}:nodeCpu`))}) | ${f2(med(`engine:${a}:other`))} |`,
    );
  }
  line();
  line('Where the time goes, per contender (medians; busy = CPU per call × calls per second):');
  line();
  line('| Contender | Decisions/s | Redis main thread busy | Node process busy | Bound by |');
  line('|---|---|---|---|---|');
  const bound = (redis: number, node: number) =>
    redis >= 0.85 && redis >= node
      ? 'Redis (one core)'
      : node >= 0.85
        ? 'Node (one core)'
        : 'neither saturated: CPU shared with other processes';
  const utilRow = (label: string, rate: number, redisCpu: number, nodeCpu: number) => {
    const ru = (rate * redisCpu) / 1e6;
    const nu = (rate * nodeCpu) / 1e6;
    line(`| ${label} | ${f0(rate)} | ${pct(ru)} | ${pct(nu)} | ${bound(ru, nu)} |`);
  };
  utilRow('raw plain', plainRate.median, plainRedisCpu.median, plainNodeCpu.median);
  for (const a of ALGORITHMS) {
    utilRow(
      `engine, ${a}`,
      med(`engine:${a}:perSec`),
      med(`engine:${a}:redisCpu`),
      med(`engine:${a}:nodeCpu`),
    );
    utilRow(
      `same Lua raw, ${a}`,
      med(`raw:${a}:perSec`),
      med(`raw:${a}:redisCpu`),
      med(`raw:${a}:nodeCpu`),
    );
  }
  line();
  line(
    `The engine's own JavaScript per decision, without network or ioredis (RedisStore over a stub client that answers at once with the reply Redis gave; sequential awaits, ${cfg.stubMs} ms per algorithm per round), Node CPU: ${ALGORITHMS.map((a) => `${a} ${range(s(`stub:${a}:cpu`), f1)} µs`).join(', ')}. ioredis itself costs about the "raw plain" Node CPU per call above.`,
  );
  line();

  line('### One hot identifier (`sluice:{ip:203.0.113.7}`), separately');
  line();
  line(
    '| Algorithm | Server µs/call | Engine decisions/s | Raw plain decisions/s (one key) | Engine ÷ raw plain |',
  );
  line('|---|---|---|---|---|');
  for (const a of ALGORITHMS) {
    line(
      `| ${a} | ${range(s(`hot-engine:${a}:usec`), f1)} | ${range(s(`hot-engine:${a}:perSec`), f0)} | ${range(s(`hot-plain@${a}:perSec`), f0)} | ${range(s(`hot-ratio:${a}`), pct)} |`,
    );
  }
  line();

  // --- memory -----------------------------------------------------------------------------------
  line('### Memory per identifier');
  line();
  line(
    `${r.memory[0]?.identifiers ?? '?'} fresh identifiers (\`198.51.x.y\`) with one admitted request each under a 100-per-minute policy (sliding-window: 10 segments), then \`MEMORY USAGE key SAMPLES 0\` of every key, averaged. MEMORY USAGE counts the key's name, its value and the main dictionary entry; \`used_memory\` growth also counts the TTL entry and hash-table slots (and moves in steps when a table grows).`,
  );
  line();
  line(
    '| Algorithm | Keys per identifier | MEMORY USAGE per identifier | Key length | Usage − key length | min–max per key | used_memory growth per identifier | Type / encoding | Example key |',
  );
  line('|---|---|---|---|---|---|---|---|---|');
  for (const row of r.memory) {
    line(
      `| ${row.name} | ${f2(row.keys / row.identifiers)} | ${f0(row.perIdentifier)} B | ${f1(row.keyLength)} B | ${f0(row.perIdentifier - row.keyLength)} B | ${row.minKey}–${row.maxKey} B | ${f0(row.usedMemoryPerIdentifier)} B | ${row.type} / ${row.encoding} | \`${row.sampleKey}\` |`,
    );
  }
  line();

  // --- bytes ------------------------------------------------------------------------------------
  line('### Bytes sent per decision (single-policy consume)');
  line();
  line(
    `Computed: the RESP encoding of the command the store sends (\`*N\`, then \`$len\` + bytes + CRLF for each of: ${CMD}, ${r.engineCommand === 'fcall' ? 'the function name' : 'the 40-char SHA'}, numkeys, KEYS[1], op, now (empty: Redis TIME), block duration, the spec). Measured: \`total_net_input_bytes\` growth over a throughput run ÷ decisions (medians).`,
  );
  line();
  line(
    '| Algorithm | Command | Computed | All but KEYS[1] | Measured in | Measured out (reply) | Spec sent |',
  );
  line('|---|---|---|---|---|---|---|');
  for (const b of r.bytes) {
    line(
      `| ${b.algorithm} | \`${b.command}\` | ${b.computed} B | ${b.fixed} B + key of ${b.keyLength} | ${f0(med(`engine:${b.algorithm}:netIn`))} B | ${f0(med(`engine:${b.algorithm}:netOut`))} B | \`${b.spec}\` |`,
    );
  }
  const fixedMax = Math.max(...r.bytes.map((b) => b.fixed));
  const hashedKey = 'sluice:{user:#h:}'.length + 43;
  line();
  line(
    `KEYS[1] (\`<prefix>:{<keyKind>:<identifier>}\`) may be ${TARGETS.bytesSent - fixedMax} characters long before a single-policy consume passes ${TARGETS.bytesSent} B with the longest spec above (policy names travel in the spec). An IPv6 key (\`sluice:{ip:2001:db8:85a3::8a2e:370:7334}\`, 41 chars) gives ${fixedMax + 41} B; a hashed identifier (\`#h:\` + 43 chars of SHA-256, key \`sluice:{user:#h:…}\`, ${hashedKey} chars) ${fixedMax + hashedKey} B.`,
  );
  line();

  // --- attribution ------------------------------------------------------------------------------
  line('### Where the server time goes (copies of the Lua with parts cut away)');
  line();
  line(
    `Each copy is built at run time from the library's definitions (\`loadLuaLibrary().definitions\`) and loaded under its own name (libs/ is untouched), then called raw with the engine's identifiers and arguments, ${cfg.inFlight} in flight, for ${cfg.variantMs} ms, twice per round (forward, then reverse order): medians over ${cfg.rounds * 2} runs. Figures are usec_per_call / Redis CPU µs per call. **Stage costs are differences of the Redis CPU medians**, which are less disturbed by other processes; small ones are within noise.`,
  );
  line();
  line(`- \`full\`: ${CMD} of the engine's own library, as the store calls it`);
  for (const v of r.variants)
    line(`- \`${v.name}\`: ${v.skipped ? `skipped, ${v.skipped}` : v.what}`);
  line();
  line(
    `Common to all algorithms (gcra's arguments): plain script (EVALSHA) ${both('v:plain')} µs; the same as a function (FCALL) ${both('v:plain-fcall')} µs; \`return 1\` function ${both('v:return-1')} µs; \`parsed\` ${both('v:parsed')} µs; \`time\` ${both('v:time')} µs; \`floor-gcra\` ${both('v:floor-gcra')} µs. One redis.call() of a trivial keyed command (EXISTS), from \`ten-calls\`: ${f2((med('v:ten-calls:usec') - med('v:return-1:usec')) / 10)} / ${f2(perCall)} µs, of which the command itself ${f2(trivialInside)} µs by commandstats; the rest is the Lua-to-Redis bridge (argument conversion, ACL/OOM/cluster checks, reply conversion).`,
  );
  line();
  line(
    'The `evaluated`, `written` and `no-penalty-read` cuts are made in `consumeOne`, the path of a single-policy consume with a string state; sliding-log and concurrency keep their state in a sorted set and take the general path, which those cuts do not stop, so their columns there equal `full`.',
  );
  line();
  line('Cumulative, usec_per_call / Redis CPU µs per call (medians):');
  line();
  line(
    '| Algorithm | `return 1` | parsed | evaluated | written | full | full without the penalty read | full without spec cache | same Lua as one EVALSHA script |',
  );
  line('|---|---|---|---|---|---|---|---|---|');
  for (const a of ALGORITHMS) {
    line(
      `| ${a} | ${both('v:return-1')} | ${both('v:parsed')} | ${both(`v:evaluated:${a}`)} | ${both(`v:written:${a}`)} | ${both(`v:full:${a}`)} | ${both(`v:no-penalty-read:${a}`)} | ${both(`v:no-spec-cache:${a}`)} | ${both(`v:eval-style:${a}`)} |`,
    );
  }
  line();
  line('Stages, µs of Redis CPU per decision (differences of the medians above):');
  line();
  line(
    '| Algorithm | Dispatch, args, I/O (`return 1`) | TIME & spec lookup | Evaluate (penalty and state MGET, decide) | Write (+TTL) | Reply | = full | Penalty read (full − without) | Spec cache saves | Function library saves (vs one EVALSHA script) | redis.call()s per decision (µs inside the commands, commandstats) |',
  );
  line('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const a of ALGORITHMS) {
    const st = stages(a);
    line(
      `| ${a} | ${f1(st.dispatch)} | ${f1(st.parse)} | ${f1(st.evaluate)} | ${f1(st.write)} | ${f1(st.reply)} | ${f1(st.full)} | ${f1(st.penaltyRead)} | ${f1(st.specCache)} | ${f1(st.evalStyle)} | ${f1(st.calls)}: ${st.list} (${f1(st.inside)} µs) |`,
    );
  }
  line();
  line(
    `Hand-written single-purpose functions, same semantics for one policy without penalty (bench/engine/lua-variants.ts), usec_per_call / Redis CPU µs: lean gcra (TIME, GET, SET PX) ${both('v:lean-gcra')}; lean fixed-window on the engine's string model (TIME, GET, SET PXAT) ${both('v:lean-fixed-window')}; against the plain script ${both('v:plain')} and the plain function ${both('v:plain-fcall')} measured alongside.`,
  );
  line();

  // --- misses -----------------------------------------------------------------------------------
  line('### Targets missed, and why');
  line();
  if (misses.length === 0) line('None: every target above passes.');
  const stageText = (a: AlgorithmName) => {
    const st = stages(a);
    const calls = st.calls * perCall + Math.max(0, st.inside - st.calls * trivialInside);
    const lua = st.full - st.dispatch - calls;
    return `In Redis CPU per decision (medians of the cut-down copies) it costs ${f1(st.full)} µs: dispatch, argument passing and socket I/O ${f1(st.dispatch)} µs (what a \`return 1\` function costs with the same arguments), TIME and the spec lookup ${f1(st.parse)} µs, the penalty and state read (one MGET) and the decision ${f1(st.evaluate)} µs (reading the penalty with the state rather than the state alone: ${f1(st.penaltyRead)} µs), the write and its TTL ${f1(st.write)} µs, building the reply ${f1(st.reply)} µs. It makes ${f1(st.calls)} redis.call()s per decision (${st.names.join(', ')}; ${f1(st.inside)} µs inside the commands by commandstats): at ${f2(perCall)} µs per trivial redis.call() they come to about ${f1(calls)} µs, which leaves about ${f1(lua)} µs of Lua work (locals, tables and closures per call, arithmetic, the reply)`;
  };
  if (misses.includes('fixed-window-usec')) {
    line(
      `- **fixed-window ${f1(med('engine:fixed-window:usec'))} µs/call vs the plain script's ${f2(plainUsec.median)} µs (${f2(fwOfMedians)}×, target ≤ 1.2×).** ${stageText('fixed-window')}. The plain script makes 2 calls and has no parsing, no penalty read and a 1-integer reply; as a function it costs ${both('v:plain-fcall')} µs. A lean fixed-window function on the same string model costs ${both('v:lean-fixed-window')} µs, ${f2(med('v:lean-fixed-window:usec') / med('v:plain:usec'))}× the plain script measured alongside (${both('v:plain')} µs): with 3 redis.call()s against 2, TIME among them, even lean code stays above 1.2×. The budget at 1.2× is ${f1(1.2 * plainUsec.median)} µs, and reading Redis TIME (which Sluice needs, as instances' clocks drift, and the plain script does not do) alone adds ${f1(med('v:time:usec') - med('v:return-1:usec'))} µs of usec_per_call.`,
    );
  }
  if (misses.includes('gcra-usec')) {
    line(
      `- **gcra ${f1(gcra.median)} µs/call (target ≤ 7 µs).** ${stageText('gcra')}. On this machine the floor alone is ${med('v:floor-gcra:usec') > TARGETS.gcraUsec ? 'above' : 'just under'} the target: a function that only reads TIME, GETs and SETs with PX a constant and returns 1 (\`floor-gcra\`) costs ${both('v:floor-gcra')} µs (TIME alone adds ${f1(med('v:time:usec') - med('v:return-1:usec'))} µs of usec_per_call to a bare FCALL's ${f1(med('v:return-1:usec'))}), and a lean GCRA function with the arithmetic and a 4-field reply ${both('v:lean-gcra')} µs; the plain script costs ${both('v:plain')} µs.`,
    );
  }
  const tMisses = ALGORITHMS.filter((a) => misses.includes(`throughput:${a}`));
  if (tMisses.length > 0) {
    const list = (f: (a: AlgorithmName) => string) => tMisses.map(f).join(' / ');
    line(
      `- **Engine throughput below 90 % of raw ioredis (${list((a) => `${a} ${pct(med(`ratio:${a}`))}`)}).** Raw plain runs a 2-call script (${f2(plainUsec.median)} µs, Redis CPU ${f1(plainRedisCpu.median)} µs per call) and spends ${f1(plainNodeCpu.median)} µs of Node CPU per call. The engine's Lua costs Redis ${list((a) => f1(med(`engine:${a}:redisCpu`)))} µs of CPU per decision (${tMisses.join(' / ')}), which caps one Redis core at 10⁶ ÷ that many decisions/s whatever the client does; the same Lua called raw reaches ${list((a) => pct(med(`raw:${a}:perSec`) / med(`plain@${a}:perSec`)))} of raw plain, so most of the gap is server time. The engine adds its own TypeScript on top (policy lookup, spec encoding, reply decoding, the Decision objects): ${list((a) => f1(med(`stub:${a}:cpu`)))} µs per decision without any I/O, and ${list((a) => f1(med(`engine:${a}:nodeCpu`)))} µs of Node CPU per decision in the runs against ${list((a) => f1(med(`raw:${a}:nodeCpu`)))} µs for the same Lua called raw. Even with Redis free, Node alone would cap the engine at raw plain's ${f1(plainNodeCpu.median)} µs ÷ the engine's Node CPU per decision = ${list((a) => pct(plainNodeCpu.median / med(`engine:${a}:nodeCpu`)))} of raw plain. With both processes on ${m.cores} cores, every µs of Redis CPU also slows the client.`,
    );
  }
  for (const row of r.memory) {
    if (!misses.includes(`memory:${row.name}`)) continue;
    line(
      `- **Memory, ${row.name}: ${f0(row.perIdentifier)} B per identifier, key ${f0(row.keyLength)} B, so ${f0(row.perIdentifier - row.keyLength)} B over the key's length (target ≤ 100 B).** ${row.type} encoded as ${row.encoding}; ${row.keys / row.identifiers} key(s) per identifier.`,
    );
  }
  if (misses.includes('bytes')) {
    line(
      `- **Bytes sent: ${f0(worstComputed)} B computed, ${f0(worstNetIn)} B measured (target ≤ 200 B).**`,
    );
  }
  line();
  line(END);
  return out.join('\n');
}
