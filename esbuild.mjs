// Builds everything that runs: the extension host and CLI (Node, CommonJS), the webview (browser,
// IIFE), and the integration tests (run inside the extension host). `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { chmodSync, existsSync } from 'node:fs';

const watch = process.argv.includes('--watch');
// mainFields: jsonc-parser's UMD main cannot be bundled; its ESM build can.
const common = { mainFields: ['module', 'main'], bundle: true, sourcemap: true, logLevel: 'warning', target: 'es2022' };

const builds = [
  // Whitespace and syntax minified (names kept, so stack traces in the host's log stay readable):
  // VS Code parses this before it activates the extension.
  { ...common, platform: 'node', format: 'cjs', entryPoints: { extension: 'src/extension.ts' }, outdir: 'dist', external: ['vscode'], minifyWhitespace: !watch, minifySyntax: !watch },
  { ...common, platform: 'node', format: 'cjs', entryPoints: { cli: 'src/cli.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  // For scripts/start.mjs (npm start -- PATH); not part of the VSIX.
  { ...common, platform: 'node', format: 'cjs', entryPoints: { 'open-target': 'src/open-target.ts' }, outdir: 'dist' },
  // Minified: the webview parses this on every graph it opens (npm start's time to the graph).
  { ...common, platform: 'browser', format: 'iife', entryPoints: { webview: 'webview/main.ts' }, outdir: 'dist', minify: !watch },
  { ...common, platform: 'node', format: 'cjs', entryPoints: { 'test/integration/index': 'test/integration/index.ts' }, outdir: 'dist', external: ['vscode', 'mocha', 'playwright-core'] },
].filter((b) => Object.values(b.entryPoints).every((p) => existsSync(p)));

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
}
