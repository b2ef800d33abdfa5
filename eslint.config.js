// Lint: typescript-eslint's recommended and type-checked rules, with formatting left to Prettier.
// `make lint` runs it; `make test` runs it first.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Casts that erase a type instead of narrowing it: the generated types are the contract, so a
// value that needs one of these is a mapper or a row type that does not fit yet.
const typeErasure = [
  {
    selector: 'TSAsExpression > TSNeverKeyword',
    message: 'No `as never`: type the value (see db/json.ts for JSON columns).',
  },
  {
    selector: 'TSAsExpression[expression.type="TSAsExpression"][expression.typeAnnotation.type="TSUnknownKeyword"]',
    message: 'No `as unknown as`: make the types meet, or narrow with a checked function.',
  },
];

export default tseslint.config(
  { ignores: ['generated/**', 'node_modules/**', '.sdk/**', '.data/**', 'test/sdk/**', 'bench/results/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'no-restricted-syntax': ['error', ...typeErasure],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests, benchmarks and the conformance suite (a test runner shipped with the server) read
    // answers off the wire as JSON (`any`) and compare them with the contract; typing every answer
    // would restate the contract they check.
    files: ['test/**', 'bench/**', 'src/conformance/**'],
    rules: {
      // Hostile-input tests send what the types forbid, on purpose, and stubs may be async without awaiting.
      'no-restricted-syntax': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
  prettier,
);
