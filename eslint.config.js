import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { folderLayersConfig } from './eslint/folder-layers.js';

export default defineConfig(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '**/build/',
      '**/coverage/',
      '**/.vite/',
      '**/.next/',
      '**/.tmp/',
      '**/test-results/',
      // Apps of their own, type-checked by their own tsconfig when test/packages installs them.
      'test/packages/fixtures/',
    ],
  },
  eslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    rules: {
      // The panel does not build with the React Compiler; react-hook-form's watch() is used as
      // its documentation shows, and this rule only says the compiler would skip such components.
      'react-hooks/incompatible-library': 'off',
    },
  },
  {
    // `@sluice/*/src/…` is the tests' way into a library's parts (vitest.config.ts, tsconfig.json);
    // the libraries, the demo, the panel and the benches go through the published entries.
    files: ['libs/**/*.{ts,tsx}', 'apps/**/*.ts', 'web/**/*.{ts,tsx}', 'bench/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@sluice/(nest|admin)/src/',
              message: 'Only tests reach into a library; import a published entry.',
            },
          ],
        },
      ],
    },
  },
  ...folderLayersConfig(),
  prettier,
);
