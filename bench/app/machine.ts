import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { info } from '../engine/measure.js';
import { OtherLoad } from './process.cpu.js';

/** Below this many cores used by other processes the machine counts as quiet. */
export const QUIET_CORES = 0.5;
const QUIET_WAIT_S = 30;

export interface Quiet {
  waitedS: number;
  /** Cores the rest of the machine used in the last second waited. */
  otherCores: number;
}

export interface MachineReport {
  cpu: string;
  cores: number;
  node: string;
  redis: string;
  packages: Record<string, string>;
  date: string;
  code: string;
  loadAverage: string;
  quiet: Quiet;
}

/**
 * Waits, at most maxWaitS, until the rest of the machine (every process but those named and
 * this one) uses under QUIET_CORES.
 */
export async function waitForQuiet(
  pids: readonly number[] = [],
  maxWaitS = QUIET_WAIT_S,
): Promise<Quiet> {
  const start = performance.now();
  for (;;) {
    const others = new OtherLoad(pids);
    await sleep(1000);
    const otherCores = others.cores();
    const waitedS = (performance.now() - start) / 1000;
    if (otherCores < QUIET_CORES || waitedS >= maxWaitS) return { waitedS, otherCores };
  }
}

const PACKAGES = [
  '@nestjs/core',
  '@nestjs/platform-fastify',
  'fastify',
  '@nestjs/platform-express',
  'express',
  '@nestjs/throttler',
  '@nest-lab/throttler-storage-redis',
  'rate-limiter-flexible',
  'ioredis',
  'autocannon',
];

export async function describeMachine(admin: Redis, quiet: Quiet): Promise<MachineReport> {
  const require = createRequire(import.meta.url);
  const versionOf = (name: string) =>
    (require(`${name}/package.json`) as { version: string }).version;
  const cores = cpus();
  return {
    cpu: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    node: process.version,
    redis: (await info(admin, 'server')).get('redis_version') ?? '?',
    packages: Object.fromEntries(PACKAGES.map((name) => [name, versionOf(name)])),
    date: new Date().toISOString(),
    code: codeVersion(),
    loadAverage: loadavg()
      .map((load) => load.toFixed(2))
      .join(' '),
    quiet,
  };
}

/** The commit, and whether the library or the bench differ from it. */
function codeVersion(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: fileURLToPath(new URL('../..', import.meta.url)) })
      .toString()
      .trim();
  try {
    const dirty = git('status', '--porcelain', '--', 'libs/sluice', 'bench') !== '';
    return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ', with uncommitted changes in libs/sluice or bench/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
