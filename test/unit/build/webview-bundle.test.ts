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
  it('holds no zod and no Node-only module, stays under 700 KB minified, and can be inlined', async () => {
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
    // The graph's HTML inlines the bundle (src/host/panel/webview-assets.ts): nothing in it may close its element.
    const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
    assert.ok(css && css.text.length > 1000, 'the bundle has its style');
    assert.doesNotMatch(js.text, /<\/script/i);
    assert.doesNotMatch(css.text, /<\/style/i);
  });
});
