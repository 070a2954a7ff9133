/**
 * Webview entry: handshake with the host, draw the trace as a timeline graph, the lane column, the
 * time axis, the grouped findings, the timeline bar and the details pane; keys and commands.
 * Everything from the trace is shown with textContent, names and labels with their control and bidi
 * characters shown as `⟨U+202E⟩` (plainLabel); the CSP forbids inline and eval'd script.
 */
import { moment, moments } from './start-moments';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { NodeSingular } from 'cytoscape';
import { unpackOverview } from '../src/shared/overview-columns';
import type { GraphCommand, GraphFinding, GraphNode, GraphOverview, GraphWindow, HostMessage, WebviewMessage } from '../src/shared/protocol';
import { createAxis, formatLength } from './axis';
import { showDetails } from './details';
import { exportPng, exportSvg } from './export';
import { showFindings } from './findings';
import { TraceGraph, type ViewState } from './graph';
import { createLaneColumn } from './lanes';
import { EVENT_CUES } from '../src/shared/cues';
import { creditLabel, creditWorthShowing } from '../src/shared/credit-words';
import { plainLabel } from '../src/shared/untrusted-text';
import { createMinimap } from './minimap';
import { showRunSummary } from './run-summary';
import { showLegend } from './legend';
import { Timeline, type StepTarget } from './timeline';
import { WindowLoader } from './windows';
import './styles.css';

declare function acquireVsCodeApi(): { postMessage(message: WebviewMessage): void; getState(): unknown; setState(state: unknown): void };
const vscode = acquireVsCodeApi();
const post = (m: WebviewMessage) => vscode.postMessage(m);

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let view: TraceGraph | undefined;
let graph: GraphOverview | undefined;
let timeline: Timeline | undefined;
/** Views to go back to with Esc (a finding framed, zoom to selection). */
const history: ViewState[] = [];
/** Saved across hiding the panel and reloading the window (vscode.setState). */
interface SavedState {
  title: string;
  /** The trace's URI: the host restores the panel with it after a window reload. */
  uri?: string;
  view?: ViewState;
  selected?: number;
  follow: boolean;
  /** Keep the newest events in view while the run is still being written. */
  followRun?: boolean;
}
let follow = (vscode.getState() as SavedState | undefined)?.follow ?? true;
let followRun = (vscode.getState() as SavedState | undefined)?.followRun ?? false;
let traceUri: string | undefined = (vscode.getState() as SavedState | undefined)?.uri;

/** Asks the host for windows of the shown trace. */
let loader: WindowLoader | undefined;
/** Events framed by a finding (drawn on their own, class `framed`). */
let framed: number[] = [];
/** Events matching the filter text (undefined: no filter). */
let matches: Set<number> | undefined;
/** The filter text `matches` answer: an older one while the host has not answered the newest. */
let matchesQuery = '';
/** The details pane's event (answer of an `event` request). */
let details: GraphNode | undefined;
/** True until the first window of a trace is on screen. */
let firstWindow = true;

