// Lint: typescript-eslint's recommended rules, without type information (tsc -b already checks
// types; type-aware rules would cost a second type check). Run by `npm run lint` and `npm test`.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', '.tsbuild/', '.vscode-test/', 'node_modules/', 'test-output/', 'test/fixtures/'] },
  {
    files: ['**/*.ts', '**/*.mjs'],
    extends: [tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_x` and rest siblings leave a field or parameter out on purpose (as tsc's noUnusedLocals allows)
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // `a && f()` as a statement is an idiom here; a bare value or a comma list of statements is still reported
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // `interface C extends AsyncCalls {}` merges with class C (its methods are assigned in the constructor)
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // a `let` that callbacks made before it read once it is set (the webview's per-trace state) cannot be a const
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // tests walk raw JSON (fixtures, trace metadata) on their own, apart from the readers' types
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // these load modules on demand (integration test files one by one, benches by name)
    files: ['test/integration/index.ts', 'bench/run.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
