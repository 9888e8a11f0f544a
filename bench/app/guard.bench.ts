/**
 * `npm run bench:guard`: what one decision costs the app's process, the guard alone. Each
 * contender's global guard is called in a process of its own with HTTP contexts built in-process,
 * at a fixed rate (GUARD_RATE a second), against a redis-server started here; no HTTP server and
 * no load generator share the cores with it. Contenders alternate round by round; each process
 * measures GUARD_WINDOWS windows of GUARD_COUNT decisions after a warm-up and reports its median.
 * Printed, not written into docs/ (docs/benchmarks.md quotes runs by hand, with the command).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { z } from 'zod';
import { startRedisServer } from '../../test/support/redis-servers.js';
import type { AllocationProfile } from './allocation.sampler.js';
import { buildContenders, GUARD_MAIN } from './contender.build.js';
import {
  guardEnv,
  guardLoadSettings,
  isContender,
  readSettings,
  reportLine,
} from './guard.settings.js';
import { spread } from '../engine/measure.js';

const run = promisify(execFile);
const PEER = 'rlf-redis';
const RUN_TIMEOUT_MS = 300_000;

const list = (values: readonly string[]) =>
  z
    .string()
    .transform((text) => text.split(',').map((each) => each.trim()))
    .pipe(z.array(z.enum(values as [string, ...string[]])).min(1));

const settingsSchema = z.object({
  GUARD_CONTENDERS: z
    .string()
    .default(`bare,${PEER},sluice-gcra,sluice-gcra-eventual`)
    .transform((text) => text.split(',').map((each) => each.trim()))
    .refine((ids) => ids.every((id) => isContender(id)), {
      message: 'names a contender bench/app/contenders.ts does not list',
    }),
  GUARD_MODES: list(['ip', 'users']).default(['ip', 'users']),
  ...guardLoadSettings,
  GUARD_ROUNDS: z.coerce.number().int().min(1).max(20).default(3),
  /** 1: also sample what each decision allocates (the CPU figures then run slower). */
  GUARD_ALLOCATIONS: z.enum(['0', '1']).default('0'),
  /** 1: also count the promises a decision makes (async_hooks; the CPU figures then run slower). */
  GUARD_PROMISES: z.enum(['0', '1']).default('0'),
});

const median = (values: readonly number[]): number => spread(values).median;

async function main(): Promise<void> {
  const settings = readSettings(settingsSchema, process.env);
  console.log('compiling the contender app (tsc)…');
  await buildContenders();
  const server = await startRedisServer();
  console.log(`redis-server pid ${server.pid} at ${server.url}`);
  try {
    for (const mode of settings.GUARD_MODES) {
      const rounds = new Map<string, number[]>();
      const allocated = new Map<string, AllocationProfile[]>();
      const splits = new Map<string, Split[]>();
      const promised = new Map<string, number[]>();
      for (let round = 1; round <= settings.GUARD_ROUNDS; round++) {
        for (const id of settings.GUARD_CONTENDERS) {
          const { stdout } = await run(process.execPath, [GUARD_MAIN], {
            timeout: RUN_TIMEOUT_MS,
            env: guardEnv(id, server.url, mode, settings),
          });
          const { windows, split, lags, allocations, promisesPerDecision } = JSON.parse(
            reportLine(stdout),
          ) as {
            windows: number[];
            split: Split[];
            lags: Array<{ p99: number; max: number }>;
            allocations?: AllocationProfile;
            promisesPerDecision?: number;
          };
          const figure = median(windows);
          (rounds.get(id) ?? rounds.set(id, []).get(id))?.push(figure);
          (splits.get(id) ?? splits.set(id, []).get(id))?.push(medianSplit(split));
          console.log(
            `${mode} round ${round} ${id}: ${figure.toFixed(1)} µs/decision (windows ${windows.map((each) => each.toFixed(1)).join(', ')}; event loop delay p99 / max ${lags.map((each) => `${each.p99.toFixed(2)} / ${each.max.toFixed(2)}`).join(', ')} ms)`,
          );
          if (allocations !== undefined) {
            (allocated.get(id) ?? allocated.set(id, []).get(id))?.push(allocations);
            printAllocations(allocations);
          }
          if (promisesPerDecision !== undefined) {
            (promised.get(id) ?? promised.set(id, []).get(id))?.push(promisesPerDecision);
            console.log(`  ${promisesPerDecision.toFixed(2)} promises a decision`);
          }
        }
      }
      report(mode, settings.GUARD_RATE, rounds, splits);
      if (allocated.size > 0) reportAllocations(mode, allocated);
      if (promised.size > 0) reportPromises(mode, promised);
    }
  } finally {
    await server.stop();
  }
}

/** One window's CPU a decision in user and system time, µs, and the times the process slept. */
interface Split {
  user: number;
  system: number;
  sleeps: number;
}

const medianSplit = (split: readonly Split[]): Split => ({
  user: median(split.map((each) => each.user)),
  system: median(split.map((each) => each.system)),
  sleeps: median(split.map((each) => each.sleeps)),
});

function report(
  mode: string,
  rate: number,
  rounds: Map<string, number[]>,
  splits: Map<string, Split[]>,
): void {
  const bare = rounds.has('bare') ? median(rounds.get('bare') as number[]) : 0;
  const peer = rounds.has(PEER) ? median(rounds.get(PEER) as number[]) - bare : undefined;
  console.log(`\n${mode}, ${rate} decisions a second, CPU per decision (median of rounds):`);
  console.log(
    '| contender | µs | above bare | × the rate-limiter-flexible guard | user µs | system µs | sleeps a decision |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const [id, figures] of rounds) {
    const own = median(figures);
    const above = own - bare;
    const ratio = peer !== undefined && id !== 'bare' ? `${(above / peer).toFixed(2)}×` : '';
    const split = medianSplit(splits.get(id) ?? []);
    console.log(
      `| ${id} | ${own.toFixed(1)} | ${id === 'bare' ? '' : above.toFixed(1)} | ${ratio} | ${split.user.toFixed(1)} | ${split.system.toFixed(1)} | ${split.sleeps.toFixed(3)} |`,
    );
  }
}

function printAllocations({ bytesPerDecision, top }: AllocationProfile): void {
  console.log(`  allocated ${bytesPerDecision} B/decision; most at:`);
  for (const { site, bytes } of top) console.log(`  ${String(bytes).padStart(6)} B  ${site}`);
}

/** Bytes allocated a decision, median of rounds: the measure a noisy machine does not move. */
function reportAllocations(mode: string, allocated: Map<string, AllocationProfile[]>): void {
  console.log(`\n${mode}, bytes allocated a decision (median of rounds; CPU above ran sampled):`);
  console.log('| contender | B a decision | rounds |');
  console.log('| --- | --- | --- |');
  for (const [id, profiles] of allocated) {
    const bytes = profiles.map((each) => each.bytesPerDecision);
    console.log(`| ${id} | ${median(bytes).toFixed(0)} | ${bytes.join(', ')} |`);
  }
}

/** Promises a decision, median of rounds: bare's are the harness's own. */
function reportPromises(mode: string, promised: Map<string, number[]>): void {
  console.log(`\n${mode}, promises made a decision (median of rounds; CPU above ran hooked):`);
  console.log('| contender | promises a decision | rounds |');
  console.log('| --- | --- | --- |');
  for (const [id, counts] of promised) {
    console.log(
      `| ${id} | ${median(counts).toFixed(2)} | ${counts.map((each) => each.toFixed(2)).join(', ')} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
