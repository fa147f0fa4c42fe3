// @ts-check
import tseslint from 'typescript-eslint';

// Browser code outside src/ (inside it, src/DEPS.list says what each folder may import: scripts/checkDeps.mjs).
const browserFolders = ['demo/**', 'extension/**'];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bench/results/**',
      'coverage/**',
      // A vendor's project, copied out of the repository and checked with its own TypeScript by e2e/consumer.test.ts.
      'e2e/fixtures/consumer/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    // Browser code never imports Node modules (SPEC §1).
    files: browserFolders,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'ws', '**/server/**'],
              message: 'Browser code must not import Node modules or the server.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['e2e/**', 'bench/**', 'scripts/**', '**/*.test.ts'],
    rules: { 'no-console': 'off' },
  },
);