/** Draws a trace's overview; `first`: its window at Fit, drawn at once when the view fits (not when a saved view is restored). */
function render(next: GraphOverview, first?: GraphWindow): void {
  const saved = vscode.getState() as SavedState | undefined;
  // The same trace, grown (a run in progress): the view stays where it was, unless following the run.
  const grew = graph !== undefined && graph.title === next.title && next.totalEvents > graph.totalEvents;
  graph = next;
  timeline?.dispose();
  view?.destroy();
  history.length = 0;
  framed = [];
  matches = undefined;
  details = undefined;
  firstWindow = true;
  highlight = false;
  // Read and analysed: the loading bar goes (the graph is drawn next, in this task).
  if (document.body.dataset.state === 'loading') document.body.dataset.state = 'drawing';
  view = new TraceGraph($('graph'), next);
  const g = view;
  loader = new WindowLoader(
    g,
    (request) => {
      moment('window asked');
      post({ type: 'window', request });
    },
    () => windowApplied(),
  );
  const placeLanes = createLaneColumn($('lanes'), g);
  const drawAxis = createAxis($('axis'), $('gaps'), g);
  const drawMinimap = createMinimap($<HTMLCanvasElement>('minimap'), g);
  let frame = 0;
  g.onViewChange(() => {
    placeLanes();
    // The axis is rebuilt, and a window asked for, at most once a frame.
    if (!frame)
      frame = requestAnimationFrame(() => {
        frame = 0;
        drawAxis();
        drawMinimap();
        placeCursor();
        g.cullLabels();
        loader?.check();
      });
    saveState();
  });
  timeline = new Timeline(next, () => g.rank, (index) => selectIndex(index, 'step'), (playing) => {
    $('play').textContent = playing ? 'Pause' : 'Play';
    $('play').title = playing ? 'Pause (Space)' : 'Play (Space)';
  });
  const { errors, warnings } = next.problems;
  $('title').textContent = plainLabel(next.title); // the file name: untrusted
  $('summary').title = next.traces ? `${next.traces.length} traces in this file, each in its own lane group and analysed on its own: ${next.traces.map((t) => `${plainLabel(t.id)} (${t.events} events, ${t.lanes} lanes)`).join('; ')}` : '';
  $('summary').textContent =
    `${next.format} · ${next.traces ? `${next.traces.length} traces · ` : ''}${next.totalEvents.toLocaleString('en-US')} events · ${next.lanes.length} ${next.lanes.length === 1 ? 'agent' : 'agents'}` +
    // reading problems only: the findings below are listed in Problems too, so say which these are
    (errors + warnings ? ` · ${problemCounts(errors, warnings)} reading the file (see Problems)` : '');
  showRunSummary($('run'), next.run, {
    goTo: (index) => {
      selectIndex(index, 'finding');
      $('canvas').focus({ preventScroll: true }); // the keyboard stays with the graph
    },
  });
  showFindings($('findings'), next.findings, { frame: (events, finding) => frameEvents(events, finding) });
  showLegend($('legend'), next);
  g.cy.on('tap', 'node', (e) => {
    const node = e.target as NodeSingular;
    // A run of events drawn as one bar: zoom into it.
    const run = g.run(node.id());
    if (run) frameRange(run.u0, run.u1, run.lane);
    else selectIndex(node.data('index') as number, 'click');
  });
  g.cy.on('tap', (e) => {
    if (e.target === g.cy) clearCurrent();
  });
  const tip = $('tooltip');
  g.cy.on('mouseover', 'node', (e) => {
    const id = (e.target as NodeSingular).id();
    const run = g.run(id);
    const n = run ? undefined : g.node(id);
    if (run) tip.textContent = `${run.count.toLocaleString('en-US')} events, mostly ${run.kind.replace(/_/g, ' ')} · ${plainLabel(next.lanes[run.lane]?.name ?? '')} · click to zoom in`;
    else if (n) {
      const credit = creditWorthShowing(n.credit) ? ` · ${creditLabel(n.credit, !next.legend.influence)}` : ''; // none that prints as 0.00
      const end = n.endIndex === undefined ? '' : ` · ${formatLength(timeline!.time(n.endIndex) - n.t, next.timeUnit)}`; // steps when the trace has no clock
      const cues = n.cues?.length ? ` · ${n.cues.map((c) => EVENT_CUES[c]?.label ?? c).join(', ')}` : '';
      tip.textContent = `${plainLabel(n.label)}${cues} · ${plainLabel(n.agent)}${end}${credit}`; // untrusted text: textContent only, controls shown
    } else return;
    placeTip(tip, (e.target as NodeSingular).renderedPosition());
  });
  g.cy.on('mouseout', 'node', () => (tip.hidden = true));
  showDetails($('details'), undefined, []);
  g.resized(); // sized now (the ResizeObserver then finds nothing changed: no second drawing)
  const restored = saved?.title === next.title && saved.view && saved.view.mode === g.mode ? saved.view : undefined;
  if (restored) g.restore(restored);
  else {
    g.foldToFit();
    g.fit();
    if (first) loader.preload(first);
  }
  if (saved?.title === next.title && saved.selected !== undefined && saved.selected < next.totalEvents) {
    timeline.setCurrent(saved.selected);
    highlight = true;
    loader.setKeep([saved.selected]);
  }
  if (grew && followRun) showNewest();
  updateTimeline();
  showMode(g.mode);
  moment('overview drawn');
  loader.check();
  (globalThis as { __otrace?: unknown }).__otrace = {
    cy: g.cy,
    graph: next,
    view: g,
    /** Event indices in time order, as a plain array (for tests: a typed array would not cross evaluate as one). */
    timeline: () => Array.from(timeline?.order ?? []),
    status: () => timeline?.status(),
    /** The timeline's current event index. */
    current: () => timeline?.current ?? null,
    /** The index of the node the focus ring marks (the current event drawn on its own), or null. */
    selected: () => selectedNode(),
    /** The Cytoscape key of the node the focus ring marks, or null. */
    selectedKey: () => (selectedNode() === null ? null : `n${selectedNode()}`),
    /** How many loaded elements begin after the current event (dimmed). */
    later: () => laterCount(),
    /** The details pane's event (its id, label, fields), once the host answered. */
    details: () => details,
    /** Windows applied and asked for so far, and whether one is being loaded. */
    windows: () => ({ applied: loader?.applied ?? 0, asked: loader?.asked ?? 0, loading: loader?.loading ?? false, ...g.window }),
    exportPng: () => exportPng(g, $('canvas')),
    exportSvg: () => exportSvg(g, $('canvas')),
  };
  document.body.dataset.title = next.title;
}

