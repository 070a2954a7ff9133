/**
 * Checks the test bridge (bridge.ts <-> scripts/vscode/run-integration.mjs) on a webview that
 * the test opens itself, so it does not depend on the extension's own views.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clickInWebview, evalInPage, evalInWebview, hasBridge, screenshot } from './bridge';

const PROBE = '#otrace-bridge-probe';

describe('test bridge', function () {
  let panel: vscode.WebviewPanel | undefined;

  before(function () {
    if (!hasBridge()) this.skip();
    panel = vscode.window.createWebviewPanel('otraceBridgeProbe', 'Bridge probe', vscode.ViewColumn.One, { enableScripts: true });
    panel.webview.html = `<!DOCTYPE html><html><body>
      <div id="otrace-bridge-probe"><span class="n">a</span><span class="n">b</span><span class="n">c</span></div>
      <button id="otrace-bridge-button" onclick="this.textContent = 'clicked'">click me</button>
    </body></html>`;
  });

  after(() => panel?.dispose());

  it('evaluates code in a webview', async () => {
    const n = await evalInWebview<number>(`document.querySelectorAll('${PROBE} .n').length`, { selector: PROBE });
    assert.equal(n, 3);
    const texts = await evalInWebview<string[]>(`() => [...document.querySelectorAll('${PROBE} .n')].map((e) => e.textContent)`, { selector: PROBE });
    assert.deepEqual(texts, ['a', 'b', 'c']);
  });

  it('clicks in a webview', async () => {
    await clickInWebview('#otrace-bridge-button');
    const text = await evalInWebview<string>(`document.querySelector('#otrace-bridge-button').textContent`, { selector: PROBE });
    assert.equal(text, 'clicked');
  });

  it('throws what the evaluated code throws', async () => {
    await assert.rejects(evalInWebview(`(() => { throw new Error('boom'); })()`, { selector: PROBE }), /boom/);
  });

  it('evaluates code in the workbench page', async () => {
    assert.equal(await evalInPage<boolean>(`!!document.querySelector('.monaco-workbench')`), true);
  });

  it('takes a screenshot of the page', async () => {
    const file = path.join(os.tmpdir(), `otrace-bridge-${process.pid}.png`);
    const written = await screenshot(file);
    try {
      assert.equal(written, file);
      const head = fs.readFileSync(file).subarray(0, 8);
      assert.deepEqual([...head], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
