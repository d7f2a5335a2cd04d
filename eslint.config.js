// ESLint flat config: typescript-eslint's recommended type-checked rules over src, test and bench.
// Formatting is Prettier's job (npm run format); dead code is ts-unused-exports' and depcheck's (npm run lint).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'src/db/generated/', 'bench/results/', 'coverage/', 'data/'] },
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
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