/** A window is on screen: the selection, dimming, framing and filter are applied to its elements. */
function windowApplied(): void {
  if (!view || !graph || !timeline) return;
  const g = view;
  const current = timeline.current;
  placeCursor();
  g.cy.batch(() => {
    const keep = new Set(framed.map((i) => g.keyOf(i)).filter((k): k is string => !!k));
    if (framed.length)
      g.cy.nodes().forEach((n) => {
        n.toggleClass('framed', keep.has(n.id()));
      });
  });
  applyFilter();
  placeCursor();
  if (firstWindow) {
    firstWindow = false;
    document.body.dataset.state = 'ready';
    // Two frames later the graph has been painted: tell the host (npm start reports the time).
    moment('first window drawn');
    requestAnimationFrame(() => requestAnimationFrame(() => post({ type: 'painted', events: graph?.totalEvents ?? 0, moments: moments(), size: graphSize() })));
    if (current !== undefined) post({ type: 'event', stamp: graph.stamp, index: current });
  }
}

/** "2 errors, 1 warning": the non-zero counts, each in its number. */
function problemCounts(errors: number, warnings: number): string {
  const part = (n: number, word: string) => (n ? [`${n} ${word}${n === 1 ? '' : 's'}`] : []);
  return [...part(errors, 'error'), ...part(warnings, 'warning')].join(', ');
}

/** Scrolls (no zoom) so that the trace's newest event is in view: following a run in progress. */
function showNewest(): void {
  const last = timeline?.order[timeline.order.length - 1];
  if (view && last !== undefined) view.ensureVisible(last);
}

/** The "in progress" button: shown while the run is being written; pressed, the view follows its newest events. */
function showGrowing(growing: boolean): void {
  const button = $('follow-run');
  button.hidden = !growing;
  button.setAttribute('aria-pressed', String(followRun));
  button.textContent = followRun ? '● in progress · following' : '● in progress';
}
$('follow-run').addEventListener('click', () => {
  followRun = !followRun;
  showGrowing(true);
  if (followRun) showNewest();
  saveState();
});

