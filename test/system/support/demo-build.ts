// Builds the library, the admin module, the panel and the demo once per change of their sources.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Written after a successful build: the fingerprint of the inputs it was built from. */
const STAMP = join(ROOT, 'apps/demo/dist/.build-inputs');
const BUILD_INPUTS = [
  'package.json',
  'tsconfig.base.json',
  'scripts/build-package.mjs',
  'libs/sluice/package.json',
  'libs/sluice/tsconfig.lib.json',
  'libs/sluice/src',
  'libs/sluice-admin/package.json',
  'libs/sluice-admin/tsconfig.lib.json',
  'libs/sluice-admin/src',
  'apps/demo/package.json',
  'apps/demo/tsconfig.build.json',
  'apps/demo/src',
  'web/package.json',
  'web/tsconfig.json',
  'web/vite.config.ts',
  'web/index.html',
  'web/src',
];
const BUILD_TIMEOUT_MS = 120_000;
const LOCK_WAIT_MS = 150_000;

const execFileAsync = promisify(execFile);

let built: Promise<void> | undefined;

/**
 * Runs `npm run build` (library, admin, panel and demo) unless apps/demo/dist was built from the sources as
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

/** A digest of every build input's path and content (an input that does not exist counts as empty). */
async function fingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const input of BUILD_INPUTS) {
    for (const file of await filesUnder(join(ROOT, input))) {
      const content = await readFile(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (content === undefined) continue;
      hash.update(relative(ROOT, file)).update('\0').update(content).update('\0');
    }
  }
  return hash.digest('hex');
}

async function filesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return [path];
  const nested = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() || !/\.(spec|test)\.tsx?$/.test(entry.name))
      .map((entry) => filesUnder(join(path, entry.name))),
  );
  return nested.flat().sort();
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
