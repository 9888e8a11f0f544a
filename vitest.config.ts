import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['libs/**/*.spec.ts', 'test/**/*.spec.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/dist/**'],
    globalSetup: ['./test/global-setup.ts'],
    pool: 'forks',
    watch: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
