import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Files whose assertions are about time or load (latency bounds, propagation percentiles, timer
 * gaps, heap growth, counts under a flood): they run one at a time once the rest has finished, so
 * that neither disturbs the other and the figures they write to docs/ are the machine's own.
 */
const MEASURED = [
  'test/engine/exactness.spec.ts',
  'test/e2e/shaping/**/*.spec.ts',
  'test/e2e/store-faults/**/*.spec.ts',
  'test/system/shaping.spec.ts',
  'test/system/admin/propagation.spec.ts',
  'test/system/admin/blocked-list.spec.ts',
  'test/system/admin/penalty-stream.spec.ts',
  'test/system/admin/unblock.spec.ts',
  'test/system/faults/**/*.spec.ts',
];

const project = (test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration => ({
  // Nest resolves constructor parameters from decorator metadata, which esbuild does not emit.
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    alias: {
      '@sluice/nest': fileURLToPath(new URL('./libs/sluice/src/index.ts', import.meta.url)),
      '@sluice/admin': fileURLToPath(new URL('./libs/sluice-admin/src/index.ts', import.meta.url)),
    },
  },
  test: { pool: 'forks', testTimeout: 30_000, hookTimeout: 60_000, ...test },
});

export default defineConfig({
  test: {
    // Runs once for the whole run (Redis servers, the PostgreSQL check); both projects inject it.
    globalSetup: ['./test/global-setup.ts'],
    watch: false,
    projects: [
      project({
        name: 'suite',
        include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts', 'test/**/*.spec.ts'],
        exclude: [...configDefaults.exclude, '**/dist/**', ...MEASURED],
        sequence: { groupOrder: 0 },
      }),
      project({
        name: 'measured',
        include: MEASURED,
        fileParallelism: false,
        sequence: { groupOrder: 1 },
      }),
    ],
  },
});
