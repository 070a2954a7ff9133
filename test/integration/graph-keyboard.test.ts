/**
 * The graph owns its keyboard (issue 9): after a real mouse click on a node of the Claude Code
 * session's graph, real key presses (through the browser's keyboard) act on the graph and never
 * reach the trace file: its bytes on disk and `isDirty` stay as they were. A positive control shows
 * that the same keys in a scratch editor do type. "Show in Trace File" shows the record beside the
 * graph with the cursor at its start and nothing selected, and the keyboard stays in the graph: the
 * keys pressed next step the graph and never replace the record (they once did, and auto save
 * wrote it to disk).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clickInWebview, evalInPage, evalInWebview, pressKeys } from './bridge';
import type { OtraceApi } from '../../src/host/extension';
import { commandsRun, postAsHost, SETTLED, until, untilGraphSettled, untilInWebview, untilValue } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const SESSION = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const FRAME = `body[data-state="ready"][data-title="${path.basename(SESSION)}"]`;

/** The graph's state: selected event index, zoom. */
interface GraphKeys {
  selected: number | null;
  zoom: number;
}
const READ = `() => { const o = globalThis.__otrace; return { selected: o.current(), zoom: o.view.scale }; }`;

/** Clicks (a real mouse click) the event node on screen farthest from any run bar (so the click selects an event); returns its index. */
async function clickVisibleNode(agent?: string): Promise<number> {
  // The window of the current view is loaded (after a zoom, the old window's run bars are stretched until it is).
  await untilValue('the window is loaded', () => evalInWebview<{ loading: boolean }>('() => globalThis.__otrace.windows()', { selector: FRAME }), (w) => !w.loading);
  // A node stands apart once the view has settled (a zoom still animating leaves every event in a
  // run bar): wait for that state rather than sampling once.
  const target = await untilValue(
    'an event node that stands apart enough to be clicked',
    () => evalInWebview<{ index: number; x: number; y: number; room: number }>(
    `() => {
      const { cy } = globalThis.__otrace;
      const w = cy.width(), h = cy.height();
      // Only nodes a click reaches: not under the details drawer (a narrow panel's details lie over the graph's bottom).
      const area = document.getElementById('graph'), box = area.getBoundingClientRect();
      const clickable = (p) => area.contains(document.elementFromPoint(box.left + p.x, box.top + p.y));
      const shown = cy.nodes('.event').filter((n) => { const p = n.renderedPosition(); return p.x > 20 && p.x < w - 20 && p.y > 20 && p.y < h - 20 && n.visible() && clickable(p) && (${JSON.stringify(agent ?? null)} === null || n.data('agent') === ${JSON.stringify(agent ?? null)}); });
      const pos = shown.map((n) => n.renderedPosition());
      // Away from the runs of events drawn as one bar (a click there zooms into the run); events drawn
      // on top of each other are fine: the click selects one of them.
      const others = cy.nodes('.run').filter((n) => n.visible()).map((n) => ({ id: n.id(), b: n.renderedBoundingBox({ includeLabels: false }) }));
      let best = 0, room = -1;
      pos.forEach((p, i) => {
        let d = Infinity;
        for (const o of others) {
          if (o.id === shown[i].id() || ![o.b.x1, o.b.x2, o.b.y1, o.b.y2].every(Number.isFinite)) continue;
          const dx = Math.max(o.b.x1 - p.x, 0, p.x - o.b.x2);
          const dy = Math.max(o.b.y1 - p.y, 0, p.y - o.b.y2);
          d = Math.min(d, Math.hypot(dx, dy));
        }
        if (d > room) { room = d; best = i; }
      });
      const n = shown[best];
      room = Math.min(room, 1e6); // Infinity (no run bar on screen) does not survive JSON
      if (!(room > 3)) return { index: -1, x: 0, y: 0, room };
      return { index: n.data('index'), x: pos[best].x, y: pos[best].y, room };
    }`,
    { selector: FRAME },
    ),
    (t) => t.room > 3,
  );
  await clickInWebview('#graph', { frame: FRAME, position: { x: target.x, y: target.y } });
  return target.index;
}

/** Reads the graph's {@link GraphKeys}. */
const readKeys = () => evalInWebview<GraphKeys>(READ, { selector: FRAME });

/** Event indices in time order (the timeline's). */
const timelineOf = () => evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: FRAME });