function saveState(): void {
  if (!graph || !view) return;
  const state: SavedState = { title: graph.title, uri: traceUri, view: view.view(), selected: timeline?.current, follow, followRun };
  vscode.setState(state);
}

/** Frames events (indices, loaded or not) with context; Esc goes back to the view before. */
function frameEvents(events: number[], finding?: number): void {
  if (!view || !graph) return;
  history.push(view.view());
  framed = events.filter((i) => i >= 0 && i < graph!.totalEvents);
  view.frameIndices(framed, 0.25, FINDING_MIN_SHARE);
  view.cy.elements().removeClass('dimmed');
  if (finding !== undefined && events.length) selectIndex(events[0], 'finding');
  else loader?.setKeep(keepList());
  if (finding !== undefined && events.length) {
    const f = graph.findings[finding];
    explained = f;
    showExplained();
  }
}

/** The finding whose text heads the details pane (until the selection moves on). */
let explained: GraphFinding | undefined;

function showExplained(): void {
  if (!explained) return;
  $('details').querySelector('.finding-explained')?.remove();
  const note = document.createElement('p');
  note.className = `finding-explained ${explained.severity}`;
  note.textContent = plainLabel(explained.message); // untrusted text: textContent only, controls shown
  $('details').prepend(note);
}

/** Frames an axis range of one lane (a run bar clicked: zoom into it). */
function frameRange(u0: number, u1: number, lane: number): void {
  if (!view) return;
  history.push(view.view());
  const row = view.row(lane);
  view.frame(u0, u1, row === undefined ? [] : [row], 0.1);
}

/** Esc: back to the view before the last framing. */
function restoreView(): void {
  const v = history.pop();
  if (v && view) view.restore(v);
  framed = [];
  view?.cy.nodes().removeClass('framed');
  loader?.setKeep(keepList());
}

/** Events drawn on their own whatever the level of detail: the current one, then the framed ones. */
function keepList(): number[] {
  const here = timeline?.current;
  return [...(here === undefined ? [] : [here]), ...framed];
}

type SelectSource = 'click' | 'step' | 'host' | 'finding' | 'restore';

/**
 * Makes an event the current one (any event of the trace, loaded or not): scrolls to it, asks for
 * the window that draws it on its own, selects it, dims later events and asks for its details.
 */
function selectIndex(index: number, source: SelectSource): void {
  if (!view || !graph || !timeline || index < 0 || index >= graph.totalEvents) return;
  timeline.setCurrent(index);
  if (source !== 'finding') explained = undefined;
  if (source === 'step' || source === 'host' || source === 'restore') view.ensureVisible(index);
  loader?.setKeep(keepList());
  applyCurrent();
  post({ type: 'event', stamp: graph.stamp, index });
  updateTimeline();
  saveState();
  if (source !== 'host' && source !== 'restore') post({ type: 'selected', index, reveal: follow });
}

/**
 * Marks the current event: the focus ring on it and the events after it dimmed. Both are page
 * elements over the graph (see {@link placeCursor}), so a step redraws no Cytoscape element.
 */
function applyCurrent(): void {
  highlight = true;
  placeCursor();
}

/** The details pane shows an event the host sent (if it is still the current one). */
function showEvent(node: GraphNode): void {
  if (!timeline || node.index !== timeline.current) return;
  details = node;
  const index = node.index;
  const actions: [string, () => void][] = [['Show in Trace File', () => post({ type: 'reveal', index })]];
  if (node.hasSource) actions.push(['Open Source Prompt', () => post({ type: 'openSource', index })]);
  if (node.textLength !== undefined) actions.push(['Show Whole Content', () => post({ type: 'showContent', index })]);
  showDetails($('details'), node, actions);
  showExplained();
  view?.resized(); // the details pane may have just appeared under a narrow graph
}

/** False after a click on the background: no focus ring, nothing dimmed (until the next selection). */
let highlight = false;

