/** The trace file as text in a real VS Code: its Outline lists lanes and their events. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;

describe('trace file in the editor', function () {
  this.timeout(60_000);
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('shows agents and their events in the Outline, each event at its line', async () => {
    const uri = vscode.Uri.file(path.join(ROOT, 'samples', 'demo.otrace.jsonl'));
    await vscode.window.showTextDocument(uri);
    await vscode.extensions.getExtension('otrace.otrace')!.activate();
    const symbols = (await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', uri)) ?? [];
    const lanes = symbols.filter((s) => s.detail === 'agent');
    assert.deepEqual(
      lanes.map((l) => [l.name, l.children.length]),
      [['orchestrator', 16], ['planner', 1], ['researcher', 12], ['web_searcher', 3], ['writer', 1], ['critic', 2]],
    );
    const stop = lanes[0].children.find((c) => c.detail.endsWith(' · e35'))!;
    assert.equal(stop.range.start.line, 35, 'e35 is on line 36 of the file');
    assert.equal(stop.name, 'stop: quality met', 'named by what happened, not by its id');
    assert.ok(stop.selectionRange.isEmpty && stop.selectionRange.start.isEqual(stop.range.start), 'going to it selects nothing: a key typed next must not replace the record');
    // breadcrumbs and sticky scroll name the symbol whose range holds a line: no agent's range holds another agent's event
    for (const lane of lanes) {
      const others = lanes.filter((l) => l !== lane).flatMap((l) => l.children.map((c) => c.range.start.line));
      const held = others.filter((line) => lane.range.start.line <= line && line <= lane.range.end.line);
      assert.deepEqual(held, [], `${lane.name} spans lines of other agents`);
    }
  });

  it('lists at most otrace.outline.maxEvents events (the first in the file); each agent says how many it has', async () => {
    // a copy: VS Code keeps the symbols it was given per document version (the demo's were asked above)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-outline-'));
    const uri = vscode.Uri.file(path.join(dir, 'demo.otrace.jsonl'));
    fs.copyFileSync(path.join(ROOT, 'samples', 'demo.otrace.jsonl'), uri.fsPath);
    const config = vscode.workspace.getConfiguration('otrace');
    await config.update('outline.maxEvents', 10, vscode.ConfigurationTarget.Global);
    try {
      await vscode.window.showTextDocument(uri); // after the setting: the breadcrumbs ask as it opens
      const symbols = (await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', uri)) ?? [];
      assert.deepEqual(symbols.map((l) => l.name), ['orchestrator', 'planner', 'researcher', 'web_searcher', 'writer', 'critic'], 'every agent keeps its symbol');
      const events = symbols.flatMap((l) => l.children).map((c) => c.range.start.line).sort((a, b) => a - b);
      assert.deepEqual(events, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'the first 10 events of the file');
      assert.deepEqual(symbols.map((l) => l.detail), ['agent · 16 events, 5 listed', 'agent', 'agent · 12 events, 2 listed', 'agent · 3 events, 2 listed', 'agent · 1 event, 0 listed', 'agent · 2 events, 0 listed']);
    } finally {
      await config.update('outline.maxEvents', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
