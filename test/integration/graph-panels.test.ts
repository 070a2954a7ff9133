/**
 * One graph panel that follows the active trace (issue 9), like Markdown's preview: it retargets
 * when another trace becomes the active editor, not when a file of the shown trace does (a Claude
 * Code sub-agent file); a locked panel stays on its trace, and "Open to the Side" then opens a
 * second one.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import { clickInWebview, evalInWebview } from './bridge';
import { until, untilValue } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const SESSION = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const SUBAGENT = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents', 'agent-a93ccab.jsonl');
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
const SURVEY = path.join(ROOT, 'samples', 'survey-example.json');
const ready = (file: string) => `body[data-state="ready"][data-title="${path.basename(file)}"]`;

function graphTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview);
}

async function showInFirstColumn(file: string): Promise<void> {
  await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One, preview: false });
}

/**
 * Waits until `file` is the active editor and otrace has decided whether it is a trace. The graph
 * panels' handler of the editor change ran when the editor became active; it awaits this same
 * (cached) check before it retargets, and a retarget renames the panel at once: after this, a
 * panel that would retarget has its new title.
 */
async function activeAndChecked(file: string): Promise<void> {
  const editor = await until(`${path.basename(file)} to be the active editor`, () => {
    const e = vscode.window.activeTextEditor;
    return e?.document.uri.fsPath === file ? e : undefined;
  });
  const { sessions } = await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate();
  await sessions.isTrace(editor.document);
}

describe('one graph panel follows the active trace', function () {
  this.timeout(150_000);
  before(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('retargets to the active trace, not to the files of the shown trace; a locked panel stays', async () => {
    await showInFirstColumn(SESSION);
    const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('otrace.openGraphToSide');
    await evalInWebview('1', { selector: ready(SESSION), timeoutMs: 60_000 });

    await showInFirstColumn(SUBAGENT);
    await activeAndChecked(SUBAGENT);
    assert.equal(panel.title, `Graph: ${path.basename(SESSION)}`, 'a sub-agent file of the shown session does not retarget the panel');
    await evalInWebview('1', { selector: ready(SESSION), timeoutMs: 2_000 });
    assert.equal(graphTabs().length, 1);

    await showInFirstColumn(DEMO);
    await evalInWebview('1', { selector: ready(DEMO), timeoutMs: 30_000 });
    assert.equal(graphTabs().length, 1, 'the same panel shows the newly active trace');
    assert.match(graphTabs()[0].label, /demo\.otrace\.jsonl/);

    await clickInWebview('#lock', { frame: ready(DEMO) });
    const locked = await untilValue('the tab to say locked', () => graphTabs()[0]?.label ?? '', (label) => /locked/.test(label));
    assert.match(locked, /locked/);
    await showInFirstColumn(SURVEY);
    await activeAndChecked(SURVEY);
    assert.equal(panel.title, `Graph: ${path.basename(DEMO)} (locked)`, 'a locked panel stays on its trace');
    await evalInWebview('1', { selector: ready(DEMO), timeoutMs: 2_000 });

    await vscode.commands.executeCommand('otrace.openGraphToSide');
    await evalInWebview('1', { selector: ready(SURVEY), timeoutMs: 30_000 });
    assert.equal(graphTabs().length, 2, 'with the first panel locked, Open to the Side opens a second one');
  });

  it('lets go of a trace read from disk for its graph once the graph closes: its Problems leave with it', async () => {
    const { sessions } = await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // a file with a line that does not parse, opened only in the graph (the explorer's Open Trace Graph): no document of it
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-let-go-'));
    const file = path.join(dir, 'broken.otrace.jsonl');
    fs.writeFileSync(file, `${fs.readFileSync(DEMO, 'utf8').trimEnd()}\n{not json}\n`);
    const uri = vscode.Uri.file(file);
    try {
      await vscode.commands.executeCommand('otrace.openGraphToSide', uri);
      await evalInWebview('1', { selector: ready(file), timeoutMs: 60_000 });
      assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString()), 'shown from disk, not as a document');
      await until('the bad line in Problems', () => vscode.languages.getDiagnostics(uri).length > 0);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await until('the Problems of the closed graph\'s trace gone', () => vscode.languages.getDiagnostics(uri).length === 0);
      assert.equal(sessions.peek(uri), undefined, 'its session forgotten');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets go of a file no format reads once its graph closes, though its editor stays open: its error leaves Problems', async () => {
    const { sessions } = await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-not-a-trace-'));
    const file = path.join(dir, 'package.json');
    fs.writeFileSync(file, `${JSON.stringify({ name: 'shop', version: '1.0.0', scripts: { test: 'node --test' } }, null, 2)}\n`);
    const uri = vscode.Uri.file(file);
    try {
      // a user opens it, then asks for its graph
      await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One });
      await vscode.commands.executeCommand('otrace.openGraphToSide', uri);
      await until('its error in Problems while the graph shows it', () => vscode.languages.getDiagnostics(uri).some((d) => /not a recognized trace format/.test(d.message)) || undefined, 60_000);
      const graphTab = await until('the graph tab', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => !(t.input instanceof vscode.TabInputText)));
      await vscode.window.tabGroups.close(graphTab);
      await until('the error gone with the graph', () => vscode.languages.getDiagnostics(uri).length === 0 || undefined, 30_000);
      assert.equal(sessions.peek(uri), undefined, 'its session forgotten');
      assert.ok(vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString()), 'its editor still open');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

