// Runs npm and the fixture apps as child processes: output kept for the failure message, a time
// limit on each, and every process the tests start stopped by its own PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * The environment a developer's shell would give a package manager: without the npm_* variables
 * `npm test` sets for the test process, which would make a nested npm act on this repository's
 * workspace, and without CI, under which pnpm refuses to install an app that has no lockfile yet.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && name !== 'INIT_CWD') env[name] = value;
  }
  for (const name of ['REDIS_URL', 'DATABASE_URL', 'SLUICE_ADMIN_TOKENS', 'NODE_ENV', 'CI']) {
    delete env[name];
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Runs a command to completion; rejects with its output when it fails or overruns. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number; env?: Record<string, string> },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: cleanEnv(options.env) });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(output);
      const how = signal === null ? `exit ${code}` : `${signal} after ${options.timeoutMs} ms`;
      reject(new Error(`${command} ${args.join(' ')} in ${options.cwd}: ${how}\n${output}`));
    });
  });
}

/** How a fixture's process ended after SIGTERM. */
export interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From SIGTERM to the process's exit. */
  elapsedMs: number;
  /** What it printed from SIGTERM on. */
  closingOutput: string;
}

export interface RunningFixture {
  url: string;
  /** Everything the app printed so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves how it ended (the first stop's, if called again). */
  stop(): Promise<Stopped>;
}

const START_TIMEOUT_MS = 60_000;

/** Starts `node dist/main.js` on a free loopback port and waits for it to say it listens. */
export async function startFixture(
  directory: string,
  env: Record<string, string>,
): Promise<RunningFixture> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: directory,
    env: cleanEnv({ ...env, PORT: String(port) }),
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let stopping: Promise<Stopped> | undefined;
  const stop = () => (stopping ??= stopChild(child, () => output));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no "fixture listening" within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      const check = () => {
        if (output.includes('fixture listening on')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', check);
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code} before listening`));
      });
    });
  } catch (error) {
    await stop();
    throw new Error(`${directory}: ${(error as Error).message}\n${output}`, { cause: error });
  }
  return { url: `http://127.0.0.1:${port}`, output: () => output, stop };
}

function stopChild(child: ChildProcess, output: () => string): Promise<Stopped> {
  const printed = output().length;
  const started = performance.now();
  const ended = (): Stopped => ({
    code: child.exitCode,
    signal: child.signalCode,
    elapsedMs: performance.now() - started,
    closingOutput: output().slice(printed),
  });
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(ended());
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    // 'close': the process has exited and all it printed has been read.
    child.once('close', () => {
      clearTimeout(timer);
      resolve(ended());
    });
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
