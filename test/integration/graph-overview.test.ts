/**
 * Overview first (issue 9), on the full Claude Code session with its sub-agents (634 events,
 * 4 lanes), in the harness's window: the first view holds every lane label, the stop nodes and
 * the whole time span; lanes and labels are at least 10 px high; no two visible labels overlap.
 * Stepping moves the highlight and the counter; the healthy run shows no loop.
 * Writes the README picture of the session (who spawned whom).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clickInWebview, evalInWebview, screenshot, testLog } from './bridge';
import { commandsRun, postAsHost, SETTLED, until, untilCommandDrawn, untilGraphSettled, untilInWebview, untilValue } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const SESSION = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const FRAME = `body[data-state="ready"][data-title="${path.basename(SESSION)}"]`;

interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

interface FirstView {
  width: number;
  height: number;
  laneHeight: number;
  lanes: { name: string; title: string; shown: boolean; box: Box; fontPx: number }[];
  legend: string[];
  laneColumn: Box;
  stage: Box;
  stops: { id: string; box: Box }[];
  first: Box;
  last: Box;
  labels: { id: string; eventId?: string; text: string; box: Box }[];
  runs: number;
}

/** Read in the webview: boxes in the webview's page coordinates. */
const READ_FIRST_VIEW = `() => {
  const { cy, view } = globalThis.__otrace;
  const stage = document.getElementById('graph').getBoundingClientRect();
  const rect = (r) => ({ x1: r.left, y1: r.top, x2: r.right, y2: r.bottom });
  const toPage = (b) => ({ x1: b.x1 + stage.left, y1: b.y1 + stage.top, x2: b.x2 + stage.left, y2: b.y2 + stage.top });
  const nodes = cy.nodes('.event, .run').filter((n) => n.visible());
  // Leftmost and rightmost drawn element (an event, or a run of events drawn as one bar).
  const byT = nodes.sort((a, b) => a.renderedBoundingBox({ includeLabels: false }).x1 - b.renderedBoundingBox({ includeLabels: false }).x1);
  return {
    width: cy.width(), height: cy.height(), laneHeight: view.laneHeight,
    lanes: [...document.querySelectorAll('#lanes .lane')].map((l) => {
      const name = l.querySelector('.lane-name');
      return { name: name.textContent, title: l.title, shown: getComputedStyle(l).display !== 'none', box: rect(name.getBoundingClientRect()), fontPx: parseFloat(getComputedStyle(name).fontSize) };
    }),
    legend: [...document.querySelectorAll('#legend .legend-item')].map((i) => i.textContent),
    laneColumn: rect(document.getElementById('lanes').getBoundingClientRect()),
    stage: rect(stage),
    stops: cy.nodes('.stop').map((n) => ({ id: n.data('eventId'), visible: n.visible(), cls: n.classes().join(' '), lane: n.data('lane'), box: toPage(n.renderedBoundingBox({ includeLabels: false })) })),
    first: toPage(byT.first().renderedBoundingBox({ includeLabels: false })),
    last: toPage(nodes.sort((a, b) => a.renderedBoundingBox({ includeLabels: false }).x2 - b.renderedBoundingBox({ includeLabels: false }).x2).last().renderedBoundingBox({ includeLabels: false })),
    runs: cy.nodes('.run').length,
    labels: nodes.filter((n) => !n.hasClass('nolabel') && n.data('label')).map((n) => {
      const b = n.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false, includeUnderlays: false });
      return { id: n.id(), eventId: n.data('eventId'), text: n.data('label'), box: toPage(b) };
    }),
  };
}`;

const inside = (b: Box, r: Box) => b.x1 >= r.x1 - 0.5 && b.x2 <= r.x2 + 0.5 && b.y1 >= r.y1 - 0.5 && b.y2 <= r.y2 + 0.5;
const overlap = (a: Box, b: Box) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

/** What the stepping tests read: the current event, the counter and how many loaded elements are later (dimmed). */
interface Step {
  current: number | null;
  counter: string;
  later: number;
}

