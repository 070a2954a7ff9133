// Builds everything that runs: the extension host and CLI (Node, CommonJS), the engine's worker
// thread, the webview (browser, IIFE), and the integration tests (run inside the extension host).
// `--watch` rebuilds on change. Imported (test/unit/build), it only exports the build options.
import * as esbuild from 'esbuild';
import { chmodSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const watch = process.argv.includes('--watch');
// mainFields: jsonc-parser's UMD main cannot be bundled; its ESM build can.
const common = { mainFields: ['module', 'main'], bundle: true, sourcemap: true, logLevel: 'warning', target: 'es2022' };

/** The builds, by name. */
export const BUILDS = {
  // Whitespace and syntax minified (names kept, so stack traces in the host's log stay readable):
  // VS Code parses this before it activates the extension. It holds no parse, import or analysis
  // code: that is the worker's (test/unit/build/host-bundle.test.ts checks it).
  extension: { ...common, platform: 'node', format: 'cjs', entryPoints: { extension: 'src/host/extension.ts' }, outdir: 'dist', external: ['vscode'], minifyWhitespace: !watch, minifySyntax: !watch },
  // The engine's worker thread: the sessions (read, import, analysis, graph windows).
  worker: { ...common, platform: 'node', format: 'cjs', entryPoints: { 'engine-worker': 'src/engine/worker-main.ts' }, outdir: 'dist', minifyWhitespace: !watch, minifySyntax: !watch },
  // The CLI is also the script of its worker threads (src/cli/pool.ts). DuckDB (`otrace query`) is a
  // native module loaded at run time from beside otrace: never bundled, never in the VSIX.
  cli: { ...common, platform: 'node', format: 'cjs', entryPoints: { cli: 'src/cli/bin.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' }, external: ['@duckdb/node-api'] },
  // For scripts/start.mjs (npm start -- PATH); not part of the VSIX.
  openTarget: { ...common, platform: 'node', format: 'cjs', entryPoints: { 'open-target': 'src/engine/open-target.ts' }, outdir: 'dist' },
  // Minified: the webview parses this on every graph it opens (npm start's time to the graph).
  webview: { ...common, platform: 'browser', format: 'iife', entryPoints: { webview: 'webview/main.ts' }, outdir: 'dist', minify: !watch },
  // The compare panel's page (issue 28): its own bundle, so the graph's stays as it is.
  compareWebview: { ...common, platform: 'browser', format: 'iife', entryPoints: { compare: 'webview/compare/main.ts' }, outdir: 'dist', minify: !watch },
  integration: { ...common, platform: 'node', format: 'cjs', entryPoints: { 'test/integration/index': 'test/integration/index.ts' }, outdir: 'dist', external: ['vscode', 'mocha', 'playwright-core'] },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const builds = Object.values(BUILDS).filter((b) => Object.values(b.entryPoints).every((p) => existsSync(p)));
  if (watch) {
    for (const b of builds) await (await esbuild.context(b)).watch();
  } else {
    await Promise.all(builds.map((b) => esbuild.build(b)));
    if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
  }
}
