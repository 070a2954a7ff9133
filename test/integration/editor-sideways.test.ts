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
import { until, untilValue } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const FIXTURES = path.join(ROOT, 'test', 'fixtures');

/** Horizontal scroll of the one text editor on the page, in px (Monaco moves its lines left by it). */
const SCROLL_LEFT = `() => { const l = document.querySelector('.editor-instance .monaco-editor .lines-content'); return l ? -parseFloat(l.style.left || '0') : null; }`;

/**
 * True when line `line` (0-based) of the one text editor on the page is drawn with a label before
 * its record: its text (from its first `{`) starts more than 50 px right of the line's start.
 */
const labelDrawn = (line: number) => `() => {
  const editor = document.querySelector('.editor-instance .monaco-editor');
  const number = [...editor.querySelectorAll('.line-numbers')].find((n) => n.textContent.trim() === '${line + 1}');
  if (!number) return false;
  const top = number.getBoundingClientRect().top;
  const row = [...editor.querySelectorAll('.view-line')].find((v) => Math.abs(v.getBoundingClientRect().top - top) < 2);
  const text = row && [...row.querySelectorAll('span span')].find((s) => s.textContent.includes('{'));
  return !!text && text.getBoundingClientRect().left - row.getBoundingClientRect().left > 50;
}`;

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

      // The text scrolled sideways (by the user, or an earlier reveal): a step followed, then Show in
      // Trace File, bring each record's start and label back into view. (A record per line: a
      // Who&When run's end and the event before it share its last record, so a step moves no cursor.)
      if (!original.endsWith('.jsonl')) return;
      const sideways = async (when: string) => {
        // a long line near the cursor: the lines in view (and their labels) stay
        const here = editor.selection.active.line;
        const long = Array.from({ length: editor.document.lineCount }, (_, k) => k).filter((k) => editor.document.lineAt(k).text.length > 400).sort((a, b) => Math.abs(a - here) - Math.abs(b - here))[0];
        editor.revealRange(new vscode.Range(long, 400, long, 400), vscode.TextEditorRevealType.InCenter);
        await until(`${when}: the text scrolled sideways`, async () => ((await evalInPage<number | null>(SCROLL_LEFT)) ?? 0) > 100);
      };
      const atLeft = async (when: string, moved: () => boolean) => {
        await until(`${when}: the cursor moved`, moved);
        const at = editor.selection.active.line;
        await until(`${when}: the record in view`, () => editor.visibleRanges.some((r) => r.start.line <= at && at <= r.end.line));
        await untilValue(`${when}: the text back at its left edge (cursor at ${at + 1}:${editor.selection.active.character + 1}; px scrolled)`, () => evalInPage<number | null>(SCROLL_LEFT), (px) => px === 0, 5_000);
      };
      // a step back and forth first, so that the record stepped to has its label drawn (labels come for the lines in view)
      const end = editor.selection.active.line;
      await vscode.commands.executeCommand('otrace.graph.previousEvent');
      await until('a step back followed in the editor', () => editor.selection.active.line !== end);
      const record = editor.selection.active.line;
      await until(`the label of line ${record + 1} drawn before its record`, () => evalInPage<boolean>(labelDrawn(record)));
      await vscode.commands.executeCommand('otrace.graph.nextEvent');
      await until('a step forward followed in the editor', () => editor.selection.active.line === end);
      await sideways('before a step');
      await vscode.commands.executeCommand('otrace.graph.previousEvent');
      await atLeft('a step followed in the editor, its record labelled', () => editor.selection.active.line === record);
      await sideways('before Show in Trace File');
      const parked = editor.document.lineCount - 1;
      editor.selection = new vscode.Selection(parked, 0, parked, 0);
      // the details' button, clicked in the page (a key would go wherever the keyboard is)
      await evalInWebview(`() => { const b = [...document.querySelectorAll('#details vscode-button')].find((x) => x.textContent === 'Show in Trace File'); b.click(); return true; }`, { selector: frame });
      await atLeft('Show in Trace File', () => editor.selection.active.line !== parked);
    });
  }
});