function clearCurrent(): void {
  highlight = false;
  placeCursor();
  explained = undefined;
  showDetails($('details'), undefined, []);
}

/**
 * Places the tooltip beside a point of the graph, inside it: to the left of the point when there is
 * no room on its right, below it when there is none above (a label cut at the panel's edge said
 * `stop: task_comp`).
 */
function placeTip(tip: HTMLElement, p: { x: number; y: number }): void {
  tip.hidden = false;
  const box = tip.parentElement?.getBoundingClientRect();
  const width = tip.offsetWidth;
  const right = box ? box.width : Infinity;
  tip.style.left = `${Math.max(0, p.x + 10 + width > right ? p.x - 10 - width : p.x + 10)}px`;
  tip.style.top = `${p.y - 30 < 0 ? p.y + 14 : p.y - 30}px`;
}

/** The counter, the time and the cursor line. */
function updateTimeline(): void {
  if (!timeline) return;
  const { counter, time } = timeline.status();
  $('counter').textContent = counter;
  $('clock').textContent = time;
  placeCursor();
}

/**
 * The cursor line at the current event's time, the focus ring around where the event is drawn (its
 * node, or its place in a run bar) and the veil that dims everything later (right of it). Page
 * elements over the canvas: moving them costs no Cytoscape redraw.
 */
function placeCursor(): void {
  const cursor = $('cursor');
  const focus = $('focus');
  const veil = $('later');
  const here = timeline?.current;
  if (!view || !graph || here === undefined) {
    cursor.hidden = focus.hidden = veil.hidden = true;
    return;
  }
  const x = view.screenX(view.spanOf(here)[0]);
  cursor.style.left = `${x}px`;
  cursor.hidden = false;
  const box = highlight ? view.eventBox(here) : undefined;
  focus.hidden = !box;
  if (box) {
    focus.style.left = `${box.x1 - FOCUS_PAD}px`;
    focus.style.top = `${box.y1 - FOCUS_PAD}px`;
    focus.style.width = `${box.x2 - box.x1 + 2 * FOCUS_PAD}px`;
    focus.style.height = `${box.y2 - box.y1 + 2 * FOCUS_PAD}px`;
  }
  veil.hidden = !highlight;
  // From the right edge of the current event's point (a node is centred on its time).
  veil.style.left = `${Math.max(0, x + (box && box.x2 - box.x1 < 30 ? (box.x2 - box.x1) / 2 : 0) + 1)}px`;
}

/**
 * A finding is framed in at least this share of the run: its events with what happened around them
 * (a one-event finding zoomed to 60 ms of a 4 s run, every lane empty).
 */
const FINDING_MIN_SHARE = 1 / 20;

/** Room between an event and its focus ring, in px. */
const FOCUS_PAD = 4;

/** The loaded elements (event nodes and run bars) that begin after the current event (under the veil): for tests. */
function laterCount(): number {
  const here = timeline?.current;
  if (!view || here === undefined || !highlight) return 0;
  const rank = view.rank[here];
  let n = 0;
  for (const node of view.loadedNodes()) if (node.order > rank) n++;
  for (const run of view.loadedRuns()) if (run.order > rank) n++;
  return n;
}

/** The event index of the node the focus ring is on when the current event is drawn on its own (for tests), else null. */
function selectedNode(): number | null {
  const here = timeline?.current;
  if (!view || here === undefined || !highlight) return null;
  const node = view.nodeOfIndex(here);
  return node ? (node.data('index') as number) : null;
}

function step(target: StepTarget): void {
  timeline?.step(target);
}

/** Zoom to the selection: its event with its neighbours in time. */
function zoomToSelection(): void {
  if (!view || !graph || !timeline || timeline.current === undefined) return;
  const pos = timeline.position;
  const around = Array.from(timeline.order.subarray(Math.max(0, pos - 5), pos + 6));
  history.push(view.view());
  view.frameIndices(around, 0.05);
}

