import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // Nest resolves constructor parameters from decorator metadata, which esbuild does not emit.
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    alias: {
      '@sluice/nest': fileURLToPath(new URL('./libs/sluice/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts', 'test/**/*.spec.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/dist/**'],
    globalSetup: ['./test/global-setup.ts'],
    pool: 'forks',
    watch: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
