/**
 * The windowed graph on a large trace (issue 9, item 3), generated at test time (never committed):
 * 30,000 events, an orchestrator and six workers, a loop of repeated tool calls near the end. The
 * events past the old 5,000 cut are reachable (step to the last event, frame the finding near the
 * end); Cytoscape's element count stays bounded while navigating; a window update keeps the nodes
 * both windows show (a marker set on a node survives a pan).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clickInWebview, evalInWebview, pressKeys, screenshot, testLog } from './bridge';
import { SETTLED, untilValue } from './wait';

const EVENTS = 30_000;
/** Most Cytoscape elements (nodes and edges) a window may hold; the trace has 30,000 events. */
const BOUND = 4_000;

/** Writes the trace: rounds of orchestrator → worker message, two tool calls, a return; the loop and the stop at the end. */
function writeTrace(file: string): void {
  const lines: string[] = [];
  let t = 0;
  let round = 0;
  const add = (e: Record<string, unknown>) => lines.push(JSON.stringify({ id: `e${lines.length}`, t: Number((t += 0.5).toFixed(1)), ...e }));
  const workers = Array.from({ length: 6 }, (_, i) => `worker-${i}`);
  for (const w of workers) add({ type: 'spawn', agent: 'orchestrator', to: w });
  while (lines.length < EVENTS - 12) {
    const w = workers[round++ % workers.length];
    add({ type: 'message', agent: 'orchestrator', to: w, content: `task ${round}` });
    add({ type: 'tool_call', agent: w, tool: 'search', content: `query ${round}` });
    add({ type: 'tool_call', agent: w, tool: 'read', content: `file ${round}.md` });
    add({ type: 'return', agent: w, to: 'orchestrator', content: `done ${round}` });
  }
  // Near the end: the same failing build five times (a loop finding), then the stop.
  while (lines.length < EVENTS - 1) add({ type: 'tool_call', agent: 'worker-0', tool: 'bash', content: 'npm run build # fails the same way' });
  add({ type: 'stop', agent: 'orchestrator', reason: 'task_complete' });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

interface Loaded {
  elements: number;
  nodes: number;
  applied: number;
  /** No window asked for and unanswered, no redraw waiting for the next frame. */
  settled: boolean;
  counter: string;
  selected: number | null;
  current: number | null;
  /** The view's scale (px per unit of the axis). */
  scale: number;
  /** Commands the page has run. */
  commands: number;
}

const READ = `() => {
  const o = globalThis.__otrace;
  const w = o.windows();
  return { elements: o.cy.elements().length, nodes: o.cy.nodes().length, applied: w.applied, settled: ${SETTLED}, counter: document.getElementById('counter').textContent, selected: o.selected(), current: o.current(), scale: o.view.scale, commands: o.commands() };
}`;

describe('windowed graph of a large trace in a real VS Code', function () {
  this.timeout(240_000);
  const file = path.join(os.tmpdir(), `otrace-large-${process.pid}.otrace.jsonl`);
  const frame = `body[data-state="ready"][data-title="${path.basename(file)}"]`;
  const read = () => evalInWebview<Loaded>(READ, { selector: frame });
  /** Waits until the graph is settled (what the last view change asked for is drawn) and `ok` holds (a window of 30,000 events can take tens of seconds on a busy machine). */
  function settle(ok: (v: Loaded) => boolean = () => true, what = 'the window', ms = 60_000): Promise<Loaded> {
    return untilValue(what, read, (v) => v.settled && ok(v), ms, 150);
  }
  let most = 0;
  const track = (v: Loaded) => {
    most = Math.max(most, v.elements);
    assert.ok(v.elements <= BOUND, `Cytoscape holds ${v.elements} elements (bound ${BOUND})`);
    return v;
  };

  before(async () => {
    writeTrace(file);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One });
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    await evalInWebview('1', { selector: frame, timeoutMs: 120_000 });
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(file, { force: true });
  });

  it('the first view covers the whole trace with a bounded number of elements', async () => {
    const v = track(await settle());
    const summary = await evalInWebview<string>(`() => document.getElementById('summary').textContent`, { selector: frame });
    assert.match(summary, /30,000 events/);
    const range = await evalInWebview<{ from: number; to: number; span: number }>(`() => { const o = globalThis.__otrace; const w = o.windows(); return { from: w.from, to: w.to, span: o.view.axisLength() }; }`, { selector: frame });
    assert.ok(range.from <= 0 && range.to >= range.span, `the first window covers the whole time span: ${JSON.stringify(range)}`);
    testLog(`      ${EVENTS} events: the first view draws ${v.nodes} nodes, ${v.elements} elements`);
    // the loop near the end, inside a run bar at this scale: the bar has the loop's ring, as the legend says (a plain bar's grey border hid it)
    const bars = await evalInWebview<{ count: number; style: string; color: string }>(
      `() => { const b = globalThis.__otrace.cy.$('node.run.loop'); return { count: b.length, style: b.length ? b[0].style('border-style') : '', color: b.length ? b[0].style('border-color') : '' }; }`,
      { selector: frame },
    );
    assert.ok(bars.count > 0, 'a run bar holds loop events');
    assert.deepEqual([bars.style, bars.color], ['dashed', 'rgb(230,159,0)'], 'drawn with the orange dashed ring of a loop');
    await screenshot('test-output/large-trace.png');
  });

  it('steps to the last event (past the old 5,000 cut) and it is drawn and selected', async () => {
    const timeline = await evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: frame });
    assert.equal(timeline.length, EVENTS);
    await vscode.commands.executeCommand('otrace.graph.lastEvent');
    const last = timeline[timeline.length - 1];
    const v = track(await settle((s) => s.selected === last, 'End selects the last event'));
    assert.equal(v.counter, `${EVENTS.toLocaleString('en-US')} / ${EVENTS.toLocaleString('en-US')}`, 'counted with thousands separators, as the header counts');
    // Zoomed in at the end, then back one event at a time: each is selected.
    await vscode.commands.executeCommand('otrace.graph.zoomToSelection');
    for (let k = 2; k <= 4; k++) {
      await vscode.commands.executeCommand('otrace.graph.previousEvent');
      track(await settle((s) => s.selected === timeline[timeline.length - k], `← selects event ${EVENTS - k + 1}`));
    }
    const id = await evalInWebview<string | undefined>(`() => globalThis.__otrace.details()?.eventId`, { selector: frame });
    assert.equal(id, `e${timeline[timeline.length - 4]}`, 'the details pane shows the event (asked from the host)');
  });

  it('a pan loads a new window and keeps the nodes both windows show', async () => {
    // The middle of the trace, about 150 s (300 events) in view.
    await evalInWebview(
      `() => { const v = globalThis.__otrace.view; v.zoomAt(v.cy.width() / 150 / v.scale, 0); const u = 0.5 * v.axisLength(); v.cy.pan({ x: -u * v.scale, y: v.cy.pan().y }); }`,
      { selector: frame },
    );
    track(await settle());
    const marked = await evalInWebview<{ id: string; applied: number }>(
      `() => {
        const o = globalThis.__otrace;
        const w = o.cy.width();
        const n = o.cy.nodes('.event').filter((x) => { const p = x.renderedPosition(); return p.x > w * 0.05 && p.x < w * 0.35; }).first();
        n.scratch('_otraceMarker', 'kept');
        return { id: n.id(), applied: o.windows().applied };
      }`,
      { selector: frame },
    );
    assert.ok(marked.id, 'an event node is in view');
    // Pan right by 60 % of the view: past the loaded margin, so a new window comes.
    await evalInWebview(`() => { const cy = globalThis.__otrace.cy; cy.pan({ x: cy.pan().x + cy.width() * 0.6, y: cy.pan().y }); }`, { selector: frame });
    const v = track(await settle((s) => s.applied > marked.applied, 'the pan loads a window'));
    const kept = await evalInWebview<{ present: boolean; marker: unknown }>(`() => { const n = globalThis.__otrace.cy.getElementById(${JSON.stringify(marked.id)}); return { present: n.nonempty(), marker: n.nonempty() ? n.scratch('_otraceMarker') : null }; }`, { selector: frame });
    assert.ok(kept.present, `${marked.id} is still drawn after the pan`);
    assert.equal(kept.marker, 'kept', `${marked.id} is the same Cytoscape node (not removed and added again)`);
    testLog(`      after the pan: ${v.elements} elements, ${v.applied} windows applied`);
  });

  it('zooming and panning across the whole trace keeps the element count bounded', async () => {
    const views = [
      [1, 0],
      [40, 0.1],
      [1, 0.5],
      [1, 0.9],
      [0.02, 0.5],
    ];
    for (const [factor, at] of views) {
      await evalInWebview(
        `() => { const o = globalThis.__otrace; const v = o.view; v.zoomAt(${factor}, v.cy.width() / 2); const u = ${at} * v.axisLength(); v.cy.pan({ x: v.cy.width() / 2 - 30 - u * v.scale, y: v.cy.pan().y }); }`,
        { selector: frame },
      );
      track(await settle());
    }
    testLog(`      most elements while navigating: ${most} (bound ${BOUND}, ${EVENTS} events)`);
  });

  it('a finding near the end is framed: its events drawn on their own and in view; Esc goes back', async () => {
    const ran = await evalInWebview<number>('() => globalThis.__otrace.commands()', { selector: frame });
    await vscode.commands.executeCommand('otrace.graph.fit');
    await settle((v) => v.commands > ran, 'Fit, drawn');
    const scaleBefore = await evalInWebview<number>('() => globalThis.__otrace.view.scale', { selector: frame });
    await clickInWebview('.finding-group[data-group="loop-tool"] .group-head', { frame });
    await settle((v) => v.scale !== scaleBefore, 'the finding framed');
    const r = await evalInWebview<{ events: number[]; missing: number[]; outside: number[] }>(
      `() => {
        const { cy, graph, view } = globalThis.__otrace;
        const group = document.querySelector('.finding-group[data-group="loop-tool"]');
        const events = [...new Set([...group.querySelectorAll('.finding')].flatMap((b) => graph.findings[Number(b.dataset.finding)].events))];
        const w = cy.width(), h = cy.height();
        const missing = events.filter((i) => !view.nodeOfIndex(i));
        const outside = events.filter((i) => { const n = view.nodeOfIndex(i); if (!n) return false; const b = n.renderedBoundingBox({ includeLabels: false }); return b.x1 < -0.5 || b.x2 > w + 0.5 || b.y1 < -0.5 || b.y2 > h + 0.5; });
        return { events, missing, outside };
      }`,
      { selector: frame },
    );
    assert.ok(r.events.length >= 5, `the loop finding lists the repeated calls: ${r.events}`);
    assert.ok(Math.min(...r.events) > EVENTS - 20, 'its events are at the end of the trace');
    assert.deepEqual(r.missing, [], 'every event of the finding is drawn on its own');
    assert.deepEqual(r.outside, [], 'every event of the finding is in view');
    const share = await evalInWebview<number>('() => { const v = globalThis.__otrace.view; const [a, b] = v.viewRange(); return (b - a) / v.axisLength(); }', { selector: frame });
    assert.ok(share >= 0.049, `the finding is framed with what happened around it: the view spans ${(share * 100).toFixed(1)} % of the run`);
    await pressKeys(['Escape']);
    const { scale: scaleAfter } = await settle((v) => Math.abs(v.scale - scaleBefore) < 1e-9, `Esc to restore the view before (scale ${scaleBefore})`);
    assert.ok(Math.abs(scaleAfter - scaleBefore) < 1e-9, `Esc restores the view before: ${scaleBefore} -> ${scaleAfter}`);
  });
});
