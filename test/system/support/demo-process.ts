// Runs the built demo as real `node` processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export { ensureDemoBuilt } from './demo-build.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = join(ROOT, 'apps/demo/dist/main.js');
/**
 * A readiness wait, not a claim: a demo with the embedded database starting beside a full suite on
 * a two-core machine has been seen to need more than 20 s.
 */
const START_TIMEOUT_MS = 60_000;
const ADMIN_TIMEOUT_MS = 20_000;
/** Where the demo mounts the admin API when DATABASE_URL is set. */
export const ADMIN_API = '/sluice/api';
const STOP_GRACE_MS = 5_000;
const LOG_TAIL = 300;
const READY = /Forum demo listening on http:\/\/\S+?:(\d+)/;

/** Last resort for an aborted run: no demo started here outlives this process. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** How to stop each demo this file started and has not stopped yet. */
const started = new Set<(signal?: NodeJS.Signals) => Promise<void>>();

export type DemoEnv = Record<string, string | undefined>;

export interface DemoProcess {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** The last lines the process wrote, stdout and stderr together. */
  output(): string;
  /** SIGTERM (a graceful Nest shutdown) unless told otherwise; SIGKILL after a grace period. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface DemoExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Only what the demo needs, so the runner's own REDIS_URL, NODE_ENV … never leak in. Without a
 * DATABASE_URL the admin is off unless asked for: an embedded database is one per data directory.
 */
function processEnv(env: DemoEnv): Record<string, string> {
  const merged: DemoEnv = {
    PATH: process.env.PATH,
    NO_COLOR: '1',
    NODE_ENV: 'test',
    PORT: '0',
    SLUICE_ADMIN: env.DATABASE_URL === undefined ? 'off' : 'on',
    ...env,
  };
  return Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function spawnDemo(env: DemoEnv): { child: ChildProcess; lines: string[] } {
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: processEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const lines: string[] = [];
  const record = (chunk: Buffer): void => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    lines.splice(0, lines.length - LOG_TAIL);
  };
  child.stdout?.on('data', record);
  child.stderr?.on('data', record);
  return { child, lines };
}

/**
 * Starts `node apps/demo/dist/main.js` with env (PORT 0 unless given: the system picks a free
 * port, read back from the start-up log) and resolves once it is listening.
 */
export async function startDemo(env: DemoEnv): Promise<DemoProcess> {
  const { child, lines } = spawnDemo(env);
  const output = (): string => lines.join('\n');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(`did not report listening within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    const watch = (): void => {
      const ready = lines.map((line) => READY.exec(line)).find(Boolean);
      if (ready) {
        clearTimeout(timer);
        child.stdout?.off('data', watch);
        resolve(Number(ready[1]));
      }
    };
    function fail(reason: string): void {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`demo (pid ${child.pid}) ${reason}. Output:\n${output()}`));
    }
    child.stdout?.on('data', watch);
    child.once('error', (error) => fail(`could not be spawned: ${error.message}`));
    child.once('exit', (code, signal) => fail(`exited during start (${String(code ?? signal)})`));
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const inTime = await Promise.race([
      exited.then(() => true),
      sleep(STOP_GRACE_MS, false, { ref: false }),
    ]);
    if (!inTime) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  started.add(stop);
  void exited.then(() => started.delete(stop));
  const url = `http://127.0.0.1:${port}`;
  if (env.DATABASE_URL !== undefined && env.SLUICE_ADMIN !== 'off') {
    await waitForAdmin(url, firstAdminToken(env.SLUICE_ADMIN_TOKENS)).catch(async (error) => {
      await stop('SIGKILL');
      throw new Error(`demo (pid ${child.pid}) ${(error as Error).message}. Output:\n${output()}`);
    });
  }
  return { url, port, pid: child.pid as number, output, stop };
}

/** The token of the first `name:role:token` entry, if any. */
function firstAdminToken(tokens: string | undefined): string | undefined {
  const entry = tokens?.split(',')[0]?.trim();
  const parts = entry?.split(':') ?? [];
  return parts.length >= 3 ? parts.slice(2).join(':') : undefined;
}

/**
 * Resolves once the admin API serves its policies (with a token) or asks for credentials
 * (without one), so a test starts against an admin whose migrations and seeding are done.
 */
async function waitForAdmin(url: string, token: string | undefined): Promise<void> {
  const expected = token === undefined ? 401 : 200;
  const headers: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  const deadline = Date.now() + ADMIN_TIMEOUT_MS;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const answer = await fetch(`${url}${ADMIN_API}/policies`, {
        headers,
        signal: AbortSignal.timeout(2_000),
      });
      await answer.body?.cancel();
      if (answer.status === expected) return;
      last = `status ${answer.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  throw new Error(
    `admin API did not answer ${expected} on ${ADMIN_API}/policies within ${ADMIN_TIMEOUT_MS} ms (last: ${last})`,
  );
}

/** Stops every demo this file started (for afterAll). */
export async function stopAllDemos(): Promise<void> {
  const stops = [...started];
  started.clear();
  await Promise.all(stops.map((stop) => stop()));
}

/**
 * Runs the demo expecting it to stop by itself (a refused configuration). Refusing loads the same
 * modules as starting, so it gets as long as a start (START_TIMEOUT_MS); a demo that says it is
 * listening was not refused, and is stopped at once.
 */
export async function runDemoUntilExit(env: DemoEnv): Promise<DemoExit> {
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: processEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (READY.test(stdout)) child.kill('SIGKILL');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  running.delete(child);
  return { code, signal, stdout, stderr };
}

/** A unique SLUICE_PREFIX, so processes of different test files never share counters. */
export function uniqueDemoPrefix(name: string): string {
  return `sys-${name}-${Math.random().toString(36).slice(2, 10)}`;
}
