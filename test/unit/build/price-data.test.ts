/**
 * The model price data (@pydantic/genai-prices, about 0.8 MB) is bundled in the CLI, which prices
 * `otrace summary`, and in no bundle VS Code loads (extension host, engine worker): the run summary
 * (src/analysis/run-summary.ts) takes the pricing as an argument. Read from esbuild's metafile.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { it } from 'node:test';
import * as esbuild from 'esbuild';

const ROOT = path.join(__dirname, '..', '..', '..');
const PRICES = /node_modules\/@pydantic\/genai-prices\//;

/** The input modules of one build of esbuild.mjs, as paths relative to the project. */
async function inputsOf(name: 'extension' | 'worker' | 'cli'): Promise<string[]> {
  const { BUILDS } = (await import(path.join(ROOT, 'esbuild.mjs'))) as { BUILDS: Record<string, esbuild.BuildOptions> };
  const result = await esbuild.build({ ...BUILDS[name], absWorkingDir: ROOT, write: false, metafile: true, outdir: path.join(ROOT, 'dist', 'bundle-check') });
  return Object.keys(result.metafile!.inputs).map((p) => path.relative(ROOT, path.resolve(ROOT, p)).split(path.sep).join('/'));
}

it('the price library is in the CLI bundle only', async () => {
  const [cli, host, worker] = await Promise.all([inputsOf('cli'), inputsOf('extension'), inputsOf('worker')]);
  assert.ok(cli.some((p) => PRICES.test(p)) && cli.includes('src/cli/prices.ts'), 'the CLI prices model calls');
  assert.ok(worker.includes('src/analysis/index.ts'), `the check sees the worker bundle: ${worker.length} modules`);
  assert.deepEqual(host.filter((p) => PRICES.test(p)), [], 'price data in the extension host bundle');
  assert.deepEqual(worker.filter((p) => PRICES.test(p)), [], 'price data in the engine worker bundle');
});