/** Waits until the current event is `index` (or, given `not`, any event but it) and the graph is settled; reads the step. */
async function stepAt(index: number | { not: number | null }): Promise<Step> {
  const state = await untilGraphSettled(FRAME, (v) => (typeof index === 'number' ? v.current === index : v.current !== index.not), `the current event ${JSON.stringify(index)}, drawn`);
  return evalInWebview<Step>(`() => { const o = globalThis.__otrace; return { current: ${state.current}, counter: document.getElementById('counter').textContent, later: o.later() }; }`, { selector: FRAME });
}

/** Event indices in time order (the timeline's). */
const timelineOf = (frame: string) => evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: frame });

/** The graph's width in px as the page has it (after the panel's size changed and the graph took it in). */
const graphWidth = (frame: string) => evalInWebview<number>(`() => ${SETTLED} && globalThis.__otrace.cy.width()`, { selector: frame });

/** Seconds of the clock's text (`t = 4.86 s`, `t = 2 min 5 s`, `t = 1 h 3 min`, `t = 850 ms`). */
function clockSeconds(text: string): number {
  let s = 0;
  for (const [, n, unit] of text.matchAll(/([\d.]+) (h|min|s|ms)\b/g)) s += Number(n) * ({ h: 3600, min: 60, s: 1, ms: 0.001 } as Record<string, number>)[unit];
  return s;
}

