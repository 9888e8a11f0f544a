// What a package brings into an app: its dependencies, theirs, and so on, found the way Node finds
// them from each package's real folder (npm's and yarn's hoisting, pnpm's links alike).
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface Manifest {
  name: string;
  version: string;
  scripts?: Record<string, string>;
  gypfile?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

/** The folder of `name` as Node resolves it from a package in `from`. */
function locate(name: string, from: string): string | undefined {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(folder) === folder) return undefined;
  }
}

/** Files of a package ending in `.node` (compiled addons), its own node_modules left out. */
function addonsIn(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder)) {
    if (entry === 'node_modules') continue;
    const path = join(folder, entry);
    const stats = statSync(path);
    if (stats.isDirectory()) found.push(...addonsIn(path));
    else if (entry.endsWith('.node')) found.push(path);
  }
  return found;
}

/**
 * Every package `roots` (names installed in `app`) bring with them, each with what would run or
 * load native code: an install script, a node-gyp build, a compiled addon. Peers are the app's
 * own choice and are not followed.
 */
export function nativeCodeBroughtBy(app: string, roots: string[]): string[] {
  const seen = new Set<string>();
  const findings: string[] = [];
  const queue = roots.map((name) => ({ name, from: realpathSync(app) }));
  while (queue.length > 0) {
    const { name, from } = queue.shift()!;
    const folder = locate(name, from);
    if (folder === undefined) {
      findings.push(`${name}: not installed (needed from ${from})`);
      continue;
    }
    if (seen.has(folder)) continue;
    seen.add(folder);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
    const id = `${manifest.name}@${manifest.version}`;
    for (const script of INSTALL_SCRIPTS) {
      if (manifest.scripts?.[script] !== undefined) findings.push(`${id}: ${script} script`);
    }
    if (manifest.gypfile === true || existsSync(join(folder, 'binding.gyp'))) {
      findings.push(`${id}: node-gyp build`);
    }
    for (const addon of addonsIn(folder))
      findings.push(`${id}: addon ${addon.slice(folder.length + 1)}`);
    const next = { ...manifest.optionalDependencies, ...manifest.dependencies };
    for (const dependency of Object.keys(next)) queue.push({ name: dependency, from: folder });
  }
  if (seen.size === 0) findings.push('nothing found');
  return findings;
}
