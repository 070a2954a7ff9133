/**
 * The main job in a real VS Code: open a trace, run "Open Trace Graph to the Side", and check the
 * webview's Cytoscape state through the browser: one node per event, a lane per agent, the stop
 * event styled on its own. Also the custom editor, diagnostics. (The README pictures: readme-pictures.test.ts.)
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clickInWebview, evalInWebview, screenshot, testLog } from './bridge';
import { postAsHost, until, untilInWebview, untilValue } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;

/** What the webview's Cytoscape instance holds, read in the webview itself. */
interface GraphState {
  /** Events in the trace (the overview's count). */
  nodes: number;
  /** Cytoscape nodes: one per event, but a tool call and its result share one bar. */
  eventNodes: number;
  /** Results drawn inside their call's bar. */
  inBars: number;
  agents: string[];
  laneLabels: string[];
  /** agent -> distinct y positions of its nodes (rounded). */
  laneYs: Record<string, number[]>;
  /** agent -> the y range of its lane (its rows, graph px before pan). */
  laneBoxes: Record<string, { top: number; height: number }>;
  shapes: Record<string, string>;
  colors: Record<string, string>;
  stopClassed: string[];
  loopNodes: string[];
  findings: string[];
  /** event id -> event index (the key of every message). */
  indexOf: Record<string, number>;
}

const READ_STATE = `() => {
  const { cy, graph } = globalThis.__otrace;
  const laneYs = {};
  const shapes = {};
  const colors = {};
  const indexOf = {};
  cy.nodes().forEach((n) => {
    indexOf[n.data('eventId')] = n.data('index');
    const agent = n.data('agent');
    const y = Math.round(n.position('y'));
    laneYs[agent] = [...new Set([...(laneYs[agent] || []), y])];
    shapes[n.data('eventId')] = n.style('shape');
    colors[n.data('eventId')] = n.style('background-color');
  });
  return {
    nodes: graph.totalEvents,
    eventNodes: cy.nodes('.event').length,
    inBars: graph.columns.end.filter((e) => e >= 0).length,
    agents: [...new Set(cy.nodes().map((n) => n.data('agent')))],
    laneLabels: [...document.querySelectorAll('#lanes .lane .lane-name')].map((l) => l.textContent),
    laneYs, shapes, colors, indexOf,
    laneBoxes: Object.fromEntries(graph.lanes.map((l, i) => [l.agent ?? l.name, globalThis.__otrace.view.laneBox(i)]).filter(([, b]) => b)),
    stopClassed: cy.nodes('.stop').map((n) => n.data('eventId')),
    loopNodes: cy.nodes('.loop').map((n) => n.data('eventId')),
    findings: [...document.querySelectorAll('#findings .finding')].map((b) => b.textContent),
  };
}`;

async function closeAll(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** Opens `file` in a text editor, runs the command, and reads the graph of that file. */
async function openGraphToSide(file: string): Promise<GraphState> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
  const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('otrace.openGraphToSide');
  assert.ok(panel, 'the command returns its webview panel');
  // A panel opened "Beside" learns its column with its first view-state change.
  const column = await until('the panel to learn its column', () => panel.viewColumn);
  assert.equal(column, vscode.ViewColumn.Two, 'the graph opens beside the trace');
  return evalInWebview<GraphState>(READ_STATE, { selector: `body[data-state="ready"][data-title="${path.basename(file)}"]`, timeoutMs: 40_000 });
}

/** Every agent has exactly one lane label, and its nodes sit inside its lane (its rows), a band of y distinct from the others. */
function assertLanes(state: GraphState, agents: string[]): void {
  assert.deepEqual(state.agents, agents);
  assert.deepEqual(state.laneLabels, agents);
  const bands = agents.map((a) => Math.min(...state.laneYs[a]));
  assert.equal(new Set(bands).size, agents.length, `lanes overlap: ${JSON.stringify(state.laneYs)}`);
  for (const a of agents) {
    const ys = state.laneYs[a];
    const lane = state.laneBoxes[a];
    assert.ok(lane, `lane ${a} is shown`);
    for (const y of ys) assert.ok(y > lane.top && y < lane.top + lane.height, `the nodes of ${a} leave their lane: ${ys} not in ${JSON.stringify(lane)}`);
  }
}

