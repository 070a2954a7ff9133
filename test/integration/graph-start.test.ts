/**
 * The graph's first paint (issue 10, "start fast"): the webview's script and style come inlined in
 * its HTML (no resource loads), and the host sends the first window with the overview, for the
 * graph area's last known size, so the graph paints without asking the host back.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { evalInWebview } from './bridge';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
const READY = `body[data-state="ready"][data-title="${path.basename(DEMO)}"]`;

interface FirstPaint {
  resources: string[];
  scripts: number;
  inlineScripts: number;
  applied: number;
  asked: number;
  nodes: number;
}

const FIRST_PAINT = `() => ({
  resources: performance.getEntriesByType('resource').map((r) => r.name.split('/').pop()),
  scripts: document.scripts.length,
  inlineScripts: [...document.scripts].filter((s) => !s.src && s.text.length > 100000).length,
  applied: globalThis.__otrace.windows().applied,
  asked: globalThis.__otrace.windows().asked,
  nodes: globalThis.__otrace.cy.nodes().length,
})`;

async function openDemoGraph(): Promise<FirstPaint> {
  await vscode.window.showTextDocument(vscode.Uri.file(DEMO), { viewColumn: vscode.ViewColumn.One, preview: false });
  await vscode.commands.executeCommand('otrace.openGraphToSide');
  return evalInWebview<FirstPaint>(FIRST_PAINT, { selector: READY, timeoutMs: 60_000 });
}

describe('graph first paint', function () {
  this.timeout(120_000);
  before(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('loads no script or style file, and paints the window the host sent with the overview', async () => {
    const first = await openDemoGraph();
    assert.deepEqual(first.resources.filter((r) => /^webview\.(js|css)/.test(r)), [], 'the bundle is inlined, not loaded');
    assert.equal(first.inlineScripts, 1, 'one inline script holds the bundle');
    assert.ok(first.applied >= 1 && first.nodes > 0, `a window is drawn (${first.applied} applied, ${first.nodes} nodes)`);

    // The panel told its size when painted: a new panel of the same size paints the host's first window and asks for none.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const again = await openDemoGraph();
    assert.equal(again.asked, 0, `no window asked for: the host's first window fitted (${again.applied} applied)`);
    assert.equal(again.applied, 1);
    assert.equal(again.nodes, first.nodes, 'the same graph as the first time');
  });
});
