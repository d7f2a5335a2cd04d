// ESLint flat config: typescript-eslint's recommended type-checked rules over src, test and bench.
// Formatting is Prettier's job (npm run format); dead code is ts-unused-exports' and depcheck's (npm run lint).
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist*/', 'src/db/generated/', 'bench/results/', 'coverage/', 'data/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore marks a deliberately unused binding; rest siblings drop keys from a copy.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // `async` on a function without `await` is how an implementation of a Promise-returning interface
      // turns a throw into a rejection; removing it would change behaviour, not style.
      '@typescript-eslint/require-await': 'off',
      // Flags every destructured Yoga hook payload (`onRequest({ endResponse })`) and our closure-based
      // objects, none of which use `this`; the rule cannot tell them from real unbound methods.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The console's browser script (served as is, no build step): plain JavaScript, not in the TypeScript project.
    files: ['src/console/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(['window', 'document', 'location', 'navigator', 'sessionStorage', 'fetch', 'Node'].map((name) => [name, 'readonly'])),
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests and the benchmark read untyped JSON responses (GraphQL data, REST bodies) and assert on them;
      // the assertions are the type check.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Vitest fixtures must destructure their first argument, even when they use no other fixture.
      'no-empty-pattern': 'off',
    },
  },
  {
    // The dependency rule (docs/explanation/dependency-rule.md): imports point one way, so no module
    // reaches itself through its imports, type-only imports included.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver()] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // no-cycle skips type-only imports; the layer zones below hold for every import, types included.
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: './src/db',
              from: ['./src/domain', './src/graphql', './src/http', './src/limits', './src/cli', './src/demo'],
              message: 'db is the bottom layer.',
            },
            { target: './src/limits', from: ['./src/graphql', './src/http', './src/cli'], message: 'limits decide; the transports apply them.' },
            {
              target: './src/domain/**/!(graphql|*-graphql).ts',
              from: ['./src/graphql', './src/http', './src/cli', './src/demo'],
              message: "a domain module's core knows no transport (its GraphQL adapter is its graphql.ts).",
            },
            {
              target: ['./src/graphql', './src/domain/**/*graphql.ts'],
              from: ['./src/http', './src/cli'],
              message: 'the GraphQL transport does not reach into REST.',
            },
            {
              target: './src/domain/registry.ts',
              from: './src/domain/**',
              except: ['**/src/domain/*/schema.ts'],
              message: "the registry reads only the kinds' declarations, so every layer may import it.",
            },
            {
              target: './src/domain/declaration',
              from: ['./src/domain/ingestion', './src/domain/registry.ts'],
              message: 'the declaration vocabulary sits below the registry; the ingestion engine, above it, uses both.',
            },
            { target: './src/http', from: './src/graphql', except: ['./context.ts'], message: 'REST shares only the request context with GraphQL.' },
            {
              target: './src/observability',
              from: ['./src/db', './src/domain', './src/graphql', './src/http', './src/limits', './src/cli', './src/demo', './src/app.ts', './src/main.ts'],
              message: 'observability sits under every layer (each calls it): it imports base modules only.',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
