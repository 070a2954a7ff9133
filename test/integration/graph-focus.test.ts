/**
 * Focus and layout of the graph panel (issue 26, item 6), in a real VS Code at 1440x900:
 * - after a mouse click on a button (Play), the graph owns the keyboard again: Enter shows the
 *   current event in the trace file instead of pressing the button again (it toggled playback),
 *   and typed keys never reach the trace file;
 * - a file opened after a click in the graph (vscode.open and showTextDocument, as File > Open and
 *   Quick Open do: into the active group) opens in another group, never over the graph; once the
 *   graph is closed, files open in the group left, not in a new split;
 * - selecting an event shows its details without squeezing the graph area (it shrank from ~530 to
 *   ~330 px under the details pane).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import { clickInWebview, evalInWebview, pressKeys, screenshot, testLog } from './bridge';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const SESSION = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const ROLLOUT = path.join(ROOT, 'test', 'fixtures', 'codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
const NOT_A_TRACE = path.join(ROOT, 'test', 'fixtures', 'not-traces', 'SOURCE.md');
const frameOf = (file: string) => `body[data-state="ready"][data-title="${path.basename(file)}"]`;

/** The graph panel's tab and its group (undefined when no graph panel is open). */
function graphTab(): { tab: vscode.Tab; group: vscode.TabGroup } | undefined {
  for (const group of vscode.window.tabGroups.all) for (const tab of group.tabs) if (tab.input instanceof vscode.TabInputWebview && /otrace/.test(tab.input.viewType)) return { tab, group };
  return undefined;
}

/** The groups whose tabs show `file` in a text editor. */
function groupsShowing(file: string): vscode.TabGroup[] {
  return vscode.window.tabGroups.all.filter((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file));
}

/** Opens `file` in column one and the graph beside it; resolves when the graph is drawn. */
async function openWithGraph(file: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
  await vscode.commands.executeCommand('otrace.openGraphToSide');
  await evalInWebview('1', { selector: frameOf(file), timeoutMs: 60_000 });
  return doc;
}

