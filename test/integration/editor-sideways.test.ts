/**
 * The trace text beside the graph keeps its record labels in view: following the graph in a narrow
 * editor must not scroll the text sideways. The graph puts the cursor at the start of the event's
 * record, after the label drawn before it; revealing that cursor in an editor narrower than the label
 * scrolled the text right, so the labels and the start of every line were cut off (a stranger reading
 * the README's Who&When picture: "the source pane on the left is scrolled sideways and unreadable").
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clickInWebview, evalInPage, evalInWebview } from './bridge';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const FIXTURES = path.join(ROOT, 'test', 'fixtures');

/** Horizontal scroll of the one text editor on the page, in px (Monaco moves its lines left by it). */
const SCROLL_LEFT = `() => { const l = document.querySelector('.editor-instance .monaco-editor .lines-content'); return l ? -parseFloat(l.style.left || '0') : null; }`;

describe('the trace text beside the graph', function () {
  this.timeout(120_000);
  // Copies under new names: no view or selection saved by an earlier test comes back with them.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-sideways-'));
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.evenEditorWidths');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, original] of [
    ['a Who&When log (records indented inside one JSON document)', path.join(FIXTURES, 'who-and-when', 'Algorithm-Generated', '102.json')],
    ['a Claude Code session (one record per line)', path.join(FIXTURES, 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl')],
  ] as const) {
    it(`does not scroll sideways when the graph shows a record in a narrow editor: ${name}`, async () => {
      const file = path.join(dir, path.basename(original));
      fs.copyFileSync(original, file);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One });
      await vscode.commands.executeCommand('otrace.openGraphToSide');
      const frame = `body[data-state="ready"][data-title="${path.basename(file)}"]`;
      await evalInWebview('1', { selector: frame, timeoutMs: 60_000 });
      await vscode.commands.executeCommand('workbench.action.focusSecondEditorGroup');
      await vscode.commands.executeCommand('workbench.action.toggleEditorWidths'); // the graph wide, the text narrow
      await until('the run summary above the graph', () => evalInWebview<boolean>(`() => !!document.querySelector('#run .run-link')`, { selector: frame }));
      assert.equal(editor.selection.active.line, 0, 'a new copy opens at its first line');
      await clickInWebview('#run .run-link', { frame }); // selects the run's end: the editor follows
      await until('the cursor on the end\'s record', () => editor.selection.active.line !== 0);
      const line = editor.selection.active.line;
      await until('the record in view', () => editor.visibleRanges.some((r) => r.start.line <= line && line <= r.end.line));
      const left = await evalInPage<number | null>(SCROLL_LEFT);
      assert.equal(left, 0, `the text scrolled ${left} px sideways: its labels and line starts are cut off (cursor at ${line + 1}:${editor.selection.active.character + 1})`);
    });
  }
});
