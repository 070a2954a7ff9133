/**
 * The graph's tooltip never outlives what it describes (issue 26: a tooltip stayed after keyboard
 * steps, zooms and after the panel switched to another trace): shown on hover of an event node, it
 * is hidden by a step, by a zoom, and when the panel shows another trace.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { evalInWebview } from './bridge';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const SESSION = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
const frameOf = (file: string) => `body[data-state="ready"][data-title="${path.basename(file)}"]`;

/** Hovers the first visible event node of the graph showing `file`; returns the tooltip's text. */
const HOVER = `() => {
  const { cy } = globalThis.__otrace;
  const n = cy.nodes('.event').filter((x) => x.visible()).first();
  n.emit('mouseover');
  const tip = document.getElementById('tooltip');
  return tip.hidden ? '' : tip.textContent;
}`;
const TIP = `() => { const tip = document.getElementById('tooltip'); return { hidden: tip.hidden, text: tip.textContent }; }`;

describe('graph tooltip in a real VS Code', function () {
  this.timeout(120_000);

  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('a hovered node\'s tooltip goes with a step, a zoom, and when the panel shows another trace', async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(SESSION));
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    const frame = frameOf(SESSION);
    await evalInWebview('1', { selector: frame, timeoutMs: 60_000 });
    const tip = () => evalInWebview<{ hidden: boolean; text: string }>(TIP, { selector: frame });

    // A step (the palette's Next Event, as the → key does).
    assert.notEqual(await evalInWebview<string>(HOVER, { selector: frame }), '', 'hovering a node shows its tooltip');
    await vscode.commands.executeCommand('otrace.graph.nextEvent');
    await until('the tooltip to hide after a step', async () => (await tip()).hidden, 10_000);

    // A zoom (to the selected event).
    assert.notEqual(await evalInWebview<string>(HOVER, { selector: frame }), '', 'hovering a node shows its tooltip again');
    await vscode.commands.executeCommand('otrace.graph.zoomToSelection');
    await until('the tooltip to hide after a zoom', async () => (await tip()).hidden, 10_000);

    // Another trace in the same panel (it follows the active trace editor).
    assert.notEqual(await evalInWebview<string>(HOVER, { selector: frame }), '', 'hovering a node shows its tooltip once more');
    const demo = await vscode.workspace.openTextDocument(vscode.Uri.file(DEMO));
    await vscode.window.showTextDocument(demo, vscode.ViewColumn.One);
    const demoFrame = frameOf(DEMO);
    await evalInWebview('1', { selector: demoFrame, timeoutMs: 60_000 });
    const after = await evalInWebview<{ hidden: boolean; text: string }>(TIP, { selector: demoFrame });
    assert.ok(after.hidden, `the other trace's graph shows no tooltip of the first: ${JSON.stringify(after)}`);
  });
});