describe('graph focus and layout in a real VS Code', function () {
  this.timeout(150_000);

  afterEach(async () => {
    // Never save anything: revert whatever is dirty, then close.
    for (const d of vscode.workspace.textDocuments) if (d.isDirty) await vscode.window.showTextDocument(d).then(() => vscode.commands.executeCommand('workbench.action.files.revert'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('after a mouse click on Play, Enter shows the event in the trace file (playback not toggled) and typed keys never reach the file', async () => {
    const api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    const bytes = fs.readFileSync(SESSION);
    const doc = await openWithGraph(SESSION);
    const frame = frameOf(SESSION);
    const inFrame = <T>(js: string) => evalInWebview<T>(js, { selector: frame });
    const playLabel = () => inFrame<string>(`document.getElementById('play').textContent`);
    const focused = () => inFrame<string>(`(() => { const a = document.activeElement; return a ? (a.id || a.tagName) : 'none'; })()`);
    const editor = () => vscode.window.visibleTextEditors.find((e) => e.document === doc)!;
    const last = doc.lineCount - 1;
    const park = () => (editor().selection = new vscode.Selection(last, 0, last, 0));
    /** Waits for Enter's Show in Trace File to move the trace editor's cursor off the parked line; says where the keyboard was if it does not. */
    const revealed = async (when: string) => {
      try {
        return await until(`${when}: Enter to show the event in the trace file`, () => (editor().selection.active.line !== last ? editor().selection.active.line : undefined), 5_000);
      } catch (e) {
        throw new Error(`${(e as Error).message} (the keyboard was on '${await focused()}', the play button says '${await playLabel()}')`);
      }
    };

    // Follow in editor off (it moves the editor's cursor at each step), playback at one event a second.
    await inFrame(`(() => { const f = document.getElementById('follow'); if (f.checked) f.click(); const s = document.getElementById('speed'); s.value = '1'; s.dispatchEvent(new Event('change')); return f.checked; })()`);
    await vscode.commands.executeCommand('otrace.graph.firstEvent');
    await until('the first event to be current', () => inFrame<boolean>(`globalThis.__otrace.current() === globalThis.__otrace.timeline()[0]`));
    park();

    // Playing: Enter shows the event stepped to, and playback goes on.
    await clickInWebview('#play', { frame });
    await until('playback to start', async () => (await playLabel()) === 'Pause');
    await until('the click on Play to give the keyboard back to the graph', async () => (await focused()) === 'canvas');
    await pressKeys(['Enter']);
    await revealed('while playing');
    assert.equal(await playLabel(), 'Pause', 'Enter did not toggle playback');
    assert.equal(await focused(), 'canvas', 'the graph has the keyboard after the click on Play');

    // Paused by a click on Pause, on the first event: Enter shows its record.
    await clickInWebview('#play', { frame });
    await until('playback to stop', async () => (await playLabel()) === 'Play');
    await vscode.commands.executeCommand('otrace.graph.firstEvent');
    const current = await until('the first event to be current again', async () => {
      const o = await inFrame<{ current: number; first: number }>(`({ current: globalThis.__otrace.current(), first: globalThis.__otrace.timeline()[0] })`);
      return o.current === o.first ? o.current : undefined;
    });
    const summary = api.sessions.peek(doc.uri)!;
    const place = (await api.sessions.engine.eventPlace(summary.key, summary.stamp, current))!;
    assert.equal(place.file, '', 'the first event is a record of the session file itself');
    park();
    await pressKeys(['Enter']);
    assert.equal(await revealed('after Pause'), place.range.start.line, 'Enter moved the trace editor to the current event\'s record');
    assert.equal(await playLabel(), 'Play', 'Enter did not start playback again');
    assert.notEqual(vscode.window.activeTextEditor?.document, doc, 'the trace editor did not take the keyboard');

    // Typed letters (no graph keys) then →: once → has stepped the graph, the letters were handled before it, and never by the trace file.
    await pressKeys(['Backspace', 'Delete'], 'qx');
    await pressKeys(['ArrowRight']);
    await until('→ to step the graph after the typed letters', () => inFrame<boolean>(`globalThis.__otrace.current() !== ${current}`));
    assert.ok(fs.readFileSync(SESSION).equals(bytes), 'the trace file on disk is unchanged');
    assert.equal(doc.isDirty, false, 'the trace document is not dirty');
  });

  it('a file opened after a click in the graph opens in another group, and the graph stays in view', async () => {
    const api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    // The graph's group locks itself (package.json's configurationDefaults); VS Code's own defaults
    // stay (an extension's object default replaces the built-in one: package.json repeats them).
    const locks = vscode.workspace.getConfiguration('workbench.editor').inspect<Record<string, boolean>>('autoLockGroups')?.defaultValue ?? {};
    assert.equal(locks['mainThreadWebview-otrace.traceGraphSide'], true, `the graph panel's group locks itself: ${JSON.stringify(locks)}`);
    assert.equal(locks.terminalEditor, true, `VS Code's own auto-locked editors are kept: ${JSON.stringify(locks)}`);
    await openWithGraph(SESSION);
    const frame = frameOf(SESSION);
    // A click on the graph's background: the graph's group becomes the active one, as for a user.
    await clickInWebview('#graph', { frame, position: { x: 4, y: 4 } });
    await until('the graph\'s group to be the active group', () => graphTab()?.group.isActive);
    const { group } = graphTab()!;

    // File > Open and Quick Open open a file in the active group: vscode.open does the same.
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(NOT_A_TRACE));
    await until('the file to open', () => groupsShowing(NOT_A_TRACE).length > 0);
    const shown = graphTab();
    assert.ok(shown, 'the graph panel is still open');
    assert.ok(
      !groupsShowing(NOT_A_TRACE).some((g) => g.viewColumn === group.viewColumn),
      `the file opened in another group than the graph's (column ${group.viewColumn}; it opened in ${groupsShowing(NOT_A_TRACE).map((g) => g.viewColumn).join(', ')})`,
    );
    assert.ok(shown.tab.isActive, 'the graph is still the tab shown in its group');

    // The same after another click in the graph, for showTextDocument into the active group.
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await clickInWebview('#graph', { frame, position: { x: 4, y: 4 } });
    await until('the graph\'s group to be active again', () => graphTab()?.group.isActive);
    const other = await vscode.workspace.openTextDocument(vscode.Uri.file(NOT_A_TRACE));
    const editor = await vscode.window.showTextDocument(other, { viewColumn: vscode.ViewColumn.Active });
    assert.notEqual(editor.viewColumn, graphTab()!.group.viewColumn, 'showTextDocument into the active group opened beside the graph');
    assert.ok(graphTab()!.tab.isActive, 'the graph is still shown');

    // Close All Editors leaves one group (it may be the graph's, locked): a file then opens in it, not in a new split.
    const unlocks = api.groupsUnlocked();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await until('one empty editor group', () => vscode.window.tabGroups.all.length === 1 && vscode.window.tabGroups.all[0].tabs.length === 0);
    await until('the group left by the graph to be unlocked', () => api.groupsUnlocked() > unlocks, 5_000);
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(NOT_A_TRACE));
    await until('the file to open again', () => groupsShowing(NOT_A_TRACE).length > 0);
    assert.equal(vscode.window.tabGroups.all.length, 1, 'after the graph closed, a file opens in the one group left (no new split beside an empty locked group)');
  });

  it('selecting an event shows its details without squeezing the graph area (1440x900)', async () => {
    await openWithGraph(ROLLOUT);
    const frame = frameOf(ROLLOUT);
    const inFrame = <T>(js: string) => evalInWebview<T>(js, { selector: frame });
    const BOXES = `(() => { const box = (id) => { const r = document.getElementById(id).getBoundingClientRect(); return { top: Math.round(r.top), left: Math.round(r.left), width: Math.round(r.width), height: Math.round(r.height) }; }; return { canvas: box('canvas'), lanes: box('lanes'), stage: box('stage'), details: box('details'), page: { width: innerWidth, height: innerHeight } }; })()`;
    type Box = { top: number; left: number; width: number; height: number };
    const before = await inFrame<Record<'canvas' | 'lanes' | 'stage' | 'details' | 'page', Box>>(BOXES);

    await vscode.commands.executeCommand('otrace.graph.lastEvent');
    await until('the details of the selected event', () => inFrame<boolean>(`!!document.querySelector('#details h2') && globalThis.__otrace.details()?.index === globalThis.__otrace.current()`));
    // The page has laid out the details (and the graph has been told its size) by the next frame.
    const after = await inFrame<Record<'canvas' | 'lanes' | 'stage' | 'details' | 'page', Box>>(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(${BOXES}))))`);
    testLog(`      graph area (lanes) ${before.lanes.height} px -> ${after.lanes.height} px with details ${after.details.width}x${after.details.height} px, panel ${after.page.width}x${after.page.height}`);
    await screenshot('test-output/details-open-1440x900.png');
    const change = Math.abs(after.lanes.height - before.lanes.height) / before.lanes.height;
    assert.ok(change < 0.1, `the lanes' area keeps its height when details show: ${before.lanes.height} px -> ${after.lanes.height} px (${Math.round(change * 100)} %)`);
    assert.ok(after.details.height > 100 && after.details.width > 200, `the details are shown: ${JSON.stringify(after.details)}`);
    // The details have their own scroll: the page itself does not scroll.
    assert.equal(await inFrame<boolean>(`document.scrollingElement.scrollHeight <= innerHeight + 1`), true, 'the page does not grow a scroll bar');
  });

  it('the run summary\'s Ended link brings the run\'s end into view from a view zoomed into the start', async () => {
    await openWithGraph(SESSION);
    const frame = frameOf(SESSION);
    const inFrame = <T>(js: string) => evalInWebview<T>(js, { selector: frame });
    const end = await inFrame<number>('globalThis.__otrace.graph.run.ended.index');
    await vscode.commands.executeCommand('otrace.graph.firstEvent');
    await vscode.commands.executeCommand('otrace.graph.zoomToSelection');
    // the end's place on screen: its drawn node's box against the graph area (x only: the lane's row may be scrolled)
    const onScreen = `(() => { const o = globalThis.__otrace; const n = o.view.nodeOfIndex(${end}); if (!n) return null; const b = n.renderedBoundingBox({ includeLabels: false }); return { x1: Math.round(b.x1), x2: Math.round(b.x2), width: o.cy.width() }; })()`;
    const away = await until<string | { x1: number }>('a view of the first events, the end out of it', async () => {
      const p = await inFrame<{ x1: number; x2: number; width: number } | null>(onScreen);
      if (p === null) return 'not in the loaded window';
      return p.x1 > p.width || p.x2 < 0 ? p : undefined;
    });
    await clickInWebview('#run .run-link', { frame });
    await until('the end in the details pane', () => inFrame<boolean>(`globalThis.__otrace.details()?.index === ${end}`));
    const shown = await until('the end drawn inside the graph area', async () => {
      const p = await inFrame<{ x1: number; x2: number; width: number } | null>(onScreen);
      return p && p.x1 >= 0 && p.x2 <= p.width ? p : undefined;
    }, 10_000).catch(async (e: Error) => {
      throw new Error(`${e.message}: the end ${end} was at ${JSON.stringify(away)} before the click, at ${JSON.stringify(await inFrame(onScreen))} after`);
    });
    testLog(`      Ended link: the end (${end}) ${typeof away === 'string' ? away : `at x ${away.x1}`} before, at x ${shown.x1} of ${shown.width} px after`);
  });
});
