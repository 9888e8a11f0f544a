// A rolling deploy: the previous release, packed from its commit as a user would get it, and this
// one take turns on the same identifiers of one Redis, and of one Cluster, and decide exactly as
// one release would. docs/operations.md, "Rolling upgrades", says what changed between the two
// (a gcra key's expiry on a grid, docs/algorithms.md).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore, SluiceEngine, type Decision } from '@sluice/nest/engine';
import { closeAll, connectCluster, connectRedis, filePrefixes } from '../support/redis.clients.js';
import { run } from './fixture.process.js';

/** The last commit before gcra's expiry grid: the release a rolling deploy replaces. */
const PREVIOUS_RELEASE = '14441c1c32f0257d7418a69ab326fb0a6d644fe3';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACK_TIMEOUT_MS = 240_000;

type Engine = Pick<SluiceEngine, 'consume'>;
interface EngineModule {
  SluiceEngine: new (options: ConstructorParameters<typeof SluiceEngine>[0]) => Engine;
  RedisStore: new (
    client: Redis | Cluster,
  ) => ConstructorParameters<typeof SluiceEngine>[0]['store'];
}

const work = mkdtempSync(join(tmpdir(), 'sluice-previous-'));
let previous: EngineModule;

beforeAll(async () => {
  const source = join(work, 'source');
  mkdirSync(source);
  const archive = join(work, 'source.tar');
  await run('git', ['-C', ROOT, 'archive', '--format=tar', '-o', archive, PREVIOUS_RELEASE], {
    cwd: ROOT,
    timeoutMs: 60_000,
  }).catch((error: unknown) => {
    throw new Error(
      `The previous release is built from commit ${PREVIOUS_RELEASE}, which this clone lacks ` +
        `(a shallow clone? git fetch --unshallow): ${String(error)}`,
    );
  });
  await run('tar', ['-xf', archive, '-C', source], { cwd: work, timeoutMs: 60_000 });
  // Its build and its code resolve their dependencies from this checkout's node_modules.
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  const packs = join(work, 'packs');
  mkdirSync(packs);
  await run('npm', ['pack', '-w', '@sluice/nest', '--pack-destination', packs], {
    cwd: source,
    timeoutMs: PACK_TIMEOUT_MS,
  });
  const tarball = readdirSync(packs).find((file) => file.startsWith('sluice-nest-'));
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${packs}`);
  const installed = join(work, 'previous');
  mkdirSync(installed);
  await run('tar', ['-xzf', join(packs, tarball), '-C', installed], {
    cwd: work,
    timeoutMs: 60_000,
  });
  const entry = join(installed, 'package/dist/esm/engine/index.js');
  previous = (await import(pathToFileURL(entry).href)) as EngineModule;
}, PACK_TIMEOUT_MS + 60_000);

const prefixes = filePrefixes('rolling');
let redis: Redis;
let cluster: Cluster;
beforeAll(() => {
  redis = connectRedis();
  cluster = connectCluster();
});
afterAll(async () => {
  await prefixes.removeAll(redis);
  await closeAll();
  rmSync(work, { recursive: true, force: true });
});

const LIMIT = 200;
/**
 * 4 000 s: an admission moves gcra's tat by 20 s, less than its grid's 100 s cells (a tenth of its
 * burst window, rounded down to a power of ten), and more than the test takes.
 */
const PERIOD_MS = 4_000_000;
const IDENTIFIERS = Array.from({ length: 8 }, (_, i) => `user-${i}`);
const CALLS_PER_TURN = 2;

describe.each([
  ['one Redis', () => redis],
  ['a Redis Cluster', () => cluster],
] as const)('the previous release and this one on %s', (_, client) => {
  it('take turns on the same identifiers and decide every request as one release would', async () => {
    const prefix = prefixes.next();
    const policies = [
      { name: 'api', algorithm: 'gcra', limit: LIMIT, periodMs: PERIOD_MS, key: 'user' },
      { name: 'day', algorithm: 'fixed-window', limit: LIMIT, periodMs: PERIOD_MS, key: 'user' },
    ] as const;
    const releases: Array<[string, Engine]> = [
      [
        'previous',
        new previous.SluiceEngine({
          store: new previous.RedisStore(client()),
          prefix,
          policies: [...policies],
        }),
      ],
      [
        'this',
        new SluiceEngine({ store: new RedisStore(client()), prefix, policies: [...policies] }),
      ],
    ];
    const made = new Map<string, number>();
    const wrong: string[] = [];
    const expiries: string[] = [];
    const last = new Map<string, { tat: number; marked: boolean; expiresAt: number }>();
    // How often this release kept a marked key's TTL, and how often it found the previous
    // release's unmarked value with its new tat in the same cell: there, keeping the TTL would
    // end the key at the old tat, before its state.
    let kept = 0;
    let unmarkedSameCell = 0;
    let marked = 0;
    let unmarked = 0;
    // Until every identifier is past its limit on both policies; the release alternates by turn,
    // and now and then takes two turns in a row.
    for (let turn = 0; made.size === 0 || [...made.values()].some((n) => n <= LIMIT + 20); turn++) {
      const [name, engine] = releases[turn % 5 === 4 ? 1 : turn % 2] as [string, Engine];
      // Each policy's calls in a turn of their own: a batch of one policy's consumes, as a busy
      // route sends it.
      for (const policy of ['api', 'day'] as const) {
        const calls = IDENTIFIERS.flatMap((id) => Array.from({ length: CALLS_PER_TURN }, () => id));
        const decisions: Decision[] = await Promise.all(
          calls.map((id) => engine.consume(policy, id)),
        );
        decisions.forEach((decision, index) => {
          const id = calls[index]!;
          const nth = (made.get(`${policy} ${id}`) ?? 0) + 1;
          made.set(`${policy} ${id}`, nth);
          // As one release alone: the first LIMIT admitted, each with one fewer remaining.
          const expected = { allowed: nth <= LIMIT, remaining: Math.max(0, LIMIT - nth) };
          const got = { allowed: decision.allowed, remaining: decision.remaining };
          if (got.allowed !== expected.allowed || got.remaining !== expected.remaining) {
            wrong.push(`${name} release, ${policy} ${id} request ${nth}: ${JSON.stringify(got)}`);
          }
        });
      }
      // No key ends before its state: a gcra key lives at least until its tat, and a marked one
      // exactly to the end of its tat's 100 s cell.
      for (const id of IDENTIFIERS) {
        const key = `${prefix}:{user:${id}}:api:gc`;
        const [value, expiresAt] = await Promise.all([
          client().get(key),
          client().call('PEXPIRETIME', key) as Promise<number>,
        ]);
        const tat = Number(value);
        const isMarked = value?.endsWith(' ') === true;
        if (isMarked) marked++;
        else unmarked++;
        const before = last.get(key);
        const cell = (time: number) => Math.floor(time / 100_000_000);
        if (name === 'this' && before !== undefined && before.tat !== tat) {
          if (before.marked && cell(before.tat) === cell(tat)) {
            if (expiresAt === before.expiresAt) kept++;
          } else if (!before.marked && cell(before.tat) === cell(tat)) {
            unmarkedSameCell++;
          }
        }
        last.set(key, { tat, marked: isMarked, expiresAt });
        const expected = isMarked
          ? (Math.floor(tat / 100_000_000) + 1) * 100_000
          : Math.ceil(tat / 1000);
        if (value === null || expiresAt !== expected) {
          expiries.push(
            `after the ${name} release's turn ${turn}: ${key} = ${JSON.stringify(value)}, expires at ${expiresAt} ms, expected ${expected}`,
          );
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(expiries).toEqual([]);
    // Both forms were written and read by the other release, and both cases above were met.
    expect(marked).toBeGreaterThan(IDENTIFIERS.length * 20);
    expect(unmarked).toBeGreaterThan(IDENTIFIERS.length * 20);
    expect(kept).toBeGreaterThan(IDENTIFIERS.length);
    expect(unmarkedSameCell).toBeGreaterThan(IDENTIFIERS.length);
  });
});
