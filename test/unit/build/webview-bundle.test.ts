/**
 * The webview bundle parses on every graph the user opens (npm start's time to the graph): it must
 * carry the graph code, Cytoscape and the two webview controls, and not the trace schema's zod,
 * which only the extension host needs. Built here with the same entry and options as esbuild.mjs.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as esbuild from 'esbuild';

const ROOT = path.join(__dirname, '..', '..', '..');

describe('webview bundle', () => {
  it('holds no zod and no Node-only module, and stays under 700 KB minified', async () => {
    const result = await esbuild.build({
      entryPoints: [path.join(ROOT, 'webview', 'main.ts')],
      bundle: true,
      minify: true,
      format: 'iife',
      platform: 'browser',
      mainFields: ['module', 'main'],
      target: 'es2022',
      write: false,
      metafile: true,
      outdir: path.join(ROOT, 'dist', 'bundle-check'),
    });
    const inputs = Object.keys(result.metafile.inputs);
    assert.deepEqual(inputs.filter((p) => /node_modules\/zod\//.test(p)), [], 'zod is bundled into the webview');
    assert.ok(inputs.some((p) => /node_modules\/cytoscape\//.test(p)), 'the check sees the bundle (Cytoscape is in it)');
    assert.deepEqual(inputs.filter((p) => /^src\/(trace\/(schema|read|formats)|analysis|editor|session)\b/.test(p)), [], 'host-only modules in the webview');
    const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
    assert.ok(js && js.contents.length < 700_000, `webview.js is ${js?.contents.length} bytes`);
  });
});
