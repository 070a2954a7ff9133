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
import { clickInWebview, evalInWebview, pressKeys } from './bridge';
import type { OtraceApi } from '../../src/host/extension';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const SESSION = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const FRAME = `body[data-state="ready"][data-title="${path.basename(SESSION)}"]`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The graph's state: selected event index, zoom. */
interface GraphKeys {
  selected: number | null;
  zoom: number;
}
const READ = `() => { const o = globalThis.__otrace; return { selected: o.current(), zoom: o.view.scale }; }`;

/** Clicks (a real mouse click) the event node on screen farthest from any run bar (so the click selects an event); returns its index. */
async function clickVisibleNode(agent?: string): Promise<number> {
  // The window of the current view is loaded (after a zoom, the old window's run bars are stretched until it is).
  await waitFor(() => evalInWebview<{ loading: boolean }>('() => globalThis.__otrace.windows()', { selector: FRAME }), (w) => !w.loading, 'the window is loaded', 20_000);
  // A node stands apart once the view has settled (a zoom still animating leaves every event in a
  // run bar): wait for that state rather than sampling once.
  const target = await waitFor(
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
    'an event node that stands apart enough to be clicked',
    20_000,
  );
  await clickInWebview('#graph', { frame: FRAME, position: { x: target.x, y: target.y } });
  return target.index;
}

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 5000): Promise<T> {
  let v = await read();
  for (const end = Date.now() + ms; !ok(v) && Date.now() < end; ) {
    await sleep(100);
    v = await read();
  }
  assert.ok(ok(v), `${what}: ${JSON.stringify(v)}`);
  return v;
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
    await evalInWebview('1', { selector: FRAME, timeoutMs: 60_000 });
    if (!zoomed) return;
    await vscode.commands.executeCommand('otrace.graph.firstEvent');
    await vscode.commands.executeCommand('otrace.graph.zoomToSelection');
    await sleep(400);
  }

  it('keys pressed after a click on a node act on the graph and never reach the trace file', async () => {
    await openSessionGraph();
    assert.equal(vscode.window.activeTextEditor?.document, doc, 'the graph opened without taking the focus from the trace editor');

    // At Fit every event of this session stands in or beside a run bar (16 px buckets): frame its
    // first events (nothing selected), then wait for their window.
    await evalInWebview('() => { const o = globalThis.__otrace; o.view.frameIndices(o.timeline().slice(0, 12)); }', { selector: FRAME });
    await sleep(400);
    const aimed = await clickVisibleNode();
    // The node under the pointer is selected (the aimed one, or one drawn over it).
    const clicked = (await waitFor(() => evalInWebview<GraphKeys>(READ, { selector: FRAME }), (s) => s.selected !== null, `the click (aimed at event ${aimed}) selects a node`)).selected!;
    const timeline = await evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: FRAME });

    await pressKeys(['ArrowRight']);
    const next = timeline[timeline.indexOf(clicked) + 1];
    await waitFor(() => evalInWebview<GraphKeys>(READ, { selector: FRAME }), (s) => s.selected === next, '→ selects the next event in time');
    await pressKeys(['ArrowLeft', 'ArrowLeft']);
    const prev = timeline[timeline.indexOf(clicked) - 1] ?? clicked;
    await waitFor(() => evalInWebview<GraphKeys>(READ, { selector: FRAME }), (s) => s.selected === prev, '← ← selects the event before the clicked one');

    const zoomed = await evalInWebview<number>('() => { const v = globalThis.__otrace.view; v.zoomAt(8, 100); return v.scale; }', { selector: FRAME });
    await pressKeys(['f']);
    await waitFor(() => evalInWebview<GraphKeys>(READ, { selector: FRAME }), (s) => Math.abs(s.zoom - zoomed) / zoomed > 0.01, 'F fits the graph (zoom changed)');
    await pressKeys(['F', 'Enter', 'x', 'Backspace', 'Delete'], 'typed');
    await sleep(500);
    assertUntouched('after keys on the graph');
  });

  it('positive control: the same keys typed into a scratch editor do change it', async () => {
    const scratch = await vscode.workspace.openTextDocument({ content: '' });
    await vscode.window.showTextDocument(scratch, vscode.ViewColumn.One);
    await pressKeys(['f', 'Enter'], 'typed');
    await waitFor(async () => scratch.getText(), (t) => t.includes('f') && t.includes('typed'), 'the keys reach a focused editor');
    assert.equal(scratch.isDirty, true);
  });

  it('after Show in Trace File the keyboard stays in the graph, and the record is shown with nothing selected', async () => {
    await openSessionGraph(true);
    await clickVisibleNode('main');
    const shown = (await waitFor(() => evalInWebview<GraphKeys>(READ, { selector: FRAME }), (s) => s.selected !== null, 'the click selects a node')).selected!;
    // the cursor parked on the last line: Show in Trace File moves it to the record
    const last = doc.lineCount - 1;
    vscode.window.visibleTextEditors.filter((e) => e.document === doc).forEach((e) => (e.selection = new vscode.Selection(last, 0, last, 0)));
    await clickInWebview('#details .actions vscode-button', { frame: FRAME });
    const editor = await waitFor(
      async () => vscode.window.visibleTextEditors.find((e) => e.document === doc && e.selection.active.line !== last),
      (e) => e !== undefined,
      'Show in Trace File moves the trace editor to the record',
    );
    assert.ok(editor!.selection.isEmpty, `nothing selected (was the whole record: ${editor!.selection.start.line}:${editor!.selection.start.character}-${editor!.selection.end.line}:${editor!.selection.end.character})`);
    assert.equal(editor!.selection.active.character, 0, 'the cursor at the start of the record');
    await sleep(300);
    assert.notEqual(vscode.window.activeTextEditor?.document, doc, 'the trace editor did not take the keyboard');

    const timeline = await evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: FRAME });
    await pressKeys(['ArrowRight']);
    const next = timeline[timeline.indexOf(shown) + 1];
    await waitFor(() => evalInWebview<GraphKeys>(READ, { selector: FRAME }), (s) => s.selected === next, '→ still steps the graph');
    await pressKeys(['n', 'f', 'F', 'Enter'], 'typed');
    await sleep(500);
    assertUntouched('after Show in Trace File and keys pressed right after it');
    // leave the shared panel as a user first sees it (its view is kept per trace)
    await vscode.commands.executeCommand('otrace.graph.fit');
  });
  it('Ctrl+F goes to the filter box, Enter steps through the matches, Esc gives the keyboard back to the graph', async () => {
    await openSessionGraph(true);
    await clickVisibleNode('main');
    await sleep(200);
    await pressKeys(['Control+f'], 'Bash');
    const filtered = await waitFor(
      () => evalInWebview<{ box: string; count: string }>(`() => ({ box: document.getElementById('search').value, count: document.getElementById('matches').textContent })`, { selector: FRAME }),
      (v) => /^\d[\d,]* match(es)?$/.test(v.count),
      'the typed letters went into the filter box and the host answered',
    );
    assert.equal(filtered.box, 'Bash');
    const timeline = await evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: FRAME });
    // the jump waits for the host's answer to the whole text when the box shows an older text's count
    const matchNow = async (after?: number) => {
      const d = await waitFor(
        () => evalInWebview<{ index: number; text: string } | null>(`() => { const o = globalThis.__otrace; const d = o.details(); return d && d.index === o.current() ? { index: d.index, text: JSON.stringify(d).toLowerCase() } : null; }`, { selector: FRAME }),
        (v) => v !== null && v.text.includes('bash') && v.index !== after,
        'the details of a selected event that matches "bash"',
      );
      assert.ok(d!.text.includes('bash'), `the selected event matches "bash": ${d!.text.slice(0, 200)}`);
      return d!.index;
    };
    await pressKeys(['Enter']);
    await sleep(300);
    const first = await matchNow();
    assert.match(await evalInWebview<string>(`() => document.getElementById('matches').textContent`, { selector: FRAME }), /^\d[\d,]* of \d[\d,]* matches$/, 'the counter says which match is shown');
    await pressKeys(['Enter']);
    await sleep(300);
    const second = await matchNow(first);
    assert.notEqual(second, first);
    assert.ok(timeline.indexOf(second) > timeline.indexOf(first) || timeline.indexOf(second) < timeline.indexOf(first), 'Enter moved to another match');
    await pressKeys(['Escape', 'ArrowRight']);
    await waitFor(() => evalInWebview<GraphKeys>(READ, { selector: FRAME }), (s) => s.selected === timeline[timeline.indexOf(second) + 1], 'after Esc, → steps the graph again');
    await pressKeys(['n', 'Enter'], 'xyz');
    await sleep(400);
    assert.equal(await evalInWebview<string>(`() => document.getElementById('search').value`, { selector: FRAME }), 'Bash', 'keys after Esc do not go into the filter box');
    assertUntouched('after the filter box');
  });
  it('Show in Trace File and Enter on a tool result show the result\'s record and keep it selected (it is drawn in its call\'s bar)', async () => {
    await openSessionGraph();
    // the first tool result whose call shares its id (Claude Code: tool_use id = tool_result id)
    const target = await evalInWebview<{ index: number; call: number }>(
      `() => { const o = globalThis.__otrace; const tl = o.timeline(); return new Promise((done) => { window.postMessage({ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: tl[3] }, '*'); setTimeout(() => done({ index: tl[3], call: tl[1] }), 600); }); }`,
      { selector: FRAME },
    );
    const shown = await waitFor(() => evalInWebview<{ index: number; type: string } | null>(`() => { const o = globalThis.__otrace; const d = o.details(); return d && d.index === o.current() ? { index: d.index, type: d.type } : null; }`, { selector: FRAME }), (v) => v !== null, 'the details of the selected event');
    assert.equal(shown!.type, 'tool_result', 'the fourth event of the session is a tool result');
    for (const how of ['the button', 'Enter'] as const) {
      const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc)!;
      editor.selection = new vscode.Selection(0, 0, 0, 0);
      await sleep(300);
      await evalInWebview(`() => { window.postMessage({ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${target.index} }, '*'); return new Promise((r) => setTimeout(r, 400)); }`, { selector: FRAME });
      if (how === 'the button') await clickInWebview('#details .actions vscode-button', { frame: FRAME });
      else {
        await evalInWebview(`() => { document.getElementById('canvas').focus(); return 1; }`, { selector: FRAME });
        await pressKeys(['Enter']);
      }
      await sleep(800);
      const line = editor.document.lineAt(editor.selection.active.line).text;
      assert.match(line, /"tool_result"/, `${how}: the cursor is on the result's record: ${line.slice(0, 160)}`);
      assert.equal((await evalInWebview<GraphKeys>(READ, { selector: FRAME })).selected, target.index, `${how}: the result stays selected`);
    }
    assertUntouched('after Show in Trace File on a tool result');
  });
  it('follow in editor shades only the record of the event shown: stepping to an event of a file no editor shows opens that file beside the graph, and no other record stays shaded', async () => {
    const api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await openSessionGraph();
    // the sub-agent's own file in front (the graph stays on the session), follow in editor on
    const subFile = path.join(path.dirname(SESSION), path.basename(SESSION, '.jsonl'), 'subagents', 'agent-a93ccab.jsonl');
    await vscode.window.showTextDocument(vscode.Uri.file(subFile), { viewColumn: vscode.ViewColumn.One, preserveFocus: true });
    await sleep(500);
    const picks = await evalInWebview<{ sub: number; main: number }>(
      `() => { const g = globalThis.__otrace.graph; const lane = (name) => g.lanes.findIndex((l) => (l.agent ?? l.name) === name); const tl = globalThis.__otrace.timeline();
        const sub = lane('Explore:a93ccab'), main = lane('main');
        return { sub: tl.find((i) => g.columns.lane[i] === sub), main: tl.filter((i) => g.columns.lane[i] === main).pop() }; }`,
      { selector: FRAME },
    );
    if (!(await evalInWebview<boolean>(`() => document.getElementById('follow').checked`, { selector: FRAME }))) await clickInWebview('#follow', { frame: FRAME });
    const select = (index: number) => evalInWebview(`() => { window.postMessage({ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${index} }, '*'); return new Promise((r) => setTimeout(r, 300)); }`, { selector: FRAME });
    await select(picks.sub);
    await evalInWebview(`() => { document.getElementById('next-agent').click(); }`, { selector: FRAME });
    const subUri = vscode.Uri.file(subFile).toString();
    // the host opens and shades the record asynchronously: wait for that state (a fixed 800 ms was too short under load)
    await waitFor(async () => [...api.shadedRecords().keys()], (keys) => keys.includes(subUri), 'a sub-agent event shades its record in the sub-agent file', 20_000);
    await select(picks.main);
    await evalInWebview(`() => { document.getElementById('prev-agent').click(); }`, { selector: FRAME });
    const sessionUri = vscode.Uri.file(SESSION).toString();
    await waitFor(async () => [...api.shadedRecords().keys()], (keys) => keys.length === 1 && keys[0] === sessionUri, 'a main-session event (its file not shown): its file opens with the record shaded, and no other record stays shaded', 20_000);
    assert.ok(vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === sessionUri), 'the session file is shown');
    assertUntouched('after follow in editor across files');
  });
  it('Open Source Prompt from the graph shows the prompt and the graph keeps its event', async () => {
    await openSessionGraph();
    const call = await evalInWebview<number>(`() => { const tl = globalThis.__otrace.timeline(); window.postMessage({ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: tl[1] }, '*'); return new Promise((r) => setTimeout(() => r(tl[1]), 600)); }`, { selector: FRAME });
    const labels = await waitFor(() => evalInWebview<string[]>(`() => [...document.querySelectorAll('#details .actions vscode-button')].map((b) => b.textContent)`, { selector: FRAME }), (l) => l.includes('Open Source Prompt'), 'the details offer Open Source Prompt');
    await clickInWebview(`#details .actions vscode-button:nth-of-type(${labels.indexOf('Open Source Prompt') + 1})`, { frame: FRAME });
    // the prompt is shown when the cursor reaches it (the host opens it asynchronously)
    const onUserPrompt = async () => {
      const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc);
      const line = editor ? editor.document.lineAt(editor.selection.active.line).text : '';
      return { userPrompt: /"type":"user"/.test(line), line: line.slice(0, 120) };
    };
    await waitFor(onUserPrompt, (v) => v.userPrompt, 'the cursor is on the user prompt of the turn', 20_000);
    assert.equal((await evalInWebview<GraphKeys>(READ, { selector: FRAME })).selected, call, 'the graph keeps the event the user was looking at');
    assertUntouched('after Open Source Prompt');
  });
});
