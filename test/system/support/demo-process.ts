// Builds the demo once per change of its sources and runs it as real `node` processes.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = join(ROOT, 'apps/demo/dist/main.js');
/** Written after a successful build: the fingerprint of the inputs it was built from. */
const STAMP = join(ROOT, 'apps/demo/dist/.build-inputs');
const BUILD_INPUTS = [
  'package.json',
  'tsconfig.base.json',
  'scripts/copy-lua.mjs',
  'libs/sluice/package.json',
  'libs/sluice/tsconfig.lib.json',
  'libs/sluice/src',
  'apps/demo/package.json',
  'apps/demo/tsconfig.build.json',
  'apps/demo/src',
];
const BUILD_TIMEOUT_MS = 120_000;
const LOCK_WAIT_MS = 150_000;
const START_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 5_000;
const LOG_TAIL = 60;
const READY = /Forum demo listening on http:\/\/\S+?:(\d+)/;

const execFileAsync = promisify(execFile);

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

let built: Promise<void> | undefined;

/**
 * Runs `npm run build` (library and demo) unless apps/demo/dist was built from the sources as
 * they are now. Test files started together build once: one holds a lock, the others wait for
 * it and then find the build fresh.
 */
export function ensureDemoBuilt(): Promise<void> {
  built ??= buildUnlessFresh();
  return built;
}

async function buildUnlessFresh(): Promise<void> {
  const lock = join(tmpdir(), `sluice-demo-build-${digest(ROOT).slice(0, 16)}.lock`);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const inputs = await fingerprint();
    if (await isFresh(inputs)) return;
    if (await tryLock(lock)) {
      try {
        const current = await fingerprint();
        if (!(await isFresh(current))) await build(current);
        return;
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`another test process held ${lock} for over ${LOCK_WAIT_MS} ms`);
    }
    await sleep(200);
  }
}

async function tryLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A holder that died without cleaning up leaves its pid behind; take the lock over.
    const owner = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''));
    if (owner > 0 && !isAlive(owner)) await rm(lock, { recursive: true, force: true });
    return false;
  }
  await writeFile(join(lock, 'pid'), String(process.pid));
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isFresh(inputs: string): Promise<boolean> {
  const stamp = await readFile(STAMP, 'utf8').catch(() => '');
  return stamp === inputs;
}

async function build(inputs: string): Promise<void> {
  await rm(STAMP, { force: true });
  try {
    await execFileAsync('npm', ['run', 'build'], {
      cwd: ROOT,
      timeout: BUILD_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed:\n${stdout}${stderr}`, { cause: error });
  }
  await writeFile(STAMP, inputs);
}

/** A digest of every build input's path and content. */
async function fingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const input of BUILD_INPUTS) {
    for (const file of await filesUnder(join(ROOT, input))) {
      hash
        .update(relative(ROOT, file))
        .update('\0')
        .update(await readFile(file))
        .update('\0');
    }
  }
  return hash.digest('hex');
}

async function filesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return [path];
  const nested = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() || !entry.name.endsWith('.spec.ts'))
      .map((entry) => filesUnder(join(path, entry.name))),
  );
  return nested.flat().sort();
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Only what the demo needs, so the runner's own REDIS_URL, NODE_ENV … never leak in. */
function processEnv(env: DemoEnv): Record<string, string> {
  const merged: DemoEnv = {
    PATH: process.env.PATH,
    NO_COLOR: '1',
    NODE_ENV: 'test',
    PORT: '0',
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
  return { url: `http://127.0.0.1:${port}`, port, pid: child.pid as number, output, stop };
}

/** Stops every demo this file started (for afterAll). */
export async function stopAllDemos(): Promise<void> {
  const stops = [...started];
  started.clear();
  await Promise.all(stops.map((stop) => stop()));
}

/** Runs the demo expecting it to stop by itself (a refused configuration), within 10 s. */
export async function runDemoUntilExit(env: DemoEnv): Promise<DemoExit> {
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: processEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  running.delete(child);
  return { code, signal, stdout, stderr };
}

/** A unique SLUICE_PREFIX, so processes of different test files never share counters. */
export function uniqueDemoPrefix(name: string): string {
  return `sys-${name}-${Math.random().toString(36).slice(2, 10)}`;
}