describe('graph overview of a Claude Code session in a real VS Code', function () {
  this.timeout(150_000);
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('first view: every lane, the stops and the whole time span; labels ≥ 10 px and never overlapping', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(SESSION));
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    await evalInWebview('1', { selector: FRAME, timeoutMs: 60_000 });
    await untilGraphSettled(FRAME); // the axis and the labels are drawn on the next frame
    const v = await evalInWebview<FirstView>(READ_FIRST_VIEW, { selector: FRAME });
    testLog(`      panel graph ${v.width}x${v.height} px, lane height ${v.laneHeight} px, ${v.runs} runs of events drawn as one bar, ${v.labels.length} labels shown, lane label font ${v.lanes.map((l) => l.fontPx).join('/')} px`);

    assert.deepEqual(
      v.lanes.map((l) => l.name),
      ['main', 'Explore existing codebase', 'Explore sync and transcript code', 'context compaction'],
      'sub-agent lanes under main, called by what they were asked; the compaction is a compaction',
    );
    assert.match(v.lanes[1].title, /^Explore:a93ccab: 63 events, spawned by main · asked: Explore the codebase/, 'the raw name in the tooltip');
    assert.match(v.lanes[3].title, /^compact:acompact-70d8e7: 3 events, compaction of main's context/);
    assert.doesNotMatch(v.lanes[3].title, /spawned/);
    assert.deepEqual(v.legend, ['decision', 'spawn', 'delegate', 'message', 'tool call', 'return', 'stop', 'meta row', 'compaction', 'failed', 'share of the result'], 'the legend lists what this graph shows: no loop, blame or ✓');
    for (const l of v.lanes) {
      assert.ok(l.shown, `lane label ${l.name} is shown`);
      assert.ok(l.box.y1 >= v.laneColumn.y1 && l.box.y2 <= v.laneColumn.y2, `lane label ${l.name} is inside the view: ${JSON.stringify(l.box)}`);
      assert.ok(l.box.x2 <= v.stage.x1 + 0.5, `lane label ${l.name} is left of the graph, never over it`);
      assert.ok(l.fontPx >= 10, `lane label ${l.name} is ${l.fontPx} px`);
    }
    assert.ok(v.laneHeight >= 10, `lane height ${v.laneHeight} px`);
    assert.equal(v.stops.length, 6);
    for (const s of v.stops) assert.ok(inside(s.box, v.stage), `stop ${s.id} is inside the view: ${JSON.stringify(s)} vs ${JSON.stringify(v.stage)}; lanes ${JSON.stringify(v.lanes.map((l) => [l.name, l.shown]))}`);
    assert.ok(inside(v.first, v.stage), 'the first event is in view');
    assert.ok(inside(v.last, v.stage), 'the last event is in view');

    assert.ok(v.labels.length >= 5, `some labels are shown (${v.labels.length})`);
    for (const l of v.labels) {
      assert.ok(l.box.y2 - l.box.y1 >= 10, `label ${l.text} is ${l.box.y2 - l.box.y1} px high`);
      assert.ok(inside(l.box, v.stage), `label ${l.text} is inside the view`);
    }
    for (let i = 0; i < v.labels.length; i++)
      for (let j = i + 1; j < v.labels.length; j++)
        assert.ok(!overlap(v.labels[i].box, v.labels[j].box), `labels overlap: "${v.labels[i].text}" ${JSON.stringify(v.labels[i].box)} and "${v.labels[j].text}" ${JSON.stringify(v.labels[j].box)}`);

    // the session's idle gaps say how long they are on the axis, clear of its ticks; none of their words over the lanes (they covered the last lane's labels)
    const axis = await evalInWebview<{ gaps: Box[]; ticks: Box[]; overLanes: number }>(
      `() => { const box = (e) => { const r = e.getBoundingClientRect(); return { x1: r.left, y1: r.top, x2: r.right, y2: r.bottom }; };
        return { gaps: [...document.querySelectorAll('#axis .gap-label')].map(box), ticks: [...document.querySelectorAll('#axis .tick')].map(box), overLanes: document.querySelectorAll('#gaps .gap-label').length }; }`,
      { selector: FRAME },
    );
    assert.ok(axis.gaps.length >= 1, 'a gap says its length on the axis');
    assert.equal(axis.overLanes, 0);
    for (const g of axis.gaps) for (const t of axis.ticks) assert.ok(!overlap(g, t), `a gap's words ${JSON.stringify(g)} on a tick ${JSON.stringify(t)}`);

    // For the README: who spawned whom, the whole run, the last turn end selected ("turn ended", no ✓: nothing records success).
    const turnLabels = await evalInWebview<string[]>(`() => globalThis.__otrace.cy.nodes('.turn-end').map((n) => n.data('label'))`, { selector: FRAME });
    assert.ok(turnLabels.length >= 3 && turnLabels.every((l) => /^turn ended: /.test(l) && !l.includes('✓')), JSON.stringify(turnLabels));
    assert.equal(await evalInWebview<number>(`() => globalThis.__otrace.cy.nodes('.stop-ok').length`, { selector: FRAME }), 0, 'no check mark without a recorded success');
    const lastTurn = await evalInWebview<number>(`() => globalThis.__otrace.cy.nodes('.turn-end').last().data('index')`, { selector: FRAME });
    await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${lastTurn} }`, FRAME);
    await untilInWebview('the last turn end selected, its details shown', `() => { const o = globalThis.__otrace; return o.current() === ${lastTurn} && o.details()?.index === ${lastTurn} && ${SETTLED}; }`, FRAME);
    const narrow = await until('the graph width', () => graphWidth(FRAME));
    await vscode.commands.executeCommand('workbench.action.focusSecondEditorGroup');
    await vscode.commands.executeCommand('workbench.action.toggleEditorWidths');
    const wide = await untilValue('the graph to widen with its editor group', () => graphWidth(FRAME), (w) => typeof w === 'number' && w > narrow);
    await postAsHost(`{ type: 'command', command: 'fit' }`, FRAME);
    await untilGraphSettled(FRAME);
    await screenshot('test-output/claude-code-session.png');
    await vscode.commands.executeCommand('workbench.action.toggleEditorWidths');
    await untilValue(`the graph back to about ${narrow} px wide (from ${wide})`, () => graphWidth(FRAME), (w) => typeof w === 'number' && w < wide);
  });

  it('stepping moves the highlight and the counter', async () => {
    const timeline = await timelineOf(FRAME);
    await clickInWebview('#first', { frame: FRAME });
    const a = await stepAt(timeline[0]);
    assert.match(a.counter, /^1 \/ [\d,]+$/);
    await clickInWebview('#next', { frame: FRAME });
    const b = await stepAt(timeline[1]);
    assert.match(b.counter, /^2 \/ [\d,]+$/);
    // the clock gives the event's own t, as its details do (the first event of this session is not at t = 0)
    const clock = await untilInWebview<{ clock: string; t?: string }>(
      'the details of the second event',
      `() => { const o = globalThis.__otrace; const d = o.details(); return d && d.index === o.current() ? { clock: document.getElementById('clock').textContent, t: (d.fields.find((f) => f[0] === 't') ?? [])[1] } : undefined; }`,
      FRAME,
    );
    // (`2.5 s`, or from a minute on `41 min 48 s (2507.93 s)`: the recorded seconds last)
    const seconds = Number(/([\d.]+) s\)?$/.exec(clock.t ?? '')?.[1]);
    assert.ok(seconds > 0, `the second event's t: ${clock.t}`);
    assert.ok(Math.abs(clockSeconds(clock.clock) - seconds) <= 0.5, `the clock (${clock.clock}) says the t of the details (${clock.t})`);
    await clickInWebview('#next-stop', { frame: FRAME });
    const c = await stepAt({ not: b.current });
    const stop = await evalInWebview<boolean>(`() => { const o = globalThis.__otrace; const key = o.selectedKey(); return key !== null && o.cy.getElementById(key).hasClass('stop'); }`, { selector: FRAME });
    assert.ok(stop, 'stop ▶ selects a stop');
    // The focus ring is around the stop's node, and the veil over later events begins right of it.
    const marks = await evalInWebview<{ ring: boolean; veil: boolean }>(
      `() => { const o = globalThis.__otrace; const p = o.cy.getElementById(o.selectedKey()).renderedPosition(); const g = document.getElementById('graph').getBoundingClientRect(); const x = g.left + p.x; const y = g.top + p.y; const f = document.getElementById('focus'); const r = f.getBoundingClientRect(); const v = document.getElementById('later'); return { ring: !f.hidden && r.left <= x && x <= r.right && r.top <= y && y <= r.bottom, veil: !v.hidden && v.getBoundingClientRect().left >= x }; }`,
      { selector: FRAME },
    );
    assert.ok(marks.ring, 'the focus ring is around the selected stop');
    assert.ok(marks.veil, 'the veil over later events begins at the stop');
    assert.notEqual(c.counter, b.counter);
    assert.ok(c.later < a.later, `fewer events are later (dimmed) as the timeline advances: ${a.later} -> ${c.later}`);
  });

  it('stepping through the first events of the whole-run view scrolls nothing: no empty time before the run comes into view', async () => {
    const ran = await commandsRun(FRAME);
    await vscode.commands.executeCommand('otrace.graph.fit');
    await untilCommandDrawn(ran, FRAME, 'Fit, drawn');
    const startX = () => evalInWebview<number>('() => globalThis.__otrace.view.screenX(0)', { selector: FRAME });
    const before = await startX();
    const timeline = await timelineOf(FRAME);
    await clickInWebview('#first', { frame: FRAME });
    await stepAt(timeline[0]);
    for (let k = 1; k <= 3; k++) {
      await clickInWebview('#next', { frame: FRAME });
      await stepAt(timeline[k]);
    }
    const after = await startX();
    assert.ok(Math.abs(after - before) < 1, `the run's start stays at ${before.toFixed(1)} px (now ${after.toFixed(1)})`);
  });

  it('the healthy session shows no loop: its 27 identical calls are re-reads by another agent, re-runs after edits, or got new results', async () => {
    const r = await evalInWebview<{ groups: string[]; loopFindings: number }>(
      `() => ({
        groups: [...document.querySelectorAll('.finding-group')].map((g) => g.dataset.group),
        loopFindings: globalThis.__otrace.graph.findings.filter((f) => f.kind === 'loop').length,
      })`,
      { selector: FRAME },
    );
    assert.deepEqual(r.groups.filter((g) => g.startsWith('loop')), [], `finding groups: ${r.groups}`);
    assert.equal(r.loopFindings, 0);
  });

  it('palette commands step the active graph; follow in editor reveals the line without leaving the graph', async () => {
    const timeline = await timelineOf(FRAME);
    await clickInWebview('#first', { frame: FRAME });
    assert.match((await stepAt(timeline[0])).counter, /^1 \//);
    await vscode.commands.executeCommand('otrace.graph.nextEvent');
    assert.match((await stepAt(timeline[1])).counter, /^2 \//, 'otrace: Next Event steps the graph');
    await vscode.commands.executeCommand('otrace.graph.lastEvent');
    assert.match((await stepAt(timeline[timeline.length - 1])).counter, /^([\d,]+) \/ \1$/, 'otrace: Last Event');

    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === SESSION);
    assert.ok(editor, 'the trace is visible beside the graph');
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    const following = () => evalInWebview<boolean>(`() => document.getElementById('follow').checked`, { selector: FRAME });
    if (!(await following())) await clickInWebview('#follow', { frame: FRAME });
    await clickInWebview('#first', { frame: FRAME });
    await stepAt(timeline[0]);
    for (let i = 0; i < 3; i++) await clickInWebview('#next', { frame: FRAME });
    const id = await untilInWebview<string>(
      'the details of the fourth event',
      `() => { const o = globalThis.__otrace; const d = o.details(); return o.current() === ${timeline[3]} && d && d.index === o.current() ? d.eventId : undefined; }`,
      FRAME,
    );
    const record = id.split(':')[0];
    const lineShown = () => editor.document.lineAt(editor.selection.start.line).text;
    const line = await untilValue(`the editor to show the line of ${id}`, lineShown, (text) => text.includes(record));
    assert.ok(line.includes(record), `the editor shows the line of ${id}: ${line.slice(0, 120)}`);
    assert.equal(vscode.window.activeTextEditor, undefined, 'the graph keeps the focus (no text editor is active)');
    assert.ok(editor.selection.isEmpty, 'the record is shown, not selected: going back to the editor and typing must not replace it');
    assert.equal(editor.document.isDirty, false);
  });

  it('an event drawn where a run bar also is takes the click (it is drawn above the bar): the click selects it, it does not zoom into the bar', async () => {
    // an event kept on its own (a spawn, a stop) can sit where a neighbouring run bar is drawn; put one there
    const target = await evalInWebview<{ id: string; x: number; y: number; from: { x: number; y: number }; bar: string }>(
      `() => {
        const o = globalThis.__otrace;
        const bar = o.cy.nodes('.run').filter((n) => n.visible()).first();
        const event = o.cy.nodes('.event').filter((n) => n.visible() && !o.view.run(n.id())).first();
        if (bar.empty() || event.empty()) throw new Error('the first view needs a run bar and an event');
        const from = { ...event.position() };
        event.position(bar.position());
        const p = event.renderedPosition();
        return { id: event.id(), x: p.x, y: p.y, from, bar: bar.id() };
      }`,
      { selector: FRAME },
    );
    const before = await evalInWebview<string>(`() => document.getElementById('axis').textContent`, { selector: FRAME });
    await clickInWebview('#graph', { frame: FRAME, position: { x: target.x, y: target.y } });
    const read = () => evalInWebview<{ selected: string | null; axis: string; settled: boolean }>(`() => ({ selected: globalThis.__otrace.selectedKey(), axis: document.getElementById('axis').textContent, settled: ${SETTLED} })`, { selector: FRAME });
    try {
      // the click either selects the event or zooms into the bar (then the axis changes): wait for one
      const after = await untilValue(`the click on ${target.id} to select it or zoom`, read, (v) => v.settled && (v.selected === target.id || v.axis !== before));
      assert.equal(after.selected, target.id, `the click on ${target.id}, drawn over bar ${target.bar}, selects it`);
      assert.equal(after.axis, before, 'the view did not zoom into the bar');
    } finally {
      await evalInWebview(`() => { globalThis.__otrace.cy.getElementById(${JSON.stringify(target.id)}).position(${JSON.stringify(target.from)}); }`, { selector: FRAME });
    }
  });

  it('tooltips stay inside the graph (the rightmost node\'s too) and a bar of several events says what it holds', async () => {
    const r = await evalInWebview<{ inside: boolean; text: string; runText: string }>(
      `() => {
        const { cy } = globalThis.__otrace;
        const tip = document.getElementById('tooltip');
        const stage = document.getElementById('stage').getBoundingClientRect();
        const nodes = cy.nodes().filter((n) => !globalThis.__otrace.view.run(n.id()) && n.renderedPosition().x <= cy.width() && n.renderedPosition().x >= 0).toArray().sort((a, b) => b.renderedPosition().x - a.renderedPosition().x);
        nodes[0].emit('mouseover');
        const t = tip.getBoundingClientRect();
        const out = { inside: !tip.hidden && t.left >= stage.left - 0.5 && t.right <= stage.right + 0.5, text: tip.textContent + ' at ' + JSON.stringify([t.left, t.right, stage.left, stage.right, nodes[0].renderedPosition().x]), runText: '' };
        const run = cy.nodes().filter((n) => !!globalThis.__otrace.view.run(n.id())).first();
        if (run.nonempty()) { run.emit('mouseover'); out.runText = tip.textContent; }
        cy.nodes().first().emit('mouseout');
        return out;
      }`,
      { selector: FRAME },
    );
    assert.ok(r.inside, `the tooltip of the rightmost node is inside the graph: "${r.text}"`);
    assert.match(r.runText, /^\d[\d,]* events, mostly [a-z ]+ · .+ · click to zoom in$/);
  });

  it('exports the view: a PNG of the graph area, not blank; an SVG with one element per visible node', async () => {
    const png = await evalInWebview<{ w: number; h: number; areaW: number; areaH: number; variance: number }>(
      `async () => {
        const url = await globalThis.__otrace.exportPng();
        const img = new Image();
        await new Promise((r, e) => { img.onload = r; img.onerror = e; img.src = url; });
        const c = document.createElement('canvas');
        c.width = img.width; c.height = img.height;
        const ctx = c.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        let sum = 0, sq = 0, n = 0;
        for (let i = 0; i < d.length; i += 4) { const v = (d[i] + d[i + 1] + d[i + 2]) / 3; sum += v; sq += v * v; n++; }
        const area = document.getElementById('canvas');
        return { w: img.width, h: img.height, areaW: area.clientWidth, areaH: area.clientHeight, variance: sq / n - (sum / n) ** 2 };
      }`,
      { selector: FRAME },
    );
    testLog(`      PNG ${png.w}x${png.h} px (graph area ${png.areaW}x${png.areaH}), pixel variance ${png.variance.toFixed(1)}`);
    assert.equal(png.w, 2 * png.areaW, 'twice the size shown (sharp in a slide or a paper)');
    assert.equal(png.h, 2 * png.areaH);
    assert.ok(png.variance > 20, 'the PNG is not blank');
    const svg = await evalInWebview<{ events: number; visible: number; error: boolean; scripts: number; lanes: number; lanesShown: number }>(
      `() => {
        const { cy, exportSvg } = globalThis.__otrace;
        const doc = new DOMParser().parseFromString(exportSvg(), 'image/svg+xml');
        const w = cy.width(), h = cy.height();
        const visible = cy.nodes().filter((n) => { const p = n.renderedPosition(); return n.visible() && p.x >= -20 && p.x <= w + 20 && p.y >= -20 && p.y <= h + 20; }).length;
        return { events: doc.querySelectorAll('g.event').length, visible, error: !!doc.querySelector('parsererror'), scripts: doc.querySelectorAll('script').length, lanes: doc.querySelectorAll('text.lane').length, lanesShown: [...document.querySelectorAll('#lanes .lane')].filter((l) => getComputedStyle(l).display !== 'none').length };
      }`,
      { selector: FRAME },
    );
    assert.equal(svg.error, false, 'the SVG parses');
    assert.equal(svg.scripts, 0);
    assert.equal(svg.events, svg.visible, 'one element per visible node');
    assert.equal(svg.lanes, svg.lanesShown, 'the lane names shown');
    assert.ok(svg.lanes > 0);
  });

  it("the lane names' column drawn in a wide panel takes at most 30% of it once the panel is narrowed (it kept the wide panel's width)", async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(SESSION), 'otrace.traceGraph');
    await untilGraphSettled(FRAME);
    const widths = () => evalInWebview<{ lanes: number; canvas: number }>(`() => ({ lanes: document.getElementById('lanes').getBoundingClientRect().width, canvas: document.getElementById('canvas').getBoundingClientRect().width })`, { selector: FRAME });
    const atWide = await widths();
    const wide = await until('the graph width', () => graphWidth(FRAME));
    // the trace's text beside it, made the wide one: the graph narrows to a third or so
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(SESSION)), vscode.ViewColumn.Beside);
    await vscode.commands.executeCommand('workbench.action.toggleEditorWidths');
    await untilValue('the graph to narrow', () => graphWidth(FRAME), (w) => typeof w === 'number' && w < wide / 2);
    // (100 px at least: a name needs some room)
    const atNarrow = await untilValue("the lane column's share of the narrowed graph", widths, (w) => w.lanes <= Math.max(100, 0.3 * w.canvas) + 1);
    testLog(`      lane column ${Math.round(atWide.lanes)} of ${Math.round(atWide.canvas)} px wide, ${Math.round(atNarrow.lanes)} of ${Math.round(atNarrow.canvas)} px narrowed`);
    // even widths again, whichever group is active now (a second toggle from the graph's group left it expanded,
    // and a later test's Show in Trace File revealed the record in a minimized group, which took the keyboard)
    await vscode.commands.executeCommand('workbench.action.evenEditorWidths');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

