/**
 * Webview entry: handshake with the host, draw the trace as a timeline graph, the lane column, the
 * time axis, the grouped findings, the timeline bar and the details pane; keys and commands.
 * Everything from the trace is shown with textContent; the CSP forbids inline and eval'd script.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { NodeSingular } from 'cytoscape';
import type { GraphCommand, GraphModel, HostMessage, WebviewMessage } from '../src/protocol';
import { createAxis } from './axis';
import { showDetails } from './details';
import { exportPng, exportSvg } from './export';
import { showFindings } from './findings';
import { TraceGraph, type ViewState } from './graph';
import { createLaneColumn } from './lanes';
import { EVENT_CUES } from '../src/panel/cues';
import { createMinimap } from './minimap';
import { showLegend } from './legend';
import { Timeline, type StepTarget } from './timeline';
import './styles.css';

declare function acquireVsCodeApi(): { postMessage(message: WebviewMessage): void; getState(): unknown; setState(state: unknown): void };
const vscode = acquireVsCodeApi();
const post = (m: WebviewMessage) => vscode.postMessage(m);

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let view: TraceGraph | undefined;
let graph: GraphModel | undefined;
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
}
let follow = (vscode.getState() as SavedState | undefined)?.follow ?? true;
let traceUri: string | undefined = (vscode.getState() as SavedState | undefined)?.uri;

function render(next: GraphModel): void {
  const saved = vscode.getState() as SavedState | undefined;
  graph = next;
  timeline?.dispose();
  view?.destroy();
  history.length = 0;
  view = new TraceGraph($('graph'), next);
  const g = view;
  const placeLanes = createLaneColumn($('lanes'), g);
  dimFrom = Infinity;
  byOrder = g.cy
    .nodes()
    .map((ele) => ({ order: g.node(ele.id())?.order ?? 0, ele: ele as NodeSingular }))
    .sort((a, b) => a.order - b.order);
  const drawAxis = createAxis($('axis'), $('gaps'), g);
  const drawMinimap = createMinimap($<HTMLCanvasElement>('minimap'), g);
  let frame = 0;
  g.onViewChange(() => {
    placeLanes();
    // The axis is rebuilt at most once a frame.
    if (!frame)
      frame = requestAnimationFrame(() => {
        frame = 0;
        drawAxis();
        drawMinimap();
        placeCursor();
        g.cullLabels();
      });
    saveState();
  });
  timeline = new Timeline(next, (index) => selectIndex(index, 'step'), (playing) => {
    $('play').textContent = playing ? 'Pause' : 'Play';
    $('play').title = playing ? 'Pause (Space)' : 'Play (Space)';
  });
  const { errors, warnings } = next.problems;
  $('title').textContent = next.title;
  $('summary').title = next.traces ? `${next.traces.length} traces in this file, each in its own lane group and analysed on its own: ${next.traces.map((t) => `${t.id} (${t.events} events, ${t.lanes} lanes)`).join('; ')}` : '';
  $('summary').textContent =
    `${next.format} · ${next.traces ? `${next.traces.length} traces · ` : ''}${next.nodes.length < next.totalEvents ? `first ${next.nodes.length} of ${next.totalEvents}` : next.nodes.length} events · ${next.lanes.length} agents` +
    (errors + warnings ? ` · ${errors} errors, ${warnings} warnings (see Problems)` : '');
  showFindings($('findings'), next.findings, { frame: (events, finding) => frameEvents(events, finding) });
  showLegend($('legend'), next);
  g.cy.on('tap', 'node', (e) => {
    const node = e.target as NodeSingular;
    // A run of events drawn as one bar: zoom into it.
    if (node.hasClass('run')) frameEvents(g.runMembers(node.id()).map((id) => Number(id.slice(1))));
    else selectIndex(node.data('index') as number, 'click');
  });
  g.cy.on('tap', (e) => {
    if (e.target === g.cy) clearCurrent();
  });
  const tip = $('tooltip');
  g.cy.on('mouseover', 'node', (e) => {
    const n = g.node((e.target as NodeSingular).id());
    if (!n) return;
    const credit = n.credit === undefined ? '' : ` · credit ${n.credit.toFixed(3)}`;
    const end = n.endIndex === undefined ? '' : ` · ${(next.nodes[n.endIndex].t - n.t).toFixed(2)} s`;
    const cues = n.cues?.length ? ` · ${n.cues.map((c) => EVENT_CUES[c]?.label ?? c).join(', ')}` : '';
    tip.textContent = `${n.label}${cues} · ${n.agent}${end}${credit}`; // untrusted text: textContent only
    const p = (e.target as NodeSingular).renderedPosition();
    tip.style.left = `${p.x + 10}px`;
    tip.style.top = `${p.y - 30}px`;
    tip.hidden = false;
  });
  g.cy.on('mouseout', 'node', () => (tip.hidden = true));
  showDetails($('details'), undefined, []);
  g.cy.resize();
  if (saved?.title === next.title && saved.view) g.restore(saved.view);
  else {
    g.foldToFit();
    g.fit();
  }
  updateTimeline();
  (globalThis as { __otrace?: unknown }).__otrace = {
    cy: g.cy,
    graph: next,
    view: g,
    /** Event indices in time order (for tests). */
    timeline: () => timeline?.order ?? [],
    status: () => timeline?.status(),
    /** The timeline's current event index. */
    current: () => timeline?.current ?? null,
    exportPng: () => exportPng(g, $('canvas')),
    exportSvg: () => exportSvg(g, $('canvas')),
  };
  document.body.dataset.title = next.title;
  document.body.dataset.state = 'ready';
  if (saved?.title === next.title && saved.selected !== undefined) selectIndex(saved.selected, 'restore');
  // Two frames later the graph has been painted: tell the host (npm start reports the time).
  requestAnimationFrame(() => requestAnimationFrame(() => post({ type: 'painted', events: next.nodes.length })));
}

