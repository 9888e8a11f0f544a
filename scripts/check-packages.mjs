// Checks the packages as they would be published (part of `npm run lint`): packs @sluice/nest and
// @sluice/admin (prepack builds them), runs publint and @arethetypeswrong/cli on each tarball,
// and compares every entry's public API with its report in api/. `--update` rewrites the
// reports instead of failing on a difference. docs/packaging.md describes the checks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const update = process.argv.includes('--update');

/** Each public entry: its package folder, its declaration in dist/esm, its report's name. */
const ENTRIES = [
  ['libs/sluice', 'index.d.ts', 'sluice-nest'],
  ['libs/sluice', 'engine/index.d.ts', 'sluice-nest-engine'],
  ['libs/sluice', 'throttler/index.d.ts', 'sluice-nest-throttler'],
  ['libs/sluice', 'simulator/index.d.ts', 'sluice-nest-simulator'],
  ['libs/sluice', 'internals.d.ts', 'sluice-nest-internals'],
  ['libs/sluice-admin', 'index.d.ts', 'sluice-admin'],
  ['libs/sluice-admin', 'admin-api.types.d.ts', 'sluice-admin-api'],
];

const bin = (name) => join(ROOT, 'node_modules/.bin', name);
const run = (command, args) => execFileSync(command, args, { cwd: ROOT, stdio: 'inherit' });

const packs = mkdtempSync(join(tmpdir(), 'sluice-check-packages-'));
try {
  run('npm', [
    'pack',
    '--silent',
    '-w',
    '@sluice/nest',
    '-w',
    '@sluice/admin',
    '--pack-destination',
    packs,
  ]);
  for (const tarball of readdirSync(packs).map((file) => join(packs, file))) {
    run(bin('publint'), ['--strict', tarball]);
    run(bin('attw'), [tarball, '--format', 'table-flipped']);
  }
} finally {
  rmSync(packs, { recursive: true, force: true });
}

let changed = 0;
for (const [packageDir, entry, report] of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: join(ROOT, packageDir),
      mainEntryPointFilePath: join(ROOT, packageDir, 'dist/esm', entry),
      compiler: { tsconfigFilePath: join(ROOT, 'tsconfig.base.json') },
      apiReport: {
        enabled: true,
        reportFileName: `${report}.api.md`,
        reportFolder: join(ROOT, 'api'),
        reportTempFolder: join(packs, 'api'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        extractorMessageReporting: {
          default: { logLevel: 'warning' },
          'ae-missing-release-tag': { logLevel: 'none' },
          'ae-undocumented': { logLevel: 'error', addToApiReportFile: false },
          'ae-forgotten-export': { logLevel: 'error', addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: 'warning' } },
      },
    },
    configObjectFullPath: join(ROOT, packageDir, 'api-extractor.json'),
    packageJsonFullPath: join(ROOT, packageDir, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  if (!result.succeeded || result.apiReportChanged) {
    changed++;
    console.error(
      `${report}: the public API differs from api/${report}.api.md; run npm run api:update and commit the report`,
    );
  }
}
if (changed > 0 && !update) process.exit(1);
