// Builds one library package (libs/sluice or libs/sluice-admin) for both module systems:
// dist/esm is what tsc emits (ESM, with declarations), dist/cjs the same files converted to
// CommonJS, so a CommonJS app on Nest 11 requires it without require(esm) and TypeScript types it
// under every moduleResolution. Each folder has a package.json saying which system it is.
// docs/packaging.md explains the layout.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const packageDir = resolve(process.argv[2] ?? '.');
const esm = join(packageDir, 'dist/esm');
const cjs = join(packageDir, 'dist/cjs');

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });

// dist/panel (the admin's built panel) is written by the web build and stays.
rmSync(esm, { recursive: true, force: true });
rmSync(cjs, { recursive: true, force: true });

execFileSync(
  process.execPath,
  [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(packageDir, 'tsconfig.lib.json')],
  { stdio: 'inherit' },
);

// A declaration that imports an optional peer must still compile, under skipLibCheck: false, in an
// app that has not installed it: each such import becomes one line marked @ts-ignore, so its types
// are the peer's where it is installed and any where it is not.
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {})
  .filter(([, meta]) => meta.optional)
  .map(([name]) => name);
const peerImport = /^import (type )?\{([^}]*)\} from '([^']+)';$/gm;
for (const file of walk(esm).filter((path) => path.endsWith('.d.ts'))) {
  const text = readFileSync(file, 'utf8');
  const marked = text.replace(peerImport, (statement, type, names, from) => {
    const peer = optionalPeers.some((name) => from === name || from.startsWith(`${name}/`));
    if (!peer) return statement;
    const list = names
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean)
      .join(', ');
    return `// @ts-ignore -- ${from} is an optional peer\nimport ${type ?? ''}{ ${list} } from '${from}';`;
  });
  for (const peer of optionalPeers) {
    if (marked.includes(`import("${peer}`)) {
      throw new Error(`${file}: an inline import("${peer}") type; annotate it with a named import`);
    }
  }
  if (marked !== text) writeFileSync(file, marked);
}

// The Lua library is read from beside the compiled JavaScript at run time.
const src = join(packageDir, 'src');
for (const file of walk(src).filter((path) => path.endsWith('.lua'))) {
  cpSync(file, join(esm, relative(src, file)));
}
writeFileSync(join(esm, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);

const emitted = walk(esm);
await build({
  entryPoints: emitted.filter((path) => path.endsWith('.js')),
  outdir: cjs,
  outbase: esm,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  bundle: false,
  // tsc's decorated classes are renamed by the conversion; Nest's logs and errors name them.
  keepNames: true,
  sourcemap: true,
  sourcesContent: true,
  logLevel: 'warning',
  // Optional peers load with import() in ESM and with require() here: under plain Jest (no
  // --experimental-vm-modules) an import() inside node_modules throws, require() does not.
  supported: { 'dynamic-import': false },
  // The few modules that find files beside themselves do it from import.meta.url.
  define: { 'import.meta.url': '__sluiceModuleUrl' },
  banner: {
    js: "'use strict';\nconst __sluiceModuleUrl = require('node:url').pathToFileURL(__filename).href;",
  },
});
for (const file of emitted.filter((path) => /\.(d\.ts|lua)$/.test(path))) {
  cpSync(file, join(cjs, relative(esm, file)));
}
writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