/** The run summary's rows shown, whether it is cut (a scroll box), and whether the legend is shown. */
const HEADER = `() => {
  const run = document.getElementById('run');
  const rows = [...run.querySelectorAll('.run-row')].filter((r) => r.querySelector('.run-key').getClientRects().length > 0).map((r) => r.dataset.key);
  // the last control below the graph in view (a short panel pushed "finding ▶" and "follow in editor" out)
  const controls = [...document.querySelectorAll('#timeline button, #timeline label')].every((b) => b.getBoundingClientRect().bottom <= window.innerHeight + 0.5);
  return { rows, cut: run.scrollHeight > run.clientHeight + 1, legend: document.getElementById('legend').getClientRects().length > 0, controls };
}`;

describe('trace graph in a real VS Code', function () {
  this.timeout(120_000);
  before(closeAll);
  afterEach(closeAll);
  after(() => vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility'));

  it("opens the demo trace's graph to the side: a node per event, a lane per agent, the stop styled", async () => {
    const state = await openGraphToSide(path.join(ROOT, 'samples', 'demo.otrace.jsonl'));
    assert.equal(state.nodes, 35);
    assert.equal(state.inBars, 4, 'the four tool calls and their results are four bars');
    assert.equal(state.eventNodes, 31);
    assertLanes(state, ['orchestrator', 'planner', 'researcher', 'web_searcher', 'writer', 'critic']);
    assert.deepEqual(state.stopClassed, ['e35']);
    assert.equal(state.shapes.e35, 'octagon');
    const otherShapes = Object.entries(state.shapes).filter(([id, s]) => id !== 'e35' && s === 'octagon');
    assert.deepEqual(otherShapes, [], 'only the stop event is an octagon');
    for (const id of ['e14', 'e18', 'e22']) assert.ok(state.loopNodes.includes(id), `the repeated web.search call ${id} is drawn as a loop member`);
    assert.ok(state.findings.length > 0, 'the analysis findings are listed above the graph');
    const stopColor = state.colors.e35;
    const sameColor = Object.entries(state.colors).filter(([id, c]) => id !== 'e35' && c === stopColor && state.shapes[id] !== 'octagon');
    assert.deepEqual(sameColor, [], 'no other event has the stop color');
    // More room for the graph (the sidebar comes back after these tests); the stop event selected, its details shown.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    const frame = 'body[data-title="demo.otrace.jsonl"]';
    await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${state.indexOf.e35} }`, frame);
    // the details come from the engine: wait for them
    const shown = await untilInWebview<string>('the details of the stop', `() => document.querySelector('#details h2')?.textContent`, frame);
    assert.equal(shown, 'stop: quality met');
    // the grey lines between lanes (causal links into the stop and the aggregate) are in the legend, with a grey line as swatch
    const link = await untilInWebview<{ text: string; title: string; line: string }>(
      "the legend's link entry",
      `() => { const i = [...document.querySelectorAll('#legend .legend-item')].find((x) => x.textContent.startsWith('link')); return i && { text: i.textContent, title: i.title, line: getComputedStyle(i.querySelector('.edge-swatch')).borderTopStyle }; }`,
      frame,
    );
    assert.equal(link.text, 'link →');
    assert.match(link.title, /^a grey line: a link the trace records between events of two lanes \(causal, aggregate\); not a hand-off$/);
    assert.equal(link.line, 'solid');
  });

  it('keeps the graph at least half the panel when the Problems panel squeezes it: the run summary says what was asked, how it ended and what went wrong, whole (no scroll box), the legend and the Who and Spent rows come back with the room', async () => {
    await openGraphToSide(path.join(ROOT, 'samples', 'demo.otrace.jsonl'));
    const frame = 'body[data-title="demo.otrace.jsonl"]';
    const measure = `() => ({ body: document.body.clientHeight, main: document.querySelector('#main').getBoundingClientRect().height })`;
    const before = await evalInWebview<{ body: number; main: number }>(measure, { selector: frame });
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    try {
      const squeezed = await until('the graph panel to get shorter', async () => {
        const now = await evalInWebview<{ body: number; main: number }>(measure, { selector: frame });
        return now.body < before.body * 0.9 ? now : undefined;
      });
      assert.ok(squeezed.main >= squeezed.body * 0.5 - 1, `the graph got ${squeezed.main} of ${squeezed.body} px (before the Problems panel: ${before.main} of ${before.body})`);
      const header = await evalInWebview<{ rows: string[]; cut: boolean; legend: boolean }>(HEADER, { selector: frame });
      if (squeezed.body <= 600) assert.deepEqual(header, { rows: ['Asked', 'Ended', 'Problems'], cut: false, legend: false, controls: true }, `a short panel (${squeezed.body} px)`);
      else testLog(`graph: the panel with Problems open is ${squeezed.body} px high, not short (600 px or less): its header as when tall`);
      // the Problems panel made taller: a strip of a graph panel keeps its controls in view
      await vscode.commands.executeCommand('workbench.action.focusPanel');
      for (let k = 0; k < 4; k++) await vscode.commands.executeCommand('workbench.action.increaseViewSize');
      const strip = await until('the graph panel to get shorter still', async () => {
        const now = await evalInWebview<{ body: number; main: number }>(measure, { selector: frame });
        return now.body < squeezed.body * 0.85 ? now : undefined;
      });
      testLog(`graph: with a taller Problems panel the graph panel is ${strip.body} px high, its graph ${Math.round(strip.main)} px`);
      assert.deepEqual(await evalInWebview(HEADER, { selector: frame }), { rows: ['Asked', 'Ended', 'Problems'], cut: false, legend: false, controls: true }, `a strip of ${strip.body} px`);
      assert.ok(strip.main >= 60, `the graph keeps some room: ${strip.main} px`);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closePanel');
    }
    const tall = await until('the graph panel to get its height back', async () => {
      const now = await evalInWebview<{ body: number; main: number }>(measure, { selector: frame });
      return now.body >= before.body * 0.95 ? now : undefined;
    });
    if (tall.body > 600) assert.deepEqual(await evalInWebview(HEADER, { selector: frame }), { rows: ['Asked', 'Ended', 'Who', 'Spent', 'Problems'], cut: false, legend: true, controls: true });
  });

  it("opens the survey's example trace: 8 nodes, 4 lanes, no stop node", async () => {
    const state = await openGraphToSide(path.join(ROOT, 'test', 'fixtures', 'survey', 'example_trace.json'));
    assert.equal(state.nodes, 8);
    assertLanes(state, ['orchestrator', 'planner_1', 'executor_1', 'browser.search']);
    assert.deepEqual(state.stopClassed, []);
  });

  it('opens a trace in the "Orchestration Trace Graph" custom editor', async () => {
    const uri = vscode.Uri.file(path.join(ROOT, 'samples', 'survey-example.json'));
    await vscode.commands.executeCommand('vscode.openWith', uri, 'otrace.traceGraph');
    const nodes = await evalInWebview<number>('() => globalThis.__otrace.graph.totalEvents', {
      selector: 'body[data-state="ready"][data-title="survey-example.json"]',
      timeoutMs: 40_000,
    });
    assert.equal(nodes, 8);
  });

  it('puts the problems of a broken trace in the Problems panel, positioned', async () => {
    const uri = vscode.Uri.file(path.join(ROOT, 'test', 'fixtures', 'broken', 'duplicate-id.otrace.json'));
    await vscode.window.showTextDocument(uri);
    const diagnostics = await untilValue('the problems of the broken trace', () => vscode.languages.getDiagnostics(uri), (ds) => ds.some((d) => d.source === 'otrace'));
    // reader problems only (analysis findings carry a code)
    const problems = diagnostics.filter((d) => d.source === 'otrace' && d.code === undefined).map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`);
    assert.deepEqual(problems, ['4:12 duplicate event id "a": both events are kept; a "causes" or "parent" naming it means the nearest earlier one', '7:25 edge dst "zz" is not an event of this trace']);
  });

  it('several traces in one file: the header names the count, one lane group per trace', async () => {
    const file = path.join(ROOT, 'test', 'fixtures', 'several-traces', 'two-runs.otrace.jsonl');
    await openGraphToSide(file);
    const seen = await evalInWebview<{ summary: string; groups: string[]; lanes: string[]; laneTraces: string[] }>(
      `() => ({
        summary: document.getElementById('summary').textContent,
        groups: [...document.querySelectorAll('#lanes .lane.group-start .lane-trace')].map((t) => t.textContent),
        lanes: [...document.querySelectorAll('#lanes .lane .lane-name')].map((l) => l.textContent),
        laneTraces: globalThis.__otrace.cy.nodes('.event').map((n) => globalThis.__otrace.graph.lanes[n.data('lane')].name.split(' · ').pop() + '/' + n.position('y')),
      })`,
      { selector: 'body[data-state="ready"][data-title="two-runs.otrace.jsonl"]' },
    );
    assert.match(seen.summary, /· 2 traces ·/);
    assert.deepEqual(seen.groups, ['run-a', 'run-b']);
    assert.deepEqual(seen.lanes, ['orchestrator · run-a', 'worker · run-a', 'orchestrator · run-b', 'worker · run-b']);
    // Every node of run-a is drawn above every node of run-b: the groups do not mix.
    const ys = (t: string) => seen.laneTraces.filter((x) => x.startsWith(`${t}/`)).map((x) => Number(x.split('/')[1]));
    assert.ok(Math.max(...ys('run-a')) < Math.min(...ys('run-b')), JSON.stringify(seen.laneTraces));
  });

  it('the legend names each new kind present and its nodes carry its glyph', async () => {
    const file = path.join(ROOT, 'test', 'fixtures', 'cases', '14-interrupt-marker-variants.jsonl');
    await openGraphToSide(file);
    const seen = await evalInWebview<{ legend: string[]; denied: { image: string; classes: string }[]; tip: string }>(
      `() => {
        const { cy } = globalThis.__otrace;
        const denied = cy.nodes('.cue-denied').map((n) => ({ image: String(n.style('background-image')), classes: n.classes().join(' ') }));
        const first = cy.nodes('.cue-denied')[0];
        first.emit('mouseover');
        return {
          legend: [...document.querySelectorAll('#legend .legend-item')].filter((i) => i.querySelector('.cue')).map((i) => i.textContent + ' | ' + i.title),
          denied,
          tip: document.getElementById('tooltip').textContent,
        };
      }`,
      { selector: 'body[data-state="ready"][data-title="14-interrupt-marker-variants.jsonl"]' },
    );
    assert.ok(seen.legend.some((l) => l.startsWith('interruption | interruption: the user interrupted the run')), seen.legend.join('\n'));
    assert.ok(seen.legend.some((l) => l.startsWith('denied call | denied call: the user refused this tool call')), seen.legend.join('\n'));
    assert.ok(!seen.legend.some((l) => l.startsWith('open span')), 'only the kinds present are listed');
    assert.ok(seen.denied.length >= 1, 'the refused call is drawn with the denied cue');
    for (const d of seen.denied) assert.match(d.image, /data:image\/svg\+xml/, 'its glyph is drawn on the node');
    assert.match(seen.tip, /denied call/, 'the hover names it in plain words');
    await screenshot('test-output/kinds.png');
  });

  it('large content: the details show a preview, Show Whole Content opens all of it in an editor', async () => {
    const file = path.join(ROOT, 'test', 'fixtures', 'large-content', 'long-result.otrace.jsonl');
    await openGraphToSide(file);
    const frame = 'body[data-state="ready"][data-title="long-result.otrace.jsonl"]';
    await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: 1 }`, frame);
    // the details come from the engine: wait for them
    const clicked = await untilInWebview<{ preview: string; buttons: string[] }>(
      'the details of the long result',
      `() => {
        const buttons = [...document.querySelectorAll('#details .actions vscode-button')];
        return buttons.length > 0 && { preview: document.querySelector('#details pre')?.textContent ?? '', buttons: buttons.map((b) => b.textContent) };
      }`,
      frame,
    );
    assert.ok(clicked.buttons.includes('Show Whole Content'), clicked.buttons.join(', '));
    // A real click, as a user's, on that button (Label… may follow it).
    await clickInWebview(`#details .actions vscode-button:nth-of-type(${clicked.buttons.indexOf('Show Whole Content') + 1})`, { frame });
    assert.ok(clicked.preview.length < 2_200 && !clicked.preview.includes('LAST LINE'), 'the details show a preview');
    const doc = await until('a read-only document with the whole content', () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'otrace-content'));
    assert.ok(doc.getText().endsWith('LAST LINE') && doc.getText().length > 17_000, `whole content: ${doc.getText().length} characters`);
    await until('the whole content shown in an editor', () => vscode.window.visibleTextEditors.some((e) => e.document.uri.scheme === 'otrace-content'));
  });
});
