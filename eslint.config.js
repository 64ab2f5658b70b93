import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'docs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript build and packaging scripts run in Node.
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // CommonJS hooks (electron-builder's afterPack) load their dependencies with require().
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-globals': ['error', { name: 'parseFloat', message: 'Money is integer minor units.' }],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs['recommended-latest'].rules,
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // No module written as one long closure: a function fits on a few screens, a file on a few more.
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      'max-lines-per-function': ['error', { max: 200, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Process boundaries: only the Electron shell and the preload may reach Electron; the
    // renderer reaches main only through window.desk.
    files: [
      'src/shared/**/*.ts',
      'src/sandbox/**/*.ts',
      'src/team-server/**/*.ts',
      'src/renderer/**/*.{ts,tsx}',
      'src/main/**/*.ts',
    ],
    ignores: ['src/main/index.ts', 'src/main/electron/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'electron',
              message: 'Only src/main/index.ts, src/main/electron/ and src/preload may import electron.',
            },
          ],
        },
      ],
    },
  },
);
