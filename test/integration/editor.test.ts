/** The trace file as text in a real VS Code: its Outline lists lanes and their events. */
import * as assert from 'node:assert/strict';
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
    assert.equal(stop.name, 'stop: quality_met', 'named by what happened, not by its id');
    assert.ok(stop.selectionRange.isEmpty && stop.selectionRange.start.isEqual(stop.range.start), 'going to it selects nothing: a key typed next must not replace the record');
  });
});
