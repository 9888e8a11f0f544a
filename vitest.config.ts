import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The tiers (docs/testing.md): `unit` needs no server; `e2e` needs Redis (the runner starts its
 * own); `system` needs PostgreSQL, Chromium or whole processes; `measured` holds the files whose
 * assertions are about time or load, run one at a time once the rest has finished.
 */
const UNIT = ['libs/**/*.spec.ts', 'apps/**/*.spec.ts'];
const E2E = [
  'test/e2e/**/*.spec.ts',
  'test/engine/**/*.spec.ts',
  'test/throttler-storage/**/*.spec.ts',
  'test/infrastructure/redis-*.spec.ts',
];
const SYSTEM = [
  'test/system/**/*.spec.ts',
  'test/infrastructure/fault-proxy.spec.ts',
  'test/infrastructure/test-database.spec.ts',
  'test/infrastructure/docker-compose.spec.ts',
  'test/packages/**/*.spec.ts',
];

/**
 * Latency bounds, propagation times, timer gaps, heap growth, counts under a flood, windows of a
 * few hundred milliseconds: neither these nor the rest may disturb each other.
 */
const MEASURED = [
  'test/engine/exactness.spec.ts',
  // Compares decisions against elapsed wall time within a few milliseconds.
  'test/engine/clock-skew.spec.ts',
  'test/engine/key-ttl.spec.ts',
  'test/engine/identifiers.spec.ts',
  'test/e2e/shaping/**/*.spec.ts',
  'test/e2e/store-faults/**/*.spec.ts',
  'test/e2e/event-loop-lag/**/*.spec.ts',
  'test/e2e/policy-bus/**/*.spec.ts',
  'test/e2e/unblock/**/*.spec.ts',
  // Redis time of one request, from INFO commandstats, and live figures polled within seconds.
  'test/system/admin-live/**/*.spec.ts',
  'test/system/shaping.spec.ts',
  'test/system/admin/propagation.spec.ts',
  'test/system/admin/blocked-list.spec.ts',
  'test/system/admin/penalty-stream.spec.ts',
  'test/system/admin/postgres-outage.spec.ts',
  'test/system/admin/unblock.spec.ts',
  'test/system/faults/**/*.spec.ts',
  // A browser and two demos: its waits for live figures should not compete with the rest.
  'test/system/panel/**/*.spec.ts',
  // Rebuilds both packages' dist/ (npm pack) and installs four apps: nothing else may read dist/
  // meanwhile.
  'test/packages/**/*.spec.ts',
];

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
const entryAliases = Object.entries(ENTRIES).map(([name, path]) => ({
  find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
  replacement: source(path),
}));

/**
 * TEST_SHUFFLE=1 runs the files of each group in random order (Vitest prints the seed;
 * TEST_SHUFFLE_SEED repeats one). Set here, not with `--sequence.shuffle` on the command line:
 * that replaces every project's `sequence`, groupOrder included, and the sweep then runs among
 * the first files instead of last.
 */
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
        exclude: [...configDefaults.exclude, '**/dist/**', ...MEASURED],
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
          sequence: sequence(0),
        },
      },
      project({
        name: 'e2e',
        include: E2E,
        exclude: [...configDefaults.exclude, '**/dist/**', ...MEASURED],
        sequence: sequence(0),
      }),
      project({
        name: 'system',
        // A hook may wait for the one build of the demo that files started together share.
        hookTimeout: 180_000,
        include: SYSTEM,
        exclude: [...configDefaults.exclude, '**/dist/**', ...MEASURED],
        sequence: sequence(0),
      }),
      project({
        name: 'measured',
        hookTimeout: 180_000,
        include: MEASURED,
        fileParallelism: false,
        sequence: sequence(1),
      }),
      project({
        // Last: the keyspace every other tier left on the shared servers.
        name: 'sweep',
        include: ['test/sweep/**/*.spec.ts'],
        sequence: sequence(2),
      }),
    ],
  },
});