/** Waits until the graph's current event is `index` and the graph is settled (what a step, a click or a posted select starts is drawn). */
const untilCurrent = (index: number, what = `event ${index} to be the current event, drawn`) => untilGraphSettled(FRAME, (s) => s.current === index, what);

/** The graph's tab and its group (undefined when no graph panel is open). */
function graphTab(): { tab: vscode.Tab; group: vscode.TabGroup } | undefined {
  for (const group of vscode.window.tabGroups.all) for (const tab of group.tabs) if (tab.input instanceof vscode.TabInputWebview && /otrace/.test(tab.input.viewType)) return { tab, group };
  return undefined;
}

/** Where the keyboard is in the graph's page: the id (or tag) of its focused element. */
const focusInGraph = () => evalInWebview<string>(`() => { const a = document.activeElement; return a ? (a.id || a.tagName) : 'none'; }`, { selector: FRAME });

/**
 * Waits until the graph owns the keyboard after a click in it: its page has the browser's focus,
 * not in a text field (its keys go to the graph, not to an editor or the filter box), and VS Code
 * made the graph's group the active one.
 */
async function untilGraphHasKeyboard(what: string): Promise<void> {
  await untilInWebview(`${what}: the graph's page to have the keyboard`, `() => document.hasFocus() && !document.activeElement?.closest('vscode-textfield, input')`, FRAME);
  await until(`${what}: the graph's group to be the active group`, () => graphTab()?.group.isActive);
}

/**
 * Presses `keys` and types `text` in the graph, then a step key whose result no key before it gives:
 * Home (End when the first event is current). Keys reach the page in order, so once the graph is on
 * that event and settled, the page has handled every key before it; had the keyboard gone elsewhere
 * (the trace editor, the filter box), the step does not come and the wait says where the focus is.
 */
async function pressInGraph(keys: string[], text?: string): Promise<void> {
  await pressKeys(keys, text);
  const timeline = await timelineOf();
  const first = (await readKeys()).selected === timeline[0];
  const [key, target] = first ? ['End', timeline[timeline.length - 1]] : ['Home', timeline[0]];
  await pressKeys([key]);
  try {
    await untilCurrent(target, `${key} after ${JSON.stringify([...keys, text ?? ''])} to step the graph`);
  } catch (e) {
    const editors = vscode.window.visibleTextEditors.map((ed) => `${path.basename(ed.document.fileName)}${ed.document.isDirty ? ' (dirty)' : ''} at line ${ed.selection.active.line + 1}`).join(', ');
    throw new Error(`${(e as Error).message} (the page's focus: '${await focusInGraph()}', the filter box: '${await evalInWebview<string>(`() => document.getElementById('search').value`, { selector: FRAME })}'; editors: ${editors}; the active one: ${path.basename(vscode.window.activeTextEditor?.document.fileName ?? 'none')})`);
  }
}

/**
 * Puts the cursor of `editor` at the start of `line` and waits until VS Code reports it there (its
 * selection event, which the extension's editor sync handles, has come back to the extension host).
 */
async function parkCursor(editor: vscode.TextEditor, line: number): Promise<void> {
  const at = new vscode.Selection(line, 0, line, 0);
  if (editor.selection.isEqual(at)) return;
  let echoed = false;
  const sub = vscode.window.onDidChangeTextEditorSelection((e) => {
    if (e.textEditor.document === editor.document && e.selections[0].isEqual(at)) echoed = true;
  });
  try {
    editor.selection = at;
    await until(`the trace editor's cursor to be parked on line ${line}`, () => echoed);
  } finally {
    sub.dispose();
  }
}