function saveState(): void {
  if (!graph || !view) return;
  const state: SavedState = { title: graph.title, uri: traceUri, view: view.view(), selected: timeline?.current, follow };
  vscode.setState(state);
}

/** Frames events (indices) with context; Esc goes back to the view before. */
function frameEvents(events: number[], finding?: number): void {
  if (!view || !graph) return;
  history.push(view.view());
  const ids = [...new Set(events.map((i) => graph!.nodes[i]).filter(Boolean).map((n) => n.bar ?? n.id))];
  view.frameNodes(ids, 0.25);
  const keep = new Set(ids);
  view.cy.batch(() => {
    view!.cy.elements().removeClass('dimmed');
    view!.cy.nodes().forEach((n) => {
      n.toggleClass('framed', keep.has(n.id()));
    });
  });
  if (finding !== undefined && events.length) {
    selectIndex(events[0], 'finding');
    const f = graph.findings[finding];
    const note = document.createElement('p');
    note.className = `finding-explained ${f.severity}`;
    note.textContent = f.message; // untrusted text: textContent only
    $('details').prepend(note);
  }
}

/** Esc: back to the view before the last framing. */
function restoreView(): void {
  const v = history.pop();
  if (v && view) view.restore(v);
  view?.cy.nodes().removeClass('framed');
}

type SelectSource = 'click' | 'step' | 'host' | 'finding' | 'restore';

/** Makes an event the current one: selects its node, dims later events, shows its details. */
function selectIndex(index: number, source: SelectSource): void {
  if (!view || !graph || !timeline) return;
  const model = graph.nodes[index];
  const node = view.nodeOfIndex(index);
  if (!model || !node) return;
  timeline.setCurrent(index);
  if (!node.selected()) {
    view.cy.$(':selected').unselect();
    node.select();
  }
  // An event inside a run bar: the bar is highlighted.
  view.cy.nodes('.run.current').removeClass('current');
  const run = view.runOf(node.id());
  if (run) view.cy.getElementById(run).addClass('current');
  dimLater(model.order);
  const actions: [string, () => void][] = [['Show in Trace File', () => post({ type: 'reveal', index })]];
  if (model.hasSource) actions.push(['Open Source Prompt', () => post({ type: 'openSource', index })]);
  if (model.textLength !== undefined) actions.push(['Show Whole Content', () => post({ type: 'showContent', index })]);
  showDetails($('details'), model, actions);
  view.resized(); // the details pane may have just appeared under a narrow graph
  if (source === 'step' || source === 'host' || source === 'restore') view.ensureVisible(node.id());
  updateTimeline();
  saveState();
  if (source !== 'host' && source !== 'restore') post({ type: 'selected', index, reveal: follow });
}

/** Drawn nodes in time order, for dimming the events later than the current one. */
let byOrder: { order: number; ele: NodeSingular }[] = [];
/** Nodes with an order above this are dimmed. */
let dimFrom = Infinity;

