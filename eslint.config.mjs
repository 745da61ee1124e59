// `npm run lint` runs this with --max-warnings 0: every rule here must hold on the whole tree, so a warning fails CI.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

// The feature modules. src/core is the plumbing they all stand on, so it must never import one of them:
// that would tie core to a feature and, through the feature's own imports of core, make a cycle.
const FEATURES = ['identity', 'content', 'groups', 'sharing', 'features', 'export', 'ops', 'migrations'];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'data/', 'bench/out/'] },
  js.configs.recommended,
  // The non-type-aware set: the type-aware one re-runs the type checker that `npm run typecheck` already runs.
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Without these, import-x skips .ts targets and no-cycle silently finds nothing.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json', '.node'] })],
    },
    rules: {
      // Unused parameters kept for a signature (Nest hooks, Express handlers) are marked with a leading underscore.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/core',
              from: FEATURES.map((f) => `./src/${f}`),
              message: 'src/core is shared plumbing: move what it needs into src/core instead of importing a feature module.',
            },
          ],
        },
      ],
    },
  },
  {
    // Plain CommonJS read by Node as is (jest's config, preloaded -r modules): require() is how they import.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
