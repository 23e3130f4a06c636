// Lint: typed rules (no floating promises, no any in shared/ and functions/) and the layering arrows.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.scratch/', 'node_modules/', '.serverless/', '.build/', 'dist/', '.test-build/', 'coverage/', 'bin/', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/sim/**', '**/testbed/**', '**/functions/**', '**/cli/**'], message: 'shared/ must not import sim/, testbed/, functions/ or cli/' },
        ],
      }],
    },
  },
);