function fit(): void {
  view?.fit();
}

/** Runs a command from the palette or a key. */
function run(command: GraphCommand): void {
  switch (command) {
    case 'fit':
      return fit();
    case 'zoomToSelection':
      return zoomToSelection();
    case 'playPause':
      timeline?.togglePlay();
      return;
    case 'toggleAxis':
      return setMode(view?.mode === 'time' ? 'order' : 'time');
    case 'back':
      return restoreView();
    case 'exportPng':
      if (view) void exportPng(view, $('canvas')).then((data) => post({ type: 'export', format: 'png', data }));
      return;
    case 'exportSvg':
      if (view) post({ type: 'export', format: 'svg', data: exportSvg(view, $('canvas')) });
      return;
    default:
      return step(command);
  }
}

function setMode(mode: 'time' | 'order'): void {
  view?.setMode(mode);
  showMode(mode);
}

/** The axis button's text and title for `mode`. */
function showMode(mode: 'time' | 'order'): void {
  $('mode').textContent = mode === 'time' ? 'x: time' : 'x: event order';
  const clock = graph?.timeUnit === 'steps' ? 'x is the step number (the trace records no clock)' : 'x is time (idle gaps shortened)';
  $('mode').title = mode === 'time' ? `${clock}; click for event order (T)` : 'x is event order; click for time (T)';
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  if (m.type === 'trace' || m.type === 'traceJson') {
    moment('graph received');
    traceUri = m.uri ?? traceUri;
    showLock(m.locked);
    showGrowing(m.growing ?? false);
    render(m.type === 'trace' ? m.graph : unpackOverview(m.json, m.columns), m.first);
  } else if (m.type === 'window') {
    moment('window received');
    loader?.receive(m.window);
  }
  else if (m.type === 'event') {
    if (m.stamp === graph?.stamp) showEvent(m.node);
  } else if (m.type === 'found') {
    if (m.stamp === graph?.stamp && m.query === filterText) {
      matches = new Set(m.indices);
      matchesQuery = m.query;
      applyFilter();
      if (jumpWhenFound !== undefined) jumpToMatch(jumpWhenFound);
      jumpWhenFound = undefined;
    }
  } else if (m.type === 'loading') showLoading(m.title);
  else if (m.type === 'locked') showLock(m.locked);
  else if (m.type === 'explain' && graph?.findings[m.finding]) frameEvents(graph.findings[m.finding].events, m.finding);
  else if (m.type === 'showLane' && view && graph) {
    const lane = graph.lanes.findIndex((l) => (l.agent ?? l.name) === m.agent); // several traces: the agent's first lane
    const { byTime, lane: laneOf } = graph.columns;
    const first = byTime.find((i) => laneOf[i] === lane);
    const last = [...byTime].reverse().find((i) => laneOf[i] === lane);
    if (first !== undefined && last !== undefined) frameEvents(first === last ? [first] : [first, last]);
  } else if (m.type === 'select') selectIndex(m.index, 'host');
  else if (m.type === 'command') run(m.command);
});

/**
 * The graph owns its keyboard: a press anywhere in the graph (the canvas included: Cytoscape
 * cancels the mouse's default action, which would leave the focus in the text editor) focuses the
 * graph, so the keys that follow reach the graph and never a document.
 */
function takeFocus(e: Event): void {
  const target = e.target as HTMLElement;
  if (target.closest('vscode-textfield, vscode-button, button, input, label, a')) return;
  $('canvas').focus({ preventScroll: true });
}
document.addEventListener('pointerdown', takeFocus, true);
document.addEventListener('mousedown', takeFocus, true);

const KEYS: Record<string, GraphCommand> = {
  ArrowRight: 'next',
  ArrowLeft: 'previous',
  'Shift+ArrowRight': 'nextOfAgent',
  'Shift+ArrowLeft': 'previousOfAgent',
  Home: 'first',
  End: 'last',
  s: 'nextStop',
  'Shift+S': 'previousStop',
  n: 'nextFinding',
  'Shift+N': 'previousFinding',
  ' ': 'playPause',
  f: 'fit',
  'Shift+F': 'fit',
  z: 'zoomToSelection',
  t: 'toggleAxis',
  Escape: 'back',
};

