import react from '@vitejs/plugin-react';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The tiers (docs/testing.md), each a folder: `unit` beside the source needs no server;
 * `test/e2e/` needs Redis (the runner starts its own); `test/system/` needs PostgreSQL, Chromium
 * or whole processes; `test/measured/` holds the files whose assertions are about time or load,
 * and `test/packages/` installs the packed packages into apps of their own, both run one file at
 * a time once the rest has finished, so neither they nor the rest disturb each other.
 */
const UNIT = ['libs/**/*.spec.ts', 'apps/**/*.spec.ts'];
const E2E = ['test/e2e/**/*.spec.ts'];
const SYSTEM = ['test/system/**/*.spec.ts'];
const MEASURED = ['test/measured/**/*.spec.ts', 'test/packages/**/*.spec.ts'];

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Each package entry, exactly as its exports map names it, to its source file. */
const ENTRIES: Record<string, string> = {
  '@sluice/nest': './libs/sluice/src/index.ts',
  '@sluice/nest/engine': './libs/sluice/src/engine/index.ts',
  '@sluice/nest/throttler': './libs/sluice/src/throttler/index.ts',
  '@sluice/nest/simulator': './libs/sluice/src/simulator/index.ts',
  '@sluice/nest/internals': './libs/sluice/src/internals.ts',
  '@sluice/admin': './libs/sluice-admin/src/index.ts',
  '@sluice/admin/api': './libs/sluice-admin/src/admin-api.types.ts',
};
/**
 * Each package entry, and for tests that reach a library's parts, `@sluice/nest/src/…` and
 * `@sluice/admin/src/…` for its source folder (never published: tsconfig.json maps the same).
 */
const entryAliases = [
  ...Object.entries(ENTRIES).map(([name, path]) => ({
    find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
    replacement: source(path),
  })),
  { find: /^@sluice\/nest\/src\/(.*)$/, replacement: `${source('./libs/sluice/src/')}$1` },
  { find: /^@sluice\/admin\/src\/(.*)$/, replacement: `${source('./libs/sluice-admin/src/')}$1` },
];

/**
 * TEST_SHUFFLE=1 runs the files of each group in random order (Vitest prints the seed;
 * TEST_SHUFFLE_SEED repeats one). Set here, not with `--sequence.shuffle` on the command line:
 * that replaces every project's `sequence`, groupOrder included, and the sweep then runs among
 * the first files instead of last.
 */
/**
 * The unit tiers start no server and wait on nothing but the CPU, so they take every core:
 * Vitest's default leaves one free, which on a two-core machine runs them one file at a time
 * (about 75 s there for `npm run test:unit`, against a budget of 60). Vitest runs projects of
 * one group with one worker count, so the unit tiers are a group of their own, run first; the
 * server tiers keep the default.
 */
const UNIT_WORKERS = Math.max(availableParallelism(), 2);
/**
 * The unit tiers share a worker's modules between files instead of loading every module again
 * for each (`isolate: false`): loading was most of their time (on a 2-core host, 36 s of the
 * libraries' and 34 s of the panel's, against 8 and 11 s shared). Their files hold no state at
 * module level and undo every spy, stub and fake timer after each test; `TEST_SHUFFLE=1` runs
 * them in another order to check it still holds.
 */
const UNIT_ISOLATE = false;

const SHUFFLE = process.env.TEST_SHUFFLE === '1';
const SEED = process.env.TEST_SHUFFLE_SEED ? Number(process.env.TEST_SHUFFLE_SEED) : undefined;
const sequence = (groupOrder: number) => ({ groupOrder });

const project = (test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration => ({
  // Nest resolves constructor parameters from decorator metadata, which esbuild does not emit.
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { alias: entryAliases },
  test: { pool: 'forks', testTimeout: 30_000, hookTimeout: 60_000, ...test },
});

export default defineConfig({
  test: {
    // Starts the Redis servers and checks PostgreSQL once for the whole run, unless only the unit
    // tiers run.
    globalSetup: ['./test/global-setup.ts'],
    watch: false,
    ...(SHUFFLE ? { sequence: { shuffle: { files: true, tests: false }, seed: SEED } } : {}),
    // Figures and outcomes for `npm run measure` (scripts/write-measured-docs.mjs).
    reporters: ['default', ['json', { outputFile: 'test-results/vitest-report.json' }]],
    projects: [
      project({
        name: 'unit',
        include: UNIT,
        maxWorkers: UNIT_WORKERS,
        isolate: UNIT_ISOLATE,
        exclude: [...configDefaults.exclude, '**/dist/**'],
        sequence: sequence(0),
      }),
      {
        // The panel's components, rendered in happy-dom with the same aliases as web/vite.config.ts.
        plugins: [react()],
        resolve: { alias: entryAliases },
        test: {
          name: 'web',
          include: ['web/src/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          maxWorkers: UNIT_WORKERS,
          isolate: UNIT_ISOLATE,
          sequence: sequence(0),
        },
      },
      project({
        name: 'e2e',
        include: E2E,
        sequence: sequence(1),
      }),
      project({
        name: 'system',
        // A hook may wait for the one build of the demo that files started together share.
        hookTimeout: 180_000,
        include: SYSTEM,
        sequence: sequence(1),
      }),
      project({
        name: 'measured',
        hookTimeout: 180_000,
        include: MEASURED,
        // The fixture apps' own tests run in those apps, under their own runners.
        exclude: [...configDefaults.exclude, 'test/packages/fixtures/**'],
        fileParallelism: false,
        sequence: sequence(2),
      }),
      project({
        // Last: the keyspace every other tier left on the shared servers.
        name: 'sweep',
        include: ['test/sweep/**/*.spec.ts'],
        sequence: sequence(3),
      }),
    ],
  },
});