describe('graph lane groups in a real VS Code', function () {
  this.timeout(150_000);
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('past what fits at 10 px a lane, sub-agent lanes fold into named groups that unfold', async () => {
    // An orchestrator with 12 workers, each with 6 helpers: 85 lanes.
    const lines: string[] = [];
    let t = 0;
    for (let w = 0; w < 12; w++) {
      lines.push(JSON.stringify({ id: `s${w}`, t: t++, type: 'spawn', agent: 'orchestrator', to: `worker-${w}` }));
      for (let h = 0; h < 6; h++) {
        lines.push(JSON.stringify({ id: `s${w}.${h}`, t: t++, type: 'spawn', agent: `worker-${w}`, to: `helper-${w}.${h}` }));
        lines.push(JSON.stringify({ id: `m${w}.${h}`, t: t++, type: 'message', agent: `helper-${w}.${h}`, to: `worker-${w}` }));
      }
    }
    lines.push(JSON.stringify({ id: 'stop', t: t++, type: 'stop', agent: 'orchestrator', reason: 'task_complete' }));
    const file = path.join(os.tmpdir(), `otrace-swarm-${process.pid}.otrace.jsonl`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One });
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    const frame = `body[data-state="ready"][data-title="${path.basename(file)}"]`;
    await evalInWebview('1', { selector: frame, timeoutMs: 60_000 });
    await untilGraphSettled(frame);
    const read = () =>
      evalInWebview<{ laneHeight: number; shown: { name: string; more: string; top: number; bottom: number }[]; column: { top: number; bottom: number } }>(
        `() => {
          const { view } = globalThis.__otrace;
          const col = document.getElementById('lanes').getBoundingClientRect();
          const shown = [...document.querySelectorAll('#lanes .lane')].filter((l) => getComputedStyle(l).display !== 'none').map((l) => {
            const r = l.querySelector('.lane-name').getBoundingClientRect();
            return { name: l.querySelector('.lane-name').textContent, more: l.querySelector('.lane-more').textContent, top: r.top, bottom: r.bottom };
          });
          return { laneHeight: view.laneHeight, shown, column: { top: col.top, bottom: col.bottom } };
        }`,
        { selector: frame },
      );
    const v = await read();
    testLog(`      85 lanes: ${v.shown.length} rows of ${v.laneHeight} px in the first view (${v.shown.filter((s) => s.more).length} groups)`);
    assert.ok(v.laneHeight >= 10, `lane height ${v.laneHeight} px`);
    assert.ok(v.shown.length < 85, 'some lanes are folded into groups');
    assert.ok(v.shown.some((s) => s.more), 'a folded group says how many lanes it holds');
    assert.equal(v.shown.length, 13, 'the orchestrator and its 12 workers, each folding its 6 helpers');
    for (const s of v.shown) assert.ok(s.top >= v.column.top - 0.5 && s.bottom <= v.column.bottom + 0.5, `lane ${s.name} is in view`);
    const group = v.shown.find((s) => s.more)!;
    await clickInWebview(`#lanes .lane[data-lane="${group.name}"] .fold`, { frame });
    const after = await untilValue(`the lanes of ${group.name} shown`, read, (now) => now.shown.length !== v.shown.length);
    assert.ok(after.shown.length > v.shown.length, `unfolding ${group.name} shows its lanes`);
    fs.rmSync(file, { force: true });
  });
});