document.addEventListener('keydown', (e) => {
  if ((e.target as Partial<HTMLElement>).closest?.('vscode-textfield, input')) return;
  // Ctrl+F (Cmd+F) or / : to the filter box, as in an editor (the letters typed next must not run graph keys)
  if (((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'f') || (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey)) {
    e.preventDefault();
    $('search').focus();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  // Enter on the current event: Show in Trace File (beside the graph; the keyboard stays here)
  if (e.key === 'Enter' && (e.target as Partial<HTMLElement>).closest?.('button, vscode-button') == null) {
    // the current event itself, not the node drawing it (a tool result is drawn in its call's bar)
    const index = highlight ? (timeline?.current ?? null) : null;
    if (index !== null) {
      e.preventDefault();
      post({ type: 'reveal', index });
    }
    return;
  }
  const key = e.key.length === 1 && !e.shiftKey ? e.key.toLowerCase() : e.key;
  const command = KEYS[e.shiftKey && key !== ' ' ? `Shift+${key.length === 1 ? key.toUpperCase() : key}` : key] ?? KEYS[key.toLowerCase()];
  if (!command) return;
  e.preventDefault();
  run(command);
});

const buttons: [string, GraphCommand][] = [
  ['first', 'first'],
  ['prev', 'previous'],
  ['play', 'playPause'],
  ['next', 'next'],
  ['last', 'last'],
  ['prev-agent', 'previousOfAgent'],
  ['next-agent', 'nextOfAgent'],
  ['next-stop', 'nextStop'],
  ['next-finding', 'nextFinding'],
  ['fit', 'fit'],
  ['zoom-sel', 'zoomToSelection'],
  ['export-png', 'exportPng'],
  ['export-svg', 'exportSvg'],
];
for (const [id, command] of buttons) $(id).addEventListener('click', () => run(command));
$('mode').addEventListener('click', () => run('toggleAxis'));
const followBox = $<HTMLInputElement>('follow');
followBox.checked = follow;
followBox.addEventListener('change', () => {
  follow = followBox.checked;
  saveState();
});
$<HTMLSelectElement>('speed').addEventListener('change', (e) => {
  if (!timeline) return;
  timeline.speed = Number((e.target as HTMLSelectElement).value) || 4;
  if (timeline.playing) {
    timeline.togglePlay();
    timeline.togglePlay();
  }
});

/** The filter text the host was asked about (its answer must match it). */
let filterText = '';

/** Asks the host for the events matching `text` (the whole trace, loaded or not). */
function filter(text: string): void {
  if (!graph) return;
  filterText = text.trim().toLowerCase();
  if (!filterText) {
    matches = undefined;
    applyFilter();
    return;
  }
  post({ type: 'find', stamp: graph.stamp, query: filterText });
}

/** True while elements may carry the filter's `dimmed` class. */
let filterShown = false;

/** Dims the loaded elements that hold no match (a run bar holding one stays bright). */
function applyFilter(): void {
  if (!view) return;
  const g = view;
  g.cy.batch(() => {
    if (!matches) {
      if (filterShown) g.cy.elements().removeClass('dimmed');
      filterShown = false;
      $('matches').textContent = '';
      return;
    }
    filterShown = true;
    g.cy.elements().removeClass('dimmed');
    const hit = new Set<string>();
    for (const i of matches) {
      const key = g.keyOf(i);
      if (key) hit.add(key);
    }
    const count = `${matches.size.toLocaleString('en-US')} ${matches.size === 1 ? 'match' : 'matches'}`;
    $('search').title = matches.size === 0 ? 'No event matches' : `${count}: Enter goes to the next, Shift+Enter to the previous, Esc back to the graph`;
    $('matches').textContent = matches.size === 0 ? 'no event matches' : count;
    g.cy.nodes().forEach((n) => {
      if (!hit.has(n.id())) n.addClass('dimmed');
    });
    g.cy.edges().addClass('dimmed');
  });
}
let filterTimer: ReturnType<typeof setTimeout> | undefined;
$('search').addEventListener('input', (e) => {
  // Wait for a pause in typing: the host searches every event.
  clearTimeout(filterTimer);
  const value = (e.target as HTMLInputElement).value ?? '';
  filterTimer = setTimeout(() => filter(value), 200);
});
/** Set when Enter was pressed before the host's answer to the filter arrived: where to go once it does. */
let jumpWhenFound: 1 | -1 | undefined;

/** Selects the next (or previous) matching event in time order, as → would, and shows it. */
function jumpToMatch(dir: 1 | -1): void {
  if (!matches || matches.size === 0 || !timeline) return;
  timeline.stepAmong(matches, dir);
  const place = timeline.placeAmong(matches);
  if (place > 0) $('matches').textContent = `${place.toLocaleString('en-US')} of ${matches.size.toLocaleString('en-US')} matches`;
}

// In the filter box: Enter / Shift+Enter step through the matches, Esc gives the keyboard back to the graph.
$('search').addEventListener('keydown', (e) => {
  const key = e as KeyboardEvent;
  if (key.key === 'Escape') {
    key.preventDefault();
    $('canvas').focus();
    return;
  }
  if (key.key !== 'Enter') return;
  key.preventDefault();
  const dir = key.shiftKey ? -1 : 1;
  const value = String(($('search') as HTMLInputElement).value ?? '').trim().toLowerCase();
  if (value !== filterText) {
    // typed faster than the pause the box waits for: ask now, go once the answer is in
    clearTimeout(filterTimer);
    jumpWhenFound = dir;
    filter(value);
  } else if (matchesQuery !== value) jumpWhenFound = dir; // asked, not answered yet: the matches shown are an older text's
  else jumpToMatch(dir);
});
new ResizeObserver(() => view?.resized()).observe($('graph'));

/** The Lock button of side panels: hidden in the custom editor (`locked` undefined). */
function showLock(locked: boolean | undefined): void {
  const button = $('lock');
  button.hidden = locked === undefined;
  button.textContent = locked ? 'Locked' : 'Lock';
  button.title = locked ? 'This panel stays on this trace; click to follow the active trace editor again' : 'This panel follows the active trace editor; click to keep it on this trace';
}
$('lock').addEventListener('click', () => post({ type: 'toggleLock' }));

/** Loading: the state and the seconds since it began, until the trace arrives. */
let loadingTimer: ReturnType<typeof setInterval> | undefined;
function showLoading(title?: string): void {
  timeline?.dispose();
  view?.destroy();
  view = undefined;
  graph = undefined;
  timeline = undefined;
  loader = undefined;
  document.body.dataset.state = 'loading';
  if (title) {
    $('title').textContent = `Loading ${plainLabel(title)}…`;
    document.body.dataset.title = '';
  }
  for (const id of ['findings', 'legend', 'lanes', 'axis', 'gaps']) $(id).replaceChildren();
  $('summary').textContent = '';
  const started = Date.now();
  $('elapsed').textContent = '';
  clearInterval(loadingTimer);
  loadingTimer = setInterval(() => {
    if (document.body.dataset.state !== 'loading') return clearInterval(loadingTimer);
    $('elapsed').textContent = `${Math.round((Date.now() - started) / 1000)} s`;
  }, 500);
}
/** The graph area's size in px (the host keeps it to send the next graph's first window). */
function graphSize(): { width: number; height: number } {
  const { width, height } = $('graph').getBoundingClientRect();
  return { width: Math.round(width), height: Math.round(height) };
}

showLoading();
post({ type: 'ready' });
