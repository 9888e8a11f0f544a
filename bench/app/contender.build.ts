import { execFile } from 'node:child_process';
import { copyFile, rm, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = fileURLToPath(new URL('./dist/', import.meta.url));
const BUILD_TIMEOUT_MS = 180_000;

/** The compiled contender entry point (bench/app/dist, mirroring the repository's layout). */
export const CONTENDER_MAIN = `${OUT}bench/app/contender.main.js`;
/** The compiled in-process guard harness (`npm run bench:guard`). */
export const GUARD_MAIN = `${OUT}bench/app/guard.main.js`;

/**
 * Compiles the contender app and the library with tsc, as an application ships them: run from
 * TypeScript through a loader, every closure pays for the loader's helpers, which the peers
 * (plain JavaScript in node_modules) do not. Type errors are reported, not fatal.
 */
export async function buildContenders(): Promise<void> {
  await rm(OUT, { recursive: true, force: true });
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  await run(process.execPath, [tsc, '-p', 'bench/app/tsconfig.build.json'], {
    cwd: ROOT,
    timeout: BUILD_TIMEOUT_MS,
  }).catch((error: Error & { stdout?: string }) => {
    console.warn(`tsc reported errors (the build goes on):\n${error.stdout ?? error.message}`);
  });
  await stat(CONTENDER_MAIN);
  const library = `${OUT}libs/sluice`;
  await run(process.execPath, ['scripts/copy-lua.mjs', 'libs/sluice/src', `${library}/src`], {
    cwd: ROOT,
  });
  // The library reads its own version from its package.json.
  await copyFile(`${ROOT}libs/sluice/package.json`, `${library}/package.json`);
}
