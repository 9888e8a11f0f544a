/**
 * Where a batched decision's Redis CPU goes on 10 000 identifiers: the library's `operateMany`
 * FCALLed directly with batches of 64 consumes of one policy (the lean batch of charge.ops.lua),
 * beside copies of the library with one part cut away, loaded under names of their own (libs/ is
 * never changed). A cut whose anchor text is gone (the Lua changed) stops the run, naming it.
 * BENCH_BASE, a git revision, adds the library's Lua as it was there, taken from `git archive`
 * into a temporary folder, so a change is measured against its parent in the same rounds.
 * `npx tsx bench/engine/batch.cuts.ts` (BENCH_ROUNDS, 4; BENCH_CUTS and BENCH_ALGORITHMS, comma
 * lists, run only those); figures in docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { loadLuaLibrary } from '../../libs/sluice/src/store/script.source.js';
import { startRedisServer } from '../../test/support/redis-servers.js';
import { redisCpuPerDecision, spread } from './measure.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : 4;
const IDENTIFIERS = 10_000;
const BATCH = Number(process.env.BENCH_BATCH) > 0 ? Number(process.env.BENCH_BATCH) : 64;
const FCALLS_IN_FLIGHT = 2;
const WARM_MS = 200;
const RUN_MS = 1200;
const SPECS: Partial<Record<'gcra' | 'fixed-window', string>> = {
  gcra: 'gcra gc 1000000 60000 - - - e 1',
  'fixed-window': 'fixed-window fw 1000000 60000 - - - e 1',
};

/** The library's definitions with `anchor` replaced. */
const cut =
  (anchor: string, replacement: string) =>
  (definitions: string): string => {
    if (definitions.split(anchor).length !== 2) {
      throw new Error(`batch.cuts: the Lua changed, no single "${anchor.slice(0, 60)}…"`);
    }
    return definitions.replace(anchor, replacement);
  };

const FINAL_WRITE =
  '      algorithm.write(reads[2 * slot], states[slot], ttl, read[slot], values[2 * slot], rate)';
const CUTS: Record<string, Array<(definitions: string) => string>> = {
  library: [],
  'no state written': [cut(FINAL_WRITE, '    local _ = ttl')],
  'SET without an expiry': [
    cut(
      "redis.call('SET', key, value, 'PXAT', int(ceilDiv(callTime.now + ttl, 1000)))",
      "redis.call('SET', key, value)",
    ),
    cut("redis.call('SET', key, value, 'KEEPTTL')", "redis.call('SET', key, value)"),
  ],
  'every expiry set (gcra)': [
    cut('  if not p or ttl <= 0 or not callTime.fromRedis then\n', '  if true then\n'),
  ],
  'no MGET': [
    cut(
      "  local values = redis.call('MGET', unpack(reads, 1, math.min(n, 200)))",
      '  local values = {}',
    ),
  ],
  // What one key per identifier and policy would save: the state keys read, no penalty key.
  'no penalty read': [
    cut(
      "  local values = redis.call('MGET', unpack(reads, 1, math.min(n, 200)))",
      [
        '  local only = {}',
        '  for s = 1, count do',
        '    only[s] = reads[2 * s]',
        '  end',
        "  local got = redis.call('MGET', unpack(only))",
        '  local values = {}',
        '  for s = 1, count do',
        '    values[2 * s] = got[s]',
        '  end',
      ].join('\n'),
    ),
    cut(
      'local penaltyValue, stateValue = values[2 * slot - 1], values[2 * slot]',
      'local penaltyValue, stateValue = false, values[2 * slot]',
    ),
  ],
  'nothing but the call': [
    cut(
      'local function operateMany(KEYS, ARGV)\n',
      'local function operateMany(KEYS, ARGV)\n  if true then\n    return NOTHING\n  end\n',
    ),
    cut(
      'local function operateMany(KEYS, ARGV)\n',
      'local NOTHING = {}\nlocal function operateMany(KEYS, ARGV)\n',
    ),
  ],
};

const only = (variable: string) => process.env[variable]?.split(',').map((name) => name.trim());
const chosenCuts = only('BENCH_CUTS');
const chosenAlgorithms = only('BENCH_ALGORITHMS');
for (const name of Object.keys(CUTS))
  if (chosenCuts && !chosenCuts.includes(name)) delete CUTS[name];
for (const name of Object.keys(SPECS) as Array<keyof typeof SPECS>) {
  if (chosenAlgorithms && !chosenAlgorithms.includes(name)) delete SPECS[name];
}
if (Object.keys(CUTS).length === 0 || Object.keys(SPECS).length === 0) {
  throw new Error(`batch.cuts: nothing to run; cuts are ${Object.keys(CUTS).join(', ')}`);
}

const BASE = process.env.BENCH_BASE;
if (BASE !== undefined && !/^[\w./~^-]+$/.test(BASE)) {
  throw new Error(
    `batch.cuts: BENCH_BASE must be a git revision (a commit, HEAD~1), not "${BASE}"`,
  );
}

/** The library's Lua definitions at a git revision, loaded by that revision's own script.source. */
async function definitionsAt(revision: string): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'sluice-cuts-'));
  try {
    const tar = execFileSync('git', ['archive', revision, 'libs/sluice/src'], {
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', folder], { input: tar });
    const source = pathToFileURL(join(folder, 'libs/sluice/src/store/script.source.ts')).href;
    const loaded = (await import(source)) as { loadLuaLibrary: typeof loadLuaLibrary };
    return loaded.loadLuaLibrary().definitions;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const server = await startRedisServer();
const client = new Redis(server.url);
try {
  const { definitions } = loadLuaLibrary();
  const sources = new Map<string, string>();
  for (const [name, edits] of Object.entries(CUTS)) {
    sources.set(
      name,
      edits.reduce((lua, edit) => edit(lua), definitions),
    );
  }
  if (BASE !== undefined) sources.set(`at ${BASE}`, await definitionsAt(BASE));
  const functions = new Map<string, string>();
  for (const [name, source] of sources) {
    const fn = `batchcut_${functions.size}`;
    await client.function(
      'LOAD',
      'REPLACE',
      `#!lua name=${fn}\n${source}\nredis.register_function('${fn}', operateMany)\n`,
    );
    functions.set(name, fn);
  }
  const keys = Array.from(
    { length: IDENTIFIERS },
    (_, i) => `sluice:{ip:10.1.${(i >> 8) & 255}.${i & 255}}`,
  );
  const words = Array.from({ length: BATCH }, () => 'consume - - 1');
  const results = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const names = [...functions.keys()];
    for (const [algorithm, spec] of Object.entries(SPECS)) {
      for (const name of round % 2 === 0 ? names : names.reverse()) {
        const fn = functions.get(name) as string;
        let next = 0;
        const perDecision = await redisCpuPerDecision(
          client,
          FCALLS_IN_FLIGHT,
          async () => {
            const batch = Array.from({ length: BATCH }, () => keys[next++ % IDENTIFIERS] as string);
            await client.fcall(fn, BATCH, ...batch, '1', spec, ...words);
            return BATCH;
          },
          WARM_MS,
          RUN_MS,
        );
        const key = `${algorithm}: ${name}`;
        const list = results.get(key) ?? [];
        list.push(perDecision);
        results.set(key, list);
      }
    }
  }
  for (const [key, values] of results) {
    const s = spread(values);
    console.log(
      `${key.padEnd(40)} ${s.median.toFixed(2)} µs (${s.min.toFixed(2)}–${s.max.toFixed(2)}) of Redis CPU a decision`,
    );
  }
} finally {
  client.disconnect();
  await server.stop();
}
