/**
 * The CLI's data-stack libraries stay out of what VS Code loads: DuckDB (a native module, `otrace
 * query`) is in no bundle at all (the CLI loads it at run time from beside otrace); hyparquet-writer
 * (Parquet) is bundled into the CLI only, never into the extension host, the engine's worker or the
 * webview. Built here with the options of esbuild.mjs, reading esbuild's metafile.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as esbuild from 'esbuild';

const ROOT = path.join(__dirname, '..', '..', '..');

/** The input modules of one build of esbuild.mjs, as paths relative to the project. */
async function build(name: string): Promise<{ inputs: string[] }> {
  const { BUILDS } = (await import(path.join(ROOT, 'esbuild.mjs'))) as { BUILDS: Record<string, esbuild.BuildOptions> };
  const result = await esbuild.build({ ...BUILDS[name], absWorkingDir: ROOT, write: false, metafile: true, logLevel: 'silent', outdir: path.join(ROOT, 'dist', 'bundle-check') });
  const inputs = Object.keys(result.metafile!.inputs).map((p) => path.relative(ROOT, path.resolve(ROOT, p)).split(path.sep).join('/'));
  return { inputs };
}

describe('CLI-only dependencies', () => {
  it('DuckDB is in no bundle; hyparquet-writer only in the CLI', async () => {
    const [cli, extension, worker, webview] = await Promise.all(['cli', 'extension', 'worker', 'webview'].map(build));
    assert.ok(cli.inputs.includes('src/cli/query.ts') && cli.inputs.includes('src/cli/parquet.ts'), 'the check sees the CLI bundle');
    for (const [name, b] of Object.entries({ cli, extension, worker, webview })) assert.deepEqual(b.inputs.filter((p) => p.includes('node_modules/@duckdb/')), [], `DuckDB bundled into ${name}`);
    assert.ok(cli.inputs.some((p) => p.includes('node_modules/hyparquet-writer/')), 'Parquet writer in the CLI');
    for (const [name, b] of Object.entries({ extension, worker, webview })) assert.deepEqual(b.inputs.filter((p) => /node_modules\/hyparquet/.test(p) || p.startsWith('src/cli/')), [], `CLI code in ${name}`);
  });
});
