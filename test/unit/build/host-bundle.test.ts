/**
 * No parse, import, analysis or graph-window build runs on the extension host thread: the host's
 * bundle (dist/extension.js) must not contain that code at all; the engine's worker
 * (dist/engine-worker.js) holds it. Built here with the options of esbuild.mjs, reading esbuild's
 * metafile (the modules each bundle was made of); a type-only import costs nothing and is allowed.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as esbuild from 'esbuild';

const ROOT = path.join(__dirname, '..', '..', '..');

/** Modules that parse, import, analyze or build graph windows: the worker's, never the host's. */
const WORKER_ONLY: [string, RegExp][] = [
  ['importers', /^src\/trace\/importers\//],
  ['analysis', /^src\/analysis\//],
  ['graph windows', /^src\/engine\/(graph-window|snapshot|session-store|marks|queries)\.ts$/],
  ['graph model', /^src\/engine\/(graph-model|lanes)\.ts$/],
  ['readers', /^src\/trace\/(read|jsonl|check|fast-check|formats|load-file|mapping|mapping-choice|span-tree|live-files|tail|jsonl-feed|growing-load)\.ts$/],
  ['zod', /node_modules\/zod\//],
];

/** The input modules of one build of esbuild.mjs, as paths relative to the project. */
async function inputsOf(name: 'extension' | 'worker'): Promise<string[]> {
  const { BUILDS } = (await import(path.join(ROOT, 'esbuild.mjs'))) as { BUILDS: Record<string, esbuild.BuildOptions> };
  const result = await esbuild.build({ ...BUILDS[name], absWorkingDir: ROOT, write: false, metafile: true, outdir: path.join(ROOT, 'dist', 'bundle-check') });
  return Object.keys(result.metafile!.inputs).map((p) => path.relative(ROOT, path.resolve(ROOT, p)).split(path.sep).join('/'));
}

describe('extension host bundle', () => {
  it('holds no parse, import, analysis or graph-window code; the worker bundle holds it', async () => {
    const [host, worker] = await Promise.all([inputsOf('extension'), inputsOf('worker')]);
    assert.ok(host.includes('src/host/extension.ts') && host.includes('src/host/engine-client.ts'), `the check sees the host bundle: ${host.length} modules`);
    for (const [what, re] of WORKER_ONLY) {
      assert.deepEqual(host.filter((p) => re.test(p)), [], `${what} in the extension host bundle`);
      assert.ok(worker.some((p) => re.test(p)), `${what} in the worker bundle`);
    }
    assert.deepEqual(worker.filter((p) => p.startsWith('src/host/')), [], 'host (vscode) code in the worker bundle');
    // The host runs only the engine's small contract modules (types, call wrappers, path rules).
    const contract = /^src\/engine\/(path-policy|event-marks|query-types|mapping-scope|engine-calls|trace-engine|worker-protocol|chat-tool-names)\.ts$/;
    assert.deepEqual(host.filter((p) => p.startsWith('src/engine/') && !contract.test(p)), [], 'engine code beyond its contract in the host bundle');
  });
});
