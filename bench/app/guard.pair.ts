/**
 * `npm run bench:pair`: what a change to the library costs or saves one decision of the guard, on
 * a machine too noisy for runs made one after the other to show it. The working tree and a git
 * revision (PAIR_BASE) are each built as `npm run bench:guard` builds its contenders; then their
 * guard.main processes run at the same moment, pinned to the same core, with redis-server pinned
 * to the other, so whatever else the machine does hits both alike. Each pair reports one figure
 * per window; the difference of the two processes' windows, window by window, is the result, with
 * which starts first swapped every pair. Without PAIR_BASE both processes run the working tree,
 * and PAIR_BASE_CONTENDER names what the second one runs: two contenders compared at the same
 * moment (Sluice's eventual path against its exact one, Sluice against the peer's guard). Printed,
 * not written into docs/.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { startRedisServer } from '../../test/support/redis-servers.js';
import { spread } from '../engine/measure.js';
import { buildContenders, GUARD_MAIN } from './contender.build.js';
import {
  guardEnv,
  guardLoadSettings,
  isContender,
  readSettings,
  reportLine,
} from './guard.settings.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILD_TIMEOUT_MS = 300_000;
const RUN_TIMEOUT_MS = 300_000;

const contender = z
  .string()
  .refine((id) => isContender(id), 'names a contender bench/app/contenders.ts does not list');

const settingsSchema = z.object({
  PAIR_BASE: z
    .string()
    .regex(/^[\w./~^-]+$/, 'a git revision: a commit, a branch, HEAD~1')
    .optional(),
  PAIR_CONTENDER: contender.default('sluice-gcra'),
  PAIR_BASE_CONTENDER: contender.optional(),
  PAIR_MODES: z
    .string()
    .default('ip,users')
    .transform((text) => text.split(',').map((each) => each.trim()))
    .pipe(z.array(z.enum(['ip', 'users'])).min(1)),
  PAIR_PAIRS: z.coerce.number().int().min(1).max(20).default(4),
  ...guardLoadSettings,
});

/**
 * Two processes of the same code pinned to one core sometimes differ by 8–10 µs a decision through
 * every window of their pair, either way round (docs/benchmarks.md, "Running the application
 * bench"): pairs split by more than this are counted, so a run carried by them shows it.
 */
const SPLIT_PAIR_US = 5;

/** The revision's tree, built by its own contender build; answers its guard.main. */
async function buildRevision(revision: string, into: string): Promise<string> {
  const tree = join(into, 'tree');
  mkdirSync(tree);
  const archive = join(into, 'tree.tar');
  await run('git', ['-C', ROOT, 'archive', '--format=tar', '-o', archive, revision]);
  await run('tar', ['-xf', archive, '-C', tree]);
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  await run(
    process.execPath,
    [
      join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
      '-e',
      "import('./bench/app/contender.build.ts').then((m) => m.buildContenders())",
    ],
    { cwd: tree, timeout: BUILD_TIMEOUT_MS },
  );
  return join(tree, 'bench/app/dist/bench/app/guard.main.js');
}

/** One guard.main on core 0; resolves its windows, µs of CPU a decision. */
function guardProcess(main: string, env: NodeJS.ProcessEnv): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', '0', process.execPath, main], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${main} exited ${code}: ${stderr}`));
      try {
        resolve((JSON.parse(reportLine(stdout)) as { windows: number[] }).windows);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

async function main(): Promise<void> {
  const settings = readSettings(settingsSchema, process.env);
  const work = mkdtempSync(join(tmpdir(), 'sluice-pair-'));
  try {
    const base = settings.PAIR_BASE;
    console.log(`building the working tree${base === undefined ? '' : ` and ${base}`}…`);
    const [, baseMain] = await Promise.all([
      buildContenders(),
      base === undefined ? GUARD_MAIN : buildRevision(base, work),
    ]);
    const tree = { main: GUARD_MAIN, contender: settings.PAIR_CONTENDER };
    const other = {
      main: baseMain,
      contender: settings.PAIR_BASE_CONTENDER ?? settings.PAIR_CONTENDER,
    };
    const names = {
      tree: base === undefined ? tree.contender : 'the working tree',
      base: base === undefined ? other.contender : base,
    };
    const server = await startRedisServer();
    await run('taskset', ['-pc', '1', String(server.pid)]);
    console.log(`redis-server pid ${server.pid} on core 1; both guards on core 0`);
    try {
      for (const mode of settings.PAIR_MODES) {
        const differences: number[] = [];
        const figures = { tree: [] as number[], base: [] as number[] };
        for (let pair = 1; pair <= settings.PAIR_PAIRS; pair++) {
          const sides = pair % 2 === 1 ? [tree, other] : [other, tree];
          const [first, second] = await Promise.all(
            sides.map((side) =>
              guardProcess(side.main, guardEnv(side.contender, server.url, mode, settings)),
            ),
          );
          const [ours, theirs] = (sides[0] === tree ? [first, second] : [second, first]) as [
            number[],
            number[],
          ];
          ours.forEach((figure, window) => differences.push(figure - (theirs[window] as number)));
          figures.tree.push(spread(ours).median);
          figures.base.push(spread(theirs).median);
          console.log(
            `${mode} pair ${pair}: ${names.tree} ${ours.map((each) => each.toFixed(1)).join(', ')} | ${names.base} ${theirs.map((each) => each.toFixed(1)).join(', ')} µs/decision`,
          );
        }
        const d = spread(differences);
        const byPair = figures.tree.map((figure, at) => figure - (figures.base[at] as number));
        const split = byPair.filter((each) => Math.abs(each) > SPLIT_PAIR_US).length;
        console.log(
          `\n${mode}, ${settings.GUARD_RATE}/s: ${names.tree} − ${names.base} = ` +
            `${d.median.toFixed(2)} µs a decision (${d.min.toFixed(2)} to ${d.max.toFixed(2)} over ${differences.length} window pairs); ` +
            `medians ${spread(figures.tree).median.toFixed(1)} against ${spread(figures.base).median.toFixed(1)}; ` +
            `by pair ${byPair.map((each) => each.toFixed(1)).join(', ')} (median ${spread(byPair).median.toFixed(2)}); ` +
            `${split} of ${byPair.length} pairs split by more than ${SPLIT_PAIR_US} µs\n`,
        );
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
