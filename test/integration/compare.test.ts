/**
 * Comparing two runs in a real VS Code (issue 28), the way files are compared: "otrace: Select Trace
 * for Compare" on one Codex rollout, "otrace: Compare Trace with Selected" on another opens the compare
 * panel with the first divergence selected (in the panel, and its record shown in the trace's text
 * without the keyboard leaving the panel); next difference (palette command, then the panel's
 * button) steps on, previous steps back; both texts are marked where the runs differ; neither
 * trace file changes. Writes test-output/compare.png (the README's picture). The traces are copies
 * in the workspace (test/fixtures/compare/tmp-*), removed afterwards.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompareState } from '../../src/host/compare/compare-panel';
import type { OtraceApi } from '../../src/host/extension';
import { clickInWebview, evalInPage, evalInWebview, pressKeys, screenshot, testLog } from './bridge';
import { until, untilValue } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const CODEX = path.join(ROOT, 'test', 'fixtures', 'codex');
/** Copies in the workspace of two Codex rollouts of one project, two tasks (keys are typed into the panel: never near a fixture's text). */
const COPIES = path.join(ROOT, 'test', 'fixtures', 'compare', 'tmp-runs');
const A = path.join(COPIES, 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
const B = path.join(COPIES, 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
const FRAME = 'body[data-state="ready"][data-differences]';

/** The panel's selection as its webview shows it. */
interface ShownSelection {
  diff: number;
  lanes: number;
  column: number;
  /** Texts of the boxes drawn selected. */
  text: string[];
  /** Their kinds (`only_in_b`, `changed`…). */
  kinds: string[];
  /** What the bar says. */
  position: string;
}

const READ_SELECTION = `() => {
  const s = globalThis.__otraceCompare?.selected();
  if (!s) return undefined;
  return { ...s, kinds: [...document.querySelectorAll('.ev.selected')].map((e) => e.dataset.kind), position: document.getElementById('position').textContent };
}`;

function shown(): Promise<ShownSelection> {
  return evalInWebview<ShownSelection>(READ_SELECTION, { selector: FRAME });
}

/** Waits until the webview shows difference `k` selected, and returns what it shows. */
function untilShown(k: number): Promise<ShownSelection> {
  return untilValue(`the compare panel to show difference ${k + 1}`, shown, (s) => s?.diff === k && s.text.length > 0);
}

/** True when a visible text editor of `file` has `line` (0-based) in view. */
function lineInView(file: string, line: number): boolean {
  return vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === file && e.visibleRanges.some((r) => r.start.line <= line && line <= r.end.line));
}

/** Waits until the records of the selected difference are in view in both runs' texts (those it has). */
async function untilRecordsInView(state: CompareState): Promise<void> {
  const sel = state.selected!;
  if (sel.lineA !== undefined) await until(`A's record (line ${sel.lineA + 1}) in view`, () => lineInView(A, sel.lineA!));
  if (sel.lineB !== undefined) await until(`B's record (line ${sel.lineB + 1}) in view`, () => lineInView(B, sel.lineB!));
}

/** Asserts the keyboard is in the compare panel: no text editor active, the active tab the panel. */
function assertFocusInPanel(what: string): void {
  assert.equal(vscode.window.activeTextEditor, undefined, `${what}: no text editor took the keyboard`);
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  assert.ok(tab?.input instanceof vscode.TabInputWebview && /otrace\.compare/.test(tab.input.viewType), `${what}: the compare panel is the active tab (${tab?.label})`);
}

describe('compare two runs in a real VS Code', function () {
  this.timeout(150_000);
  before(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.mkdirSync(COPIES, { recursive: true });
    for (const f of [A, B]) fs.copyFileSync(path.join(CODEX, path.basename(f)), f);
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(COPIES, { recursive: true, force: true });
  });

  it('Select Trace for Compare / Compare Trace with Selected opens the paired lanes with the first divergence selected; next and previous difference step; both texts marked; the files unchanged', async () => {
    const before = { a: fs.readFileSync(A), b: fs.readFileSync(B) };
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await vscode.commands.executeCommand('otrace.selectForCompare', vscode.Uri.file(A));
    const opened = await vscode.commands.executeCommand<CompareState>('otrace.compareWithSelected', vscode.Uri.file(B));
    assert.ok(opened, 'Compare Trace with Selected opened a comparison');
    assert.ok(opened.differences > 2, `the runs differ in more than two steps: ${opened.differences}`);
    assert.equal(opened.current, 0, 'the first divergence is selected on open');
    // the engine's first divergence (otrace diff A B says the same): a step of each run (changed), or of one run only
    assert.ok(opened.first && (opened.first.a !== null || opened.first.b !== null), `a first divergence: ${JSON.stringify(opened.first)}`);
    // a step of both runs is changed (or moved); of one run, only in that run
    const kinds = opened.first.a === null ? ['only_in_b'] : opened.first.b === null ? ['only_in_a'] : ['changed', 'moved'];
    const words = kinds.map((k) => ({ only_in_b: 'only in B', only_in_a: 'only in A', changed: 'changed', moved: 'moved' })[k]).join('|');

    const first = await untilShown(0);
    assert.ok(first.kinds.length > 0 && first.kinds.every((k) => kinds.includes(k)), `the panel draws the first divergence as ${kinds.join(' or ')}: ${first.kinds.join(', ')}`);
    assert.match(first.position, new RegExp(`difference 1 of \\d+: (${words}) \\(the first divergence\\)`));
    const lanes = await evalInWebview<{ a: number; b: number; joins: number; marker: string }>(
      `() => ({ a: document.querySelectorAll('.ev.a').length, b: document.querySelectorAll('.ev.b').length, joins: document.querySelectorAll('.join').length, marker: document.querySelector('.marker')?.textContent ?? '' })`,
      { selector: FRAME },
    );
    assert.ok(lanes.a > lanes.b && lanes.b > 0 && lanes.joins > 0, `A's lane above B's, the same steps joined: ${JSON.stringify(lanes)}`);
    assert.equal(lanes.marker, 'first divergence');
    // the two rollouts were asked different things (their redacted prompts differ): said before their steps
    assert.match(await evalInWebview<string>(`() => [...document.querySelectorAll('#sides .value.warn')].map((e) => e.textContent).join(' | ')`, { selector: FRAME }), /^the runs were asked different things: /);
    // times as the graph says them (it read "3,904.085 → 96.537 s (−3,807.548)")
    assert.equal(await evalInWebview<string>(`() => document.querySelector('#agents table tr:nth-child(2) td:nth-child(6)')?.textContent ?? ''`, { selector: FRAME }), '1 h 5 min → 1 min 37 s (−1 h 3 min)');
    await untilRecordsInView(opened);
    assertFocusInPanel('on open');

    // both texts marked where they differ, with hovers that say how
    assert.ok(opened.marked.a > 0 && opened.marked.b > 0, `both texts are marked: ${JSON.stringify(opened.marked)}`);
    assert.match(opened.marked.hoverA ?? '', /only in this run \(A\)|changed: /);
    assert.match(opened.marked.hoverB ?? '', /only in this run \(B\)|changed: /);

    // the picture: the panel's group widened (the texts beside it stay in view), the selection in the middle of the lanes
    const narrow = await evalInWebview<number>('window.innerWidth', { selector: FRAME });
    await vscode.commands.executeCommand('workbench.action.toggleEditorWidths');
    try {
      await untilValue('the compare panel to widen', () => evalInWebview<number>('window.innerWidth', { selector: FRAME }), (w) => w > narrow + 100);
      await vscode.commands.executeCommand('otrace.nextDifference');
      await vscode.commands.executeCommand('otrace.previousDifference');
      await untilShown(0);
      const written = await screenshot(path.join('test-output', 'compare.png'));
      testLog(`      ${written}`);
    } finally {
      await vscode.commands.executeCommand('workbench.action.toggleEditorWidths');
    }

    // next difference from the palette, then with the panel's button; previous steps back
    const second = await vscode.commands.executeCommand<CompareState>('otrace.nextDifference');
    assert.equal(second.current, 1);
    await untilShown(1);
    await untilRecordsInView(second);
    assertFocusInPanel('after Next Difference');

    await clickInWebview('#next-diff', { frame: FRAME });
    const third = await untilShown(2);
    assert.match(third.position, /^difference 3 of /);
    const back = await vscode.commands.executeCommand<CompareState>('otrace.previousDifference');
    assert.equal(back.current, 1);
    await untilShown(1);

    // a click on a step both runs do selects it: both events shown below
    await clickInWebview('.ev.a.same', { frame: FRAME });
    const both = await untilValue(
      'both events of the same step in the details',
      () => evalInWebview<{ diff: string; runs: string[] }>(`() => ({ diff: document.body.dataset.diff, runs: [...document.querySelectorAll('#details .run')].map((r) => r.textContent) })`, { selector: FRAME }),
      (v) => v.diff === '-1' && v.runs.length === 2 && v.runs.every((t) => /the same step/.test(t) && !/nothing: run/.test(t)),
    );
    assert.match(both.runs[0], /^A: the same step/);
    assert.match(both.runs[1], /^B: the same step/);
    assertFocusInPanel('after a click on a step');

    // the keyboard's N steps too (the panel has the focus)
    await clickInWebview('#lanes', { frame: FRAME, position: { x: 2, y: 2 } });
    await pressKeys(['n']);
    await untilShown(2);
    await pressKeys(['Shift+N']);
    await untilShown(1);
    testLog(`      compare: ${opened.differences} differences; A marked ${opened.marked.a}, B marked ${opened.marked.b}`);

    for (const doc of vscode.workspace.textDocuments) assert.equal(doc.isDirty, false, `${doc.uri.fsPath} is not edited`);
    assert.ok(fs.readFileSync(A).equals(before.a), 'trace A unchanged on disk');
    assert.ok(fs.readFileSync(B).equals(before.b), 'trace B unchanged on disk');
  });

  it('Compare Trace with… (palette, quick pick): a Claude Code session against a copy without one sub-agent file; the first divergence is in that sub-agent\'s own file, shown and marked there', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const src = path.join(ROOT, 'test', 'fixtures', 'claude-code-session');
    const id = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
    // both runs are copies in the workspace (the fixtures are never opened for typing near them)
    const dir = fs.mkdtempSync(path.join(ROOT, 'test', 'fixtures', 'compare', 'tmp-cc-'));
    try {
      const copy = (run: string, leaveOut?: string) => {
        fs.mkdirSync(path.join(dir, run, id, 'subagents'), { recursive: true });
        fs.copyFileSync(path.join(src, `${id}.jsonl`), path.join(dir, run, `${id}.jsonl`));
        for (const f of fs.readdirSync(path.join(src, id, 'subagents'))) if (f !== leaveOut) fs.copyFileSync(path.join(src, id, 'subagents', f), path.join(dir, run, id, 'subagents', f));
        return path.join(dir, run, `${id}.jsonl`);
      };
      const a = copy('a');
      const b = copy('b', 'agent-a93ccab.jsonl');
      const removed = path.join(dir, 'a', id, 'subagents', 'agent-a93ccab.jsonl');
      const before = { a: fs.readFileSync(a), sub: fs.readFileSync(removed) };

      // B open in an editor: the quick pick lists it among the open traces; A is the active trace
      await vscode.window.showTextDocument(vscode.Uri.file(b), { viewColumn: vscode.ViewColumn.One, preview: false });
      const { sessions } = await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate();
      await until('B read as a trace', () => sessions.forUri(vscode.Uri.file(b)));
      await vscode.window.showTextDocument(vscode.Uri.file(a), { viewColumn: vscode.ViewColumn.One, preview: false });
      await until('A read as a trace', () => sessions.forUri(vscode.Uri.file(a)));
      const opening = vscode.commands.executeCommand<CompareState>('otrace.compareTraceWith');
      // type only once the quick pick has the keyboard (typed earlier, the keys would go to A's text)
      await until('the quick pick to take the keyboard', () => evalInPage<boolean>(`!!document.activeElement?.closest('.quick-input-widget')`));
      await pressKeys([], path.basename(dir));
      const wanted = `${path.basename(dir)}/b/${id}.jsonl`;
      const rows = await untilValue(
        'the quick pick to list the copy',
        () => evalInPage<string[]>(`[...document.querySelectorAll('.quick-input-widget .monaco-list-row')].map((r) => r.textContent ?? '')`),
        (list) => list.some((t) => t.includes(wanted)),
      );
      // A's own sub-agent transcripts are part of run A, not runs to compare it with (picked, B read the whole session: "the runs do the same steps")
      assert.deepEqual(rows.filter((t) => t.includes(`${path.basename(dir)}/a/${id}/subagents/`)), [], `A's sub-agent files are not offered: ${rows.join(' | ')}`);
      for (let k = 0; k < rows.findIndex((t) => t.includes(wanted)); k++) await pressKeys(['ArrowDown']);
      await pressKeys(['Enter']);
      const opened = await opening;
      assert.ok(opened, 'the quick pick opened a comparison');
      assert.equal(opened.b, vscode.Uri.file(b).toString(), 'B is the copy picked');
      assert.equal(opened.first?.b, null, 'the first divergence is a step only in A');
      const first = await untilShown(0);
      assert.deepEqual(first.kinds, ['only_in_a']);
      // A's record is in the sub-agent's own file: that file is shown at it, and marked
      await until('the sub-agent file at the first divergence', () => lineInView(removed, opened.selected!.lineA!));
      assertFocusInPanel('on open');
      assert.ok(opened.marked.b === 0, 'nothing is only in B');

      await vscode.commands.executeCommand('otrace.nextDifference');
      await untilShown(1);
      assert.ok(fs.readFileSync(a).equals(before.a) && fs.readFileSync(removed).equals(before.sub), 'the session and its sub-agent file unchanged on disk');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