describe('graph labels at the edge of the view', function () {
  this.timeout(90_000);
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  /** Opens a Codex fixture and its graph, fitted; returns the selector of its webview frame. */
  async function openCodexAtFit(name: string): Promise<string> {
    const rollout = path.join(ROOT, 'test', 'fixtures', 'codex', name);
    const frame = `body[data-state="ready"][data-title="${name}"]`;
    await vscode.window.showTextDocument(vscode.Uri.file(rollout), { viewColumn: vscode.ViewColumn.One });
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    await evalInWebview('1', { selector: frame, timeoutMs: 60_000 });
    const ran = await commandsRun(frame);
    await vscode.commands.executeCommand('otrace.graph.fit');
    await untilCommandDrawn(ran, frame, 'Fit, drawn');
    return frame;
  }

  it('a Codex run whose stop is its last event: at Fit the stop is labelled, the label inside the view', async () => {
    const frame = await openCodexAtFit('rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
    const seen = await evalInWebview<{ stop?: { label: boolean; box: Box }; stage: Box }>(
      `() => {
        const { cy } = globalThis.__otrace;
        const g = document.getElementById('graph').getBoundingClientRect();
        const stops = cy.nodes('.stop').sort((a, b) => a.renderedPosition().x - b.renderedPosition().x);
        const n = stops.last();
        const b = n.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false, includeUnderlays: false });
        return { labels: cy.nodes().filter((x) => !x.hasClass('nolabel')).length, lane: globalThis.__otrace.view?.laneHeight, cls: n.classes().join(' '), stop: n.length ? { label: !n.hasClass('nolabel'), box: { x1: g.left + b.x1, x2: g.left + b.x2, y1: g.top + b.y1, y2: g.top + b.y2 } } : undefined, stage: { x1: g.left, x2: g.right, y1: g.top, y2: g.bottom } };
      }`,
      { selector: frame },
    );
    assert.ok(seen.stop, 'the run has a stop drawn');
    assert.ok(seen.stop.label, `the last stop keeps its label at the right edge: ${JSON.stringify(seen)}`);
    assert.ok(seen.stop.box.x2 <= seen.stage.x2 + 0.5 && seen.stop.box.x1 >= seen.stage.x1 - 0.5, `its label is inside the view: ${JSON.stringify(seen)}`);
  });

  it('a Codex run of five turns: when stop labels collide at Fit, the run\'s last stop keeps its label', async () => {
    const frame = await openCodexAtFit('rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
    const seen = await evalInWebview<{ stops: number; labelled: number; lastLabelled: boolean }>(
      `() => {
        const { cy } = globalThis.__otrace;
        const stops = cy.nodes('.stop').sort((a, b) => a.data('index') - b.data('index'));
        return { stops: stops.length, labelled: stops.filter((n) => !n.hasClass('nolabel')).length, lastLabelled: !stops.last().hasClass('nolabel') };
      }`,
      { selector: frame },
    );
    assert.ok(seen.stops >= 3 && seen.labelled < seen.stops, `labels collide here: ${JSON.stringify(seen)}`);
    assert.ok(seen.lastLabelled, `the last stop is labelled: ${JSON.stringify(seen)}`);
    // Each turn end is a hand-back to the user: "turn ended", never a task verdict; nothing in a rollout
    // records success, so no ✓. (The README's Codex picture is taken by readme-pictures.test.ts, of a readable rollout.)
    const turns = await evalInWebview<{ labels: string[]; ok: number }>(`() => { const cy = globalThis.__otrace.cy; return { labels: cy.nodes('.turn-end').map((n) => n.data('label')), ok: cy.nodes('.stop-ok').length }; }`, { selector: frame });
    assert.ok(turns.labels.length >= 3 && turns.labels.every((l) => /^turn ended: /.test(l) && !l.includes('✓')), JSON.stringify(turns));
    assert.equal(turns.ok, 0, 'no check mark without a recorded success');
  });
});