describe('graph keyboard in a real VS Code', function () {
  this.timeout(150_000);
  // The session and its sub-agent files: no graph action may change any of them.
  const files = [SESSION, ...fs.readdirSync(path.join(path.dirname(SESSION), path.basename(SESSION, '.jsonl'), 'subagents')).map((f) => path.join(path.dirname(SESSION), path.basename(SESSION, '.jsonl'), 'subagents', f))];
  const before = new Map(files.map((f) => [f, fs.readFileSync(f)]));
  let doc: vscode.TextDocument;

  afterEach(async () => {
    // Never save anything: revert whatever is open, then close.
    for (const d of vscode.workspace.textDocuments) if (d.isDirty) await vscode.window.showTextDocument(d).then(() => vscode.commands.executeCommand('workbench.action.files.revert'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** The trace file is unchanged on disk and in its editor. */
  function assertUntouched(when: string): void {
    for (const [f, bytes] of before) assert.ok(fs.readFileSync(f).equals(bytes), `${when}: the bytes of ${path.basename(f)} on disk changed`);
    assert.equal(doc.isDirty, false, `${when}: the trace document became dirty`);
    const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString());
    assert.deepEqual(dirty, [], `${when}: no document is dirty`);
  }

  /**
   * Opens the session in column one and its graph beside it (the keyboard stays in the editor).
   * @param zoomed true: zoomed on the main lane's first event, where its nodes stand apart (dense at Fit)
   */
  async function openSessionGraph(zoomed = false): Promise<void> {
    doc = await vscode.workspace.openTextDocument(vscode.Uri.file(SESSION));
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    // two groups of even width, whatever an earlier test left expanded (a minimized text group, revealed into, takes the keyboard)
    await vscode.commands.executeCommand('workbench.action.evenEditorWidths');
    await evalInWebview('1', { selector: FRAME, timeoutMs: 60_000 });
    if (!zoomed) return;
    const [ran, timeline] = [await commandsRun(FRAME), await timelineOf()];
    await vscode.commands.executeCommand('otrace.graph.firstEvent');
    await vscode.commands.executeCommand('otrace.graph.zoomToSelection');
    await untilGraphSettled(FRAME, (s) => s.commands >= ran + 2 && s.current === timeline[0], 'First Event and Zoom to Selection, drawn');
  }

  it('keys pressed after a click on a node act on the graph and never reach the trace file', async () => {
    await openSessionGraph();
    assert.equal(vscode.window.activeTextEditor?.document, doc, 'the graph opened without taking the focus from the trace editor');

    // At Fit every event of this session stands in or beside a run bar (16 px buckets): frame its
    // first events (nothing selected), then wait for their window.
    await evalInWebview('() => { const o = globalThis.__otrace; o.view.frameIndices(o.timeline().slice(0, 12)); }', { selector: FRAME });
    await untilGraphSettled(FRAME, undefined, 'the first events framed, drawn');
    const aimed = await clickVisibleNode();
    // The node under the pointer is selected (the aimed one, or one drawn over it).
    const clicked = (await untilValue(`the click (aimed at event ${aimed}) to select a node`, readKeys, (s) => s.selected !== null)).selected!;
    const timeline = await timelineOf();

    await pressKeys(['ArrowRight']);
    const next = timeline[timeline.indexOf(clicked) + 1];
    await untilValue('→ to select the next event in time', readKeys, (s) => s.selected === next);
    await pressKeys(['ArrowLeft', 'ArrowLeft']);
    const prev = timeline[timeline.indexOf(clicked) - 1] ?? clicked;
    await untilValue('← ← to select the event before the clicked one', readKeys, (s) => s.selected === prev);

    const zoomed = await evalInWebview<number>('() => { const v = globalThis.__otrace.view; v.zoomAt(8, 100); return v.scale; }', { selector: FRAME });
    await pressKeys(['f']);
    await untilValue('F to fit the graph (zoom changed)', readKeys, (s) => Math.abs(s.zoom - zoomed) / zoomed > 0.01);
    await pressInGraph(['F', 'Enter', 'x', 'Backspace', 'Delete'], 'typed');
    assertUntouched('after keys on the graph');
  });

  it('Esc folds the details drawer of a narrow panel once nothing is left to back out of, and the graph keeps the keyboard', async () => {
    await openSessionGraph();
    await evalInWebview('() => { const o = globalThis.__otrace; o.view.frameIndices(o.timeline().slice(0, 12)); }', { selector: FRAME });
    await untilGraphSettled(FRAME, undefined, 'the first events framed, drawn');
    await clickVisibleNode();
    await untilValue('the click to select a node', readKeys, (s) => s.selected !== null);
    const DRAWER = `() => { const d = document.getElementById('details'); const fold = d.querySelector('.details-head .fold'); return { shown: !d.classList.contains('empty'), drawer: !!fold && getComputedStyle(fold).display !== 'none', folded: d.classList.contains('folded') }; }`;
    const open = await untilValue('the event\'s details shown', () => evalInWebview<{ shown: boolean; drawer: boolean; folded: boolean }>(DRAWER, { selector: FRAME }), (d) => d.shown);
    assert.deepEqual(open, { shown: true, drawer: true, folded: false }, 'the graph beside the trace text is a narrow panel: its details are an open drawer over the graph');
    // the framing first (Esc backs out of it), then the drawer
    await pressKeys(['Escape']);
    await pressKeys(['Escape']);
    await untilValue('Esc to fold the drawer', () => evalInWebview<{ folded: boolean }>(DRAWER, { selector: FRAME }), (d) => d.folded);
    await pressInGraph(['Escape']);
    assert.equal((await evalInWebview<{ folded: boolean }>(DRAWER, { selector: FRAME })).folded, true, 'a third Esc leaves it folded');
    assertUntouched('after Esc in the graph');
  });

  it('positive control: the same keys typed into a scratch editor do change it', async () => {
    const scratch = await vscode.workspace.openTextDocument({ content: '' });
    await vscode.window.showTextDocument(scratch, vscode.ViewColumn.One);
    await pressKeys(['f', 'Enter'], 'typed');
    await untilValue('the keys to reach a focused editor', () => scratch.getText(), (t) => t.includes('f') && t.includes('typed'));
    assert.equal(scratch.isDirty, true);
  });

  it('after Show in Trace File the keyboard stays in the graph, and the record is shown with nothing selected', async () => {
    await openSessionGraph(true);
    await clickVisibleNode('main');
    const shown = (await untilValue('the click to select a node', readKeys, (s) => s.selected !== null)).selected!;
    // the cursor parked on the last line: Show in Trace File moves it to the record
    const last = doc.lineCount - 1;
    vscode.window.visibleTextEditors.filter((e) => e.document === doc).forEach((e) => (e.selection = new vscode.Selection(last, 0, last, 0)));
    await clickInWebview('#details .actions vscode-button', { frame: FRAME });
    const editor = await until('Show in Trace File to move the trace editor to the record', () => vscode.window.visibleTextEditors.find((e) => e.document === doc && e.selection.active.line !== last));
    assert.ok(editor!.selection.isEmpty, `nothing selected (was the whole record: ${editor!.selection.start.line}:${editor!.selection.start.character}-${editor!.selection.end.line}:${editor!.selection.end.character})`);
    assert.equal(editor!.selection.active.character, 0, 'the cursor at the start of the record');
    // the click on the button gave the page's keyboard back to the canvas (after the click: a task later)
    await untilValue('the canvas to have the page\'s focus after the click on Show in Trace File', focusInGraph, (f) => f === 'canvas');
    // the keyboard is where the workbench's focus is: in the graph's frame, not in a text editor (VS Code's activeTextEditor
    // names the editor whose input changed last when the window itself has no focus, as a loaded headless browser's may not)
    const focused = await evalInPage<{ inEditor: boolean; tag: string }>(`() => { const a = document.activeElement; return { inEditor: !!a?.closest('.monaco-editor'), tag: a?.tagName ?? '' }; }`);
    assert.deepEqual(focused, { inEditor: false, tag: 'IFRAME' }, 'the trace editor did not take the keyboard');

    const timeline = await timelineOf();
    await pressKeys(['ArrowRight']);
    const next = timeline[timeline.indexOf(shown) + 1];
    await untilValue('→ to still step the graph', readKeys, (s) => s.selected === next);
    await pressInGraph(['n', 'f', 'F', 'Enter'], 'typed');
    assertUntouched('after Show in Trace File and keys pressed right after it');
    // leave the shared panel as a user first sees it (its view is kept per trace)
    await vscode.commands.executeCommand('otrace.graph.fit');
  });
  it('Ctrl+F goes to the filter box, Enter steps through the matches, Esc clears the filter and gives the keyboard back to the graph', async () => {
    await openSessionGraph(true);
    await clickVisibleNode('main');
    await untilGraphHasKeyboard('the click on a node');
    const clicked = (await untilGraphSettled(FRAME, (s) => s.current !== null, 'the click on a node, drawn')).current!;
    await pressKeys(['Control+f'], 'Bash');
    const filtered = await untilValue(
      'the typed letters to go into the filter box and the host to answer',
      () => evalInWebview<{ box: string; count: string }>(`() => ({ box: document.getElementById('search').value, count: document.getElementById('matches').textContent })`, { selector: FRAME }),
      (v) => /^\d[\d,]* match(es)?$/.test(v.count),
    );
    assert.equal(filtered.box, 'Bash');
    const timeline = await timelineOf();
    // the jump waits for the host's answer to the whole text when the box shows an older text's count
    const matchNow = async (after?: number) => {
      const d = await untilValue(
        `the details of a selected event (not ${after}) that matches "bash"`,
        () => evalInWebview<{ index: number; text: string } | null>(`() => { const o = globalThis.__otrace; const d = o.details(); return d && d.index === o.current() ? { index: d.index, text: JSON.stringify(d).toLowerCase() } : null; }`, { selector: FRAME }),
        (v) => v !== null && v.text.includes('bash') && v.index !== after,
      );
      assert.ok(d!.text.includes('bash'), `the selected event matches "bash": ${d!.text.slice(0, 200)}`);
      return d!.index;
    };
    // Enter goes to the match after the clicked event: another event than the clicked one
    await pressKeys(['Enter']);
    const first = await matchNow(clicked);
    assert.match(await evalInWebview<string>(`() => document.getElementById('matches').textContent`, { selector: FRAME }), /^\d[\d,]* of \d[\d,]* matches$/, 'the counter says which match is shown');
    await pressKeys(['Enter']);
    const second = await matchNow(first);
    assert.notEqual(second, first);
    assert.ok(timeline.indexOf(second) > timeline.indexOf(first) || timeline.indexOf(second) < timeline.indexOf(first), 'Enter moved to another match');
    await pressKeys(['Escape', 'ArrowRight']);
    await untilValue('→ after Esc to step the graph again', readKeys, (s) => s.selected === timeline[timeline.indexOf(second) + 1]);
    // Esc cleared the filter: nothing dimmed (a filter left on kept the graph grey with no sign why)
    const box = () => evalInWebview<{ box: string; count: string; dimmed: number }>(`() => ({ box: document.getElementById('search').value, count: document.getElementById('matches').textContent, dimmed: globalThis.__otrace.cy.elements('.dimmed').length })`, { selector: FRAME });
    assert.deepEqual(await untilValue('the filter cleared', box, (v) => v.dimmed === 0), { box: '', count: '', dimmed: 0 });
    await pressInGraph(['n', 'Enter'], 'xyz');
    assert.equal((await box()).box, '', 'keys after Esc do not go into the filter box');
    assertUntouched('after the filter box');
    await pressKeys(['Control+f'], 'Bash');
    await untilValue('the filter on again', box, (v) => /^\d[\d,]* match(es)?$/.test(v.count));
    // another trace shown in the same graph panel (it follows the active trace editor): the text typed for this one is not left in the box
    const other = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(other)), vscode.ViewColumn.One);
    // (the same panel's frame, found by the trace it shows now)
    const shown = await evalInWebview<{ box: string; count: string }>(`() => ({ box: document.getElementById('search').value, count: document.getElementById('matches').textContent })`, { selector: 'body[data-state="ready"][data-title="demo.otrace.jsonl"]', timeoutMs: 60_000 });
    assert.deepEqual(shown, { box: '', count: '' }, 'the filter box is empty over the other trace');
  });
  it('Show in Trace File and Enter on a tool result show the result\'s record and keep it selected (it is drawn in its call\'s bar)', async () => {
    await openSessionGraph();
    // the first tool result whose call shares its id (Claude Code: tool_use id = tool_result id)
    const tl = await timelineOf();
    const target = { index: tl[3], call: tl[1] };
    await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${target.index} }`, FRAME);
    const shown = await untilInWebview<{ index: number; type: string }>(
      `the details of the selected event ${target.index}`,
      `() => { const o = globalThis.__otrace; const d = o.details(); return o.current() === ${target.index} && d && d.index === o.current() ? { index: d.index, type: d.type } : null; }`,
      FRAME,
    );
    assert.equal(shown.type, 'tool_result', 'the fourth event of the session is a tool result');
    for (const how of ['the button', 'Enter'] as const) {
      const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc)!;
      await parkCursor(editor, 0);
      await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${target.index} }`, FRAME);
      await untilInWebview(`${how}: the result ${target.index} selected, its details shown, drawn`, `() => { const o = globalThis.__otrace; return o.current() === ${target.index} && o.details()?.index === ${target.index} && ${SETTLED}; }`, FRAME);
      if (how === 'the button') await clickInWebview('#details .actions vscode-button', { frame: FRAME });
      else {
        await evalInWebview(`() => { document.getElementById('canvas').focus(); return 1; }`, { selector: FRAME });
        await pressKeys(['Enter']);
      }
      await until(`${how}: Show in Trace File to move the trace editor's cursor off line 0`, () => editor.selection.active.line !== 0);
      const line = editor.document.lineAt(editor.selection.active.line).text;
      assert.match(line, /"tool_result"/, `${how}: the cursor is on the result's record: ${line.slice(0, 160)}`);
      assert.equal((await readKeys()).selected, target.index, `${how}: the result stays selected`);
    }
    assertUntouched('after Show in Trace File on a tool result');
  });
  it('follow in editor shades only the record of the event shown: stepping to an event of a file no editor shows opens that file beside the graph, and no other record stays shaded', async () => {
    const api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await openSessionGraph();
    // the sub-agent's own file in front (the graph stays on the session), follow in editor on
    const subFile = path.join(path.dirname(SESSION), path.basename(SESSION, '.jsonl'), 'subagents', 'agent-a93ccab.jsonl');
    await vscode.window.showTextDocument(vscode.Uri.file(subFile), { viewColumn: vscode.ViewColumn.One, preserveFocus: true });
    const front = () => vscode.window.tabGroups.all.find((g) => g.viewColumn === vscode.ViewColumn.One)?.activeTab?.input;
    await until('the sub-agent file in front in column one', () => front() instanceof vscode.TabInputText && (front() as vscode.TabInputText).uri.fsPath === subFile);
    await untilGraphSettled(FRAME, undefined, 'the graph, still on the session, to settle');
    const picks = await evalInWebview<{ sub: number; main: number }>(
      `() => { const g = globalThis.__otrace.graph; const lane = (name) => g.lanes.findIndex((l) => (l.agent ?? l.name) === name); const tl = globalThis.__otrace.timeline();
        const sub = lane('Explore:a93ccab'), main = lane('main');
        return { sub: tl.find((i) => g.columns.lane[i] === sub), main: tl.filter((i) => g.columns.lane[i] === main).pop() }; }`,
      { selector: FRAME },
    );
    if (!(await evalInWebview<boolean>(`() => document.getElementById('follow').checked`, { selector: FRAME }))) await clickInWebview('#follow', { frame: FRAME });
    const select = async (index: number) => {
      await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${index} }`, FRAME);
      await untilCurrent(index);
    };
    await select(picks.sub);
    await evalInWebview(`() => { document.getElementById('next-agent').click(); }`, { selector: FRAME });
    const subUri = vscode.Uri.file(subFile).toString();
    // the host opens and shades the record asynchronously: wait for that state (a fixed 800 ms was too short under load)
    await untilValue('a sub-agent event to shade its record in the sub-agent file', () => [...api.shadedRecords().keys()], (keys) => keys.includes(subUri));
    await select(picks.main);
    await evalInWebview(`() => { document.getElementById('prev-agent').click(); }`, { selector: FRAME });
    const sessionUri = vscode.Uri.file(SESSION).toString();
    await untilValue('a main-session event (its file not shown): its file to open with the record shaded, and no other record to stay shaded', () => [...api.shadedRecords().keys()], (keys) => keys.length === 1 && keys[0] === sessionUri);
    assert.ok(vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === sessionUri), 'the session file is shown');
    assertUntouched('after follow in editor across files');
  });
  it('Open Source Prompt from the graph shows the prompt and the graph keeps its event', async () => {
    await openSessionGraph();
    const call = (await timelineOf())[1];
    await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${call} }`, FRAME);
    await untilInWebview(`event ${call} selected, its details shown`, `() => { const o = globalThis.__otrace; return o.current() === ${call} && o.details()?.index === ${call}; }`, FRAME);
    const labels = await untilValue('the details to offer Open Source Prompt', () => evalInWebview<string[]>(`() => [...document.querySelectorAll('#details .actions vscode-button')].map((b) => b.textContent)`, { selector: FRAME }), (l) => l.includes('Open Source Prompt'));
    await clickInWebview(`#details .actions vscode-button:nth-of-type(${labels.indexOf('Open Source Prompt') + 1})`, { frame: FRAME });
    // the prompt is shown when the cursor reaches it (the host opens it asynchronously)
    const onUserPrompt = async () => {
      const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc);
      const line = editor ? editor.document.lineAt(editor.selection.active.line).text : '';
      return { userPrompt: /"type":"user"/.test(line), line: line.slice(0, 120) };
    };
    await untilValue('the cursor to be on the user prompt of the turn', onUserPrompt, (v) => v.userPrompt);
    assert.equal((await readKeys()).selected, call, 'the graph keeps the event the user was looking at');
    assertUntouched('after Open Source Prompt');
  });
});