/** Dims the events after `order` (only the nodes whose state changes are touched: a step costs O(steps)). */
function dimLater(order: number): void {
  if (!view) return;
  const lo = Math.min(dimFrom, order);
  const hi = Math.max(dimFrom, order);
  let i = lowerBound(byOrder, lo + 1e-9);
  view.cy.batch(() => {
    for (; i < byOrder.length && byOrder[i].order <= hi; i++) byOrder[i].ele.toggleClass('later', byOrder[i].order > order);
  });
  dimFrom = order;
}

function lowerBound(list: { order: number }[], v: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].order < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function clearCurrent(): void {
  view?.cy.nodes().removeClass('later');
  dimFrom = Infinity;
  showDetails($('details'), undefined, []);
}

/** The counter, the time and the cursor line. */
function updateTimeline(): void {
  if (!timeline) return;
  const { counter, time } = timeline.status();
  $('counter').textContent = counter;
  $('clock').textContent = time;
  placeCursor();
}

function placeCursor(): void {
  const cursor = $('cursor');
  const here = timeline?.current;
  if (!view || !graph || here === undefined) {
    cursor.hidden = true;
    return;
  }
  const n = graph.nodes[here];
  const u = view.mode === 'order' ? n.order : n.tx;
  cursor.style.left = `${view.screenX(u)}px`;
  cursor.hidden = false;
}

function step(target: StepTarget): void {
  timeline?.step(target);
}

/** Zoom to the selection: its event with its neighbours in time. */
function zoomToSelection(): void {
  if (!view || !graph || !timeline || timeline.current === undefined) return;
  const pos = timeline.position;
  const around = timeline.order.slice(Math.max(0, pos - 5), pos + 6);
  history.push(view.view());
  view.frameNodes(around.map((i) => graph!.nodes[i].bar ?? graph!.nodes[i].id), 0.05);
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
  $('mode').textContent = mode === 'time' ? 'x: time' : 'x: event order';
  $('mode').title = mode === 'time' ? 'x is time (idle gaps shortened); click for event order (T)' : 'x is event order; click for time (T)';
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  if (m.type === 'trace') {
    traceUri = m.uri ?? traceUri;
    showLock(m.locked);
    render(m.graph);
  } else if (m.type === 'loading') showLoading(m.title);
  else if (m.type === 'locked') showLock(m.locked);
  else if (m.type === 'explain' && graph?.findings[m.finding]) frameEvents(graph.findings[m.finding].events, m.finding);
  else if (m.type === 'showLane' && view && graph) {
    const lane = graph.lanes.findIndex((l) => (l.agent ?? l.name) === m.agent); // several traces: the agent's first lane
    const ids = graph.nodes.filter((n) => n.lane === lane && !n.bar).map((n) => n.id);
    if (ids.length) frameEvents(ids.map((id) => Number(id.slice(1))));
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
  if ((e.target as HTMLElement).closest('vscode-textfield, input')) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
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

function filter(text: string): void {
  if (!view || !graph) return;
  const q = text.trim().toLowerCase();
  const g = graph;
  view.cy.batch(() => {
    view!.cy.elements().removeClass('dimmed');
    $('matches').textContent = '';
    if (!q) return;
    const hit = new Set(g.nodes.filter((n) => `${n.eventId} ${n.label} ${n.agent} ${n.text ?? ''}`.toLowerCase().includes(q)).map((n) => n.bar ?? n.id));
    $('search').title = hit.size === 0 ? 'No event matches' : `${hit.size} events match`;
    $('matches').textContent = hit.size === 0 ? 'no event matches' : `${hit.size} match`;
    view!.cy.nodes().forEach((n) => {
      if (!hit.has(n.id())) n.addClass('dimmed');
    });
    view!.cy.edges().addClass('dimmed');
  });
}
let filterTimer: ReturnType<typeof setTimeout> | undefined;
$('search').addEventListener('input', (e) => {
  // Wait for a pause in typing: filtering restyles every node.
  clearTimeout(filterTimer);
  const value = (e.target as HTMLInputElement).value ?? '';
  filterTimer = setTimeout(() => filter(value), 200);
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
  document.body.dataset.state = 'loading';
  if (title) {
    $('title').textContent = `Loading ${title}…`;
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
showLoading();
post({ type: 'ready' });
