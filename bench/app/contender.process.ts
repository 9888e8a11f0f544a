import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOOP_MARK, READY_MARK } from './bench.constants.js';
import { CONTENDER_MAIN } from './contender.build.js';
import type { AdapterName } from './contender.env.js';
import type { SluiceRule } from './limiters/sluice.limiter.js';
import { processCpuSeconds } from './process.cpu.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const OUTPUT_TAIL = 30;

export interface ContenderLaunch {
  contender: string;
  adapter: AdapterName;
  redisUrl: string;
  rule?: SluiceRule;
  /** Write a V8 CPU profile (--cpu-prof) into this directory when the process exits. */
  cpuProfileDir?: string;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** An event loop's delay over a stretch of time, ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** A contender app (compiled by buildContenders) in its own process, on a loopback port. */
export class ContenderProcess {
  /** Loop lines asked for so far: the contender numbers its lines the same way. */
  private loopReads = 0;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    private readonly output: string[],
  ) {}

  static async start(launch: ContenderLaunch): Promise<ContenderProcess> {
    const profile =
      launch.cpuProfileDir !== undefined
        ? ['--cpu-prof', '--cpu-prof-dir', launch.cpuProfileDir]
        : [];
    const child = spawn(process.execPath, [...profile, CONTENDER_MAIN], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        NO_COLOR: '1',
        BENCH_CONTENDER: launch.contender,
        BENCH_ADAPTER: launch.adapter,
        BENCH_REDIS_URL: launch.redisUrl,
        ...(launch.rule !== undefined ? { BENCH_SLUICE_RULE: JSON.stringify(launch.rule) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    const output: string[] = [];
    const record = (chunk: Buffer) => {
      output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      output.splice(0, output.length - OUTPUT_TAIL);
    };
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const ready = output.find((line) => line.startsWith(READY_MARK));
      if (ready !== undefined) {
        const port = Number(ready.slice(READY_MARK.length + 1));
        return new ContenderProcess(child, `http://127.0.0.1:${port}`, output);
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(
          `contender ${launch.contender} on ${launch.adapter} did not start:\n${output.join('\n')}`,
        );
      }
      await sleep(25);
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** CPU seconds (user + system) the process has used so far. */
  cpuSeconds(): number {
    return processCpuSeconds(this.pid);
  }

  /**
   * The event loop's delay since the last call, ms (p50, p99, max), and a fresh count from now;
   * undefined when the process does not answer within a second.
   */
  async loopDelay(): Promise<LoopDelay | undefined> {
    const mark = `${LOOP_MARK} ${++this.loopReads} `;
    this.child.kill('SIGUSR2');
    const deadline = Date.now() + 1000;
    while (Date.now() < deadline) {
      const line = this.output.find((each) => each.startsWith(mark));
      if (line !== undefined) {
        const [p50, p99, max] = line.slice(mark.length).split(' ').map(Number);
        return { p50: p50 ?? NaN, p99: p99 ?? NaN, max: max ?? NaN };
      }
      await sleep(5);
    }
    return undefined;
  }

  lastOutput(): string {
    return this.output.join('\n');
  }

  /** SIGTERM (Nest's shutdown hooks close the app), SIGKILL after a grace period. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const inTime = await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS, false)]);
    if (!inTime) {
      this.child.kill('SIGKILL');
      await exited;
    }
  }
}
