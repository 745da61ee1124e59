// `npm run lint` runs this with --max-warnings 0: every rule here must hold on the whole tree, so a warning fails CI.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import { readdirSync } from 'node:fs';
import { URL } from 'node:url';

// What each module under src/ may import besides itself, top-down (docs/architecture.md has the table). core is the
// ground floor; where and layers sit just above it; nothing lists pages; identity, content, groups and sharing never
// reach export or publish. The composition roots (src/*.ts) are in no zone: they assemble everything.
const MODULES = {
  core: [],
  where: ['core'],
  identity: ['core'],
  content: ['core', 'identity'],
  layers: ['core', 'content'],
  groups: ['core', 'content'],
  sharing: ['core', 'content', 'identity'],
  relationships: ['core', 'identity', 'content'],
  folders: ['core', 'identity', 'content', 'sharing'],
  attachments: ['core', 'content', 'layers', 'where'],
  'feature-server': ['core', 'identity', 'content', 'layers', 'where', 'attachments'],
  publish: ['core', 'identity', 'content', 'layers', 'feature-server'],
  export: ['core', 'identity', 'content', 'layers', 'where', 'publish', 'attachments'],
  pages: ['core', 'identity', 'content', 'groups', 'layers', 'feature-server', 'export'],
  ops: ['core', 'identity'],
  notifications: ['core', 'identity', 'groups'],
  webhooks: ['core', 'identity'],
  migrations: [],
  types: [],
};

// A folder added under src/ must take its place above, or it would sit in no zone.
const unlisted = readdirSync(new URL('./src', import.meta.url), { withFileTypes: true })
  .filter((e) => e.isDirectory() && !(e.name in MODULES))
  .map((e) => `src/${e.name}`);
if (unlisted.length > 0) throw new Error(`eslint.config.mjs: add ${unlisted.join(', ')} to MODULES.`);

const moduleZones = Object.entries(MODULES).map(([name, allowed]) => ({
  target: `./src/${name}`,
  from: './src',
  except: [name, ...allowed].map((m) => `./${m}`),
  message: allowed.length
    ? `src/${name} may import only ${allowed.join(', ')}: see MODULES in eslint.config.mjs.`
    : `src/${name} imports nothing else in src: see MODULES in eslint.config.mjs.`,
}));

const RELATIVE_TYPE_IMPORT = 'Import from our own files without `type`, so import-x/no-cycle sees the import.';

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
      // no-cycle skips `import type` and has no option to see it, so imports between our own files are written
      // without `type` (TypeScript drops an import used only as a type all the same) and a circle of types shows.
      'no-restricted-syntax': [
        'error',
        { selector: "ImportDeclaration[importKind='type'][source.value=/^\\./]", message: RELATIVE_TYPE_IMPORT },
        { selector: "ImportDeclaration[source.value=/^\\./] > ImportSpecifier[importKind='type']", message: RELATIVE_TYPE_IMPORT },
      ],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...moduleZones,
            {
              // The writer is export's engine room; the rest of src goes through export's own files.
              target: ['./src/!(export)/**', './src/*.ts'],
              from: './src/export/writer',
              message: 'Only src/export imports src/export/writer.',
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
