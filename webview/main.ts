/**
 * Webview entry: handshake with the host, draw the trace as a timeline graph, the lane column, the
 * time axis, the grouped findings, the timeline bar and the details pane; commands and messages.
 * The page's state of the trace it shows is one object per (trace URI, snapshot stamp)
 * (trace-state.ts); every message naming an event carries its stamp, and one for another snapshot
 * is dropped. Everything from the trace is shown with textContent, names and labels with their
 * control and bidi characters shown as `⟨U+202E⟩` (plainLabel); the CSP forbids inline and eval'd script.
 */
import { moment, moments } from './start-moments';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { NodeSingular } from 'cytoscape';
import { unpackOverview } from '../src/shared/overview-columns';
import { applyOverviewDelta, type OverviewDelta } from '../src/shared/overview-delta';
import type { GraphCommand, GraphNode, GraphOverview, GraphWindow, HostMessage } from '../src/shared/protocol';
import { plainLabel } from '../src/shared/untrusted-text';
import { createAxis } from './axis';
import { laterCount, placeCursor, selectedNode } from './cursor';
import { foldDrawer, showDetails } from './details';
import { $ } from './dom';
import { exportPng, exportSvg } from './export';
import { applyFilter, carryFilter, installFilter, receiveFound } from './filter';
import { showFindings } from './findings';
import { TraceGraph } from './graph';
import { showFileGone, showGrowing, showHeader, showLoadingScreen, showLock, showMode } from './header';
import { installKeys } from './keys';
import { createLaneColumn } from './lanes';
import { showRunSummary } from './run-summary';
import { showLegend } from './legend';
import { createMinimap } from './minimap';
import { readSaved, savedForTrace, savedWith } from './saved-state';
import { Timeline, type StepTarget } from './timeline';
import { hideTooltip, installTooltip } from './tooltip';
import { atFit, disposeTraceState, newTraceState, type TraceState } from './trace-state';
import { getState, post, setState } from './vscode-api';
import { WindowLoader } from './windows';
import './styles.css';

/** The state of the trace shown (undefined while loading). */
let state: TraceState | undefined;

/** True while the trace shown is being written (the host says so with each trace it sends): the run summary says its end is not yet. */
let growing = false;

/** The panel's switches (not the trace's: they stay when the panel shows another trace). */
const panel = {
  /** Follow in editor: a selected event's record is shown in the trace's editor. */
  follow: readSaved(getState())?.follow ?? true,
  /** Keep the newest events in view while the run is still being written. */
  followRun: readSaved(getState())?.followRun ?? false,
};

/** `held` with `delta` applied (src/shared/overview-delta.ts), or undefined when it does not apply (the whole overview is asked for then). */
function withDelta(held: GraphOverview, delta: OverviewDelta): GraphOverview | undefined {
  try {
    return applyOverviewDelta(held, delta);
  } catch {
    return undefined;
  }
}

/** The state of the snapshot `stamp` names, when it is the one shown (a message for another is dropped). */
function shownAt(stamp: number): TraceState | undefined {
  return state?.stamp === stamp ? state : undefined;
}

/**
 * Draws a snapshot of a trace in a new state; `first`: its window at Fit, drawn at once when the
 * view fits (not when a saved view is restored).
 */
function render(uri: string | undefined, next: GraphOverview, first?: GraphWindow): void {
  rendersRun++;
  const before = state;
  // The same trace, grown (a run in progress): the view stays where it was, unless following the run.
  const grew = before !== undefined && before.uri === uri && next.totalEvents > before.graph.totalEvents;
  // the same trace shown whole (Fit, not moved since): shown whole again (a run being written: its new lanes and time with it)
  const wasWhole = before !== undefined && before.uri === uri && atFit(before);
  if (before) disposeTraceState(before);
  // Read and analysed: the loading bar goes (the graph is drawn next, in this task).
  if (document.body.dataset.state === 'loading') document.body.dataset.state = 'drawing';
  const g = new TraceGraph($('graph'), next);
  g.coveredBottom = coveredByDetails;
  let s: TraceState; // made below: the callbacks run later
  const loader = new WindowLoader(
    g,
    (request) => {
      moment('window asked');
      post({ type: 'window', request });
    },
    () => windowApplied(s),
  );
  const timeline = new Timeline(next, () => g.rank, (index) => selectIndex(s, index, 'step'), (playing) => {
    $('play').textContent = playing ? 'Pause' : 'Play';
    $('play').title = playing ? 'Pause (Space)' : 'Play (Space)';
  });
  s = state = newTraceState({ uri, graph: next, view: g, timeline, loader });
  carryFilter(s, before !== undefined && before.uri === uri);
  const placeLanes = createLaneColumn($('lanes'), g);
  const drawAxis = createAxis($('axis'), $('gaps'), g);
  const drawMinimap = createMinimap($<HTMLCanvasElement>('minimap'), g);
  let frame = 0;
  g.onViewChange(() => {
    hideTooltip(); // zoom or pan: the node moved from under it
    placeLanes();
    // The axis is rebuilt, and a window asked for, at most once a frame.
    if (!frame)
      frame = requestAnimationFrame(() => {
        frame = 0;
        drawAxis();
        drawMinimap();
        placeCursor(state);
        g.cullLabels();
        loader.check();
      });
    saveState();
  });
  showHeader(next);
  showRun(s);
  listFindings(s);
  document.body.dataset.analysis = next.analysing ? 'pending' : 'done';
  showLegend($('legend'), next);
  g.cy.on('tap', 'node', (e) => {
    const node = e.target as NodeSingular;
    // A run of events drawn as one bar: zoom into it.
    const run = g.run(node.id());
    if (run) frameRange(s, run.u0, run.u1, run.lane);
    else selectIndex(s, node.data('index') as number, 'click');
  });
  g.cy.on('tap', (e) => {
    if (e.target === g.cy) clearCurrent(s);
  });
  installTooltip(s);
  const saved = savedForTrace(readSaved(getState()), uri, g.mode, next.totalEvents);
  // the same trace drawn again (an append read, then analysed): the selected event's details stay until its new ones come
  const kept = before !== undefined && before.uri === uri && before.details !== undefined && before.details.index === saved.selected;
  if (kept) s.details = before.details; // (shown until its new ones come: a next drawing before they came keeps them too)
  else showDetails($('details'), undefined, []);
  g.resized(); // sized now (the ResizeObserver then finds nothing changed: no second drawing)
  // the same file with fewer events (cut, or written anew with another run): the view held was the old run's
  const shrank = before !== undefined && before.uri === uri && next.totalEvents < before.graph.totalEvents;
  const holding = saved.view !== undefined && !(wasWhole && grew && !panel.followRun) && !shrank;
  if (holding) g.restore(saved.view!);
  if (holding && g.showsRun()) {
    // the host sends the window of the view the page held (src/shared/fit.ts heldViewRequest): drawn now, not asked for
    if (first) loader.preloadHeld(first);
    if (wasWhole) s.fitView = s.view.view(); // (the same events: the view Fit made them)
  } else {
    // (a view held that shows none of the run, or the old run's: the whole run; its window is asked for)
    fitWhole(s, true);
    if (first && !holding) loader.preload(first);
  }
  if (saved.selected !== undefined) {
    timeline.setCurrent(saved.selected);
    // (the same trace drawn anew after a click on the background: still no focus ring)
    s.highlight = before === undefined || before.uri !== uri || before.highlight;
    loader.setKeep([saved.selected]);
  }
  if (grew && panel.followRun) showNewest(s);
  updateTimeline(s);
  // saved with the selection carried over: the view set above saved the state before it was (the next drawing lost it)
  saveState();
  showMode(g.mode, next.timeUnit);
  moment('overview drawn');
  loader.check();
  (globalThis as { __otrace?: unknown }).__otrace = testProbe(s, () => frame === 0);
  document.body.dataset.title = next.title;
}

/**
 * What the integration tests read of the shown trace (`globalThis.__otrace`); read-only.
 * `drawn`: true when no redraw of the axis, labels and minimap waits for the next frame.
 */
function testProbe(s: TraceState, drawn: () => boolean) {
  const { view: g, graph, timeline, loader } = s;
  return {
    cy: g.cy,
    graph,
    view: g,
    /** Event indices in time order, as a plain array (for tests: a typed array would not cross evaluate as one). */
    timeline: () => Array.from(timeline.order),
    status: () => timeline.status(),
    /** The timeline's current event index. */
    current: () => timeline.current ?? null,
    /** The index of the node the focus ring marks (the current event drawn on its own), or null. */
    selected: () => selectedNode(s),
    /** The Cytoscape key of the node the focus ring marks, or null. */
    selectedKey: () => (selectedNode(s) === null ? null : `n${selectedNode(s)}`),
    /** How many loaded elements begin after the current event (dimmed). */
    later: () => laterCount(s),
    /** The details pane's event (its id, label, fields), once the host answered. */
    details: () => s.details,
    /** Windows applied and asked for so far, and whether one is being loaded. */
    windows: () => ({ applied: loader.applied, asked: loader.asked, loading: loader.loading, ...g.window }),
    exportPng: () => exportPng(g, $('canvas')),
    exportSvg: () => exportSvg(g, $('canvas')),
    /** True when what the last view change started is drawn: the axis, labels and minimap redrawn (no frame pending), no window asked for and unanswered. */
    settled: () => drawn() && !loader.loading,
    /** How many commands (palette, keys, buttons) the page has run. */
    commands: () => commandsRun,
    /** How many overviews this page has drawn (a second one: the trace was sent again). */
    renders: () => rendersRun,
    /** How many times the details pane showed an event's details the host sent. */
    detailsShown: () => detailsShown,
    /** Overview deltas applied and refused by this page. */
    deltas: () => ({ ...deltas }),
    /** True while the view is the whole run as Fit made it (trace-state.ts atFit). */
    atFit: () => atFit(s),
  };
}

/** A window is on screen: the selection, dimming, framing and filter are applied to its elements. */
function windowApplied(s: TraceState): void {
  if (s !== state) return;
  const g = s.view;
  const current = s.timeline.current;
  placeCursor(s);
  g.cy.batch(() => {
    const keep = new Set(s.framed.map((i) => g.keyOf(i)).filter((k): k is string => !!k));
    if (s.framed.length)
      g.cy.nodes().forEach((n) => {
        n.toggleClass('framed', keep.has(n.id()));
      });
  });
  applyFilter(s);
  placeCursor(s);
  if (s.firstWindow) {
    s.firstWindow = false;
    document.body.dataset.state = 'ready';
    // Two frames later the graph has been painted: tell the host (npm start reports the time).
    moment('first window drawn');
    requestAnimationFrame(() => requestAnimationFrame(() => post({ type: 'painted', events: s.graph.totalEvents, moments: moments(), size: graphSize() })));
    if (current !== undefined && s.highlight) post({ type: 'event', stamp: s.stamp, index: current });
  }
}

/** Scrolls (no zoom) so that the trace's newest event is in view: following a run in progress. */
function showNewest(s: TraceState): void {
  const last = s.timeline.order[s.timeline.order.length - 1];
  if (last !== undefined) s.view.ensureVisible(last);
}

$('follow-run').addEventListener('click', () => {
  panel.followRun = !panel.followRun;
  showGrowing(true, panel.followRun);
  if (panel.followRun && state) showNewest(state);
  saveState();
});

/** Saves the shown trace's view and selection (by its URI) and the panel's switches. */
function saveState(): void {
  const s = state;
  if (!s) return;
  setState(savedWith(readSaved(getState()), s.uri, { view: s.view.view(), selected: s.timeline.current }, { follow: panel.follow, followRun: panel.followRun }));
}

/**
 * A finding is framed in at least this share of the run: its events with what happened around them
 * (a one-event finding zoomed to 60 ms of a 4 s run, every lane empty).
 */
const FINDING_MIN_SHARE = 1 / 20;

/** Frames events (indices, loaded or not) with context; Esc goes back to the view before. */
function frameEvents(s: TraceState, events: number[], finding?: number): void {
  if (s !== state) return;
  s.history.push(s.view.view());
  s.framed = events.filter((i) => i >= 0 && i < s.graph.totalEvents);
  s.view.frameIndices(s.framed, 0.25, FINDING_MIN_SHARE);
  s.view.cy.elements().removeClass('dimmed');
  if (finding !== undefined && events.length) selectIndex(s, events[0], 'finding');
  else s.loader.setKeep(keepList(s));
  if (finding !== undefined && events.length) {
    s.explained = s.graph.findings[finding];
    showExplained(s);
  }
}

/** The finding being explained heads the details pane. */
function showExplained(s: TraceState): void {
  if (!s.explained) return;
  $('details').querySelector('.finding-explained')?.remove();
  const note = document.createElement('p');
  note.className = `finding-explained ${s.explained.severity}`;
  note.textContent = plainLabel(s.explained.message); // untrusted text: textContent only, controls shown
  $('details').prepend(note);
}

/** Frames an axis range of one lane (a run bar clicked: zoom into it). */
function frameRange(s: TraceState, u0: number, u1: number, lane: number): void {
  if (s !== state) return;
  s.history.push(s.view.view());
  const row = s.view.row(lane);
  s.view.frame(u0, u1, row === undefined ? [] : [row], 0.1);
}

/**
 * Frames one agent's lane: its first and last events (several traces: the agent's first lane). An
 * agent folded into a group lane has no lane of its own: its `events` are framed, when given.
 */
function showLane(s: TraceState, agent: string, events?: number[]): void {
  const lane = s.graph.lanes.findIndex((l) => (l.agent ?? l.name) === agent);
  if (lane < 0) return void (events?.length && frameEvents(s, events));
  const { byTime, lane: laneOf } = s.graph.columns;
  const first = byTime.find((i) => laneOf[i] === lane);
  const last = [...byTime].reverse().find((i) => laneOf[i] === lane);
  if (first !== undefined && last !== undefined) frameEvents(s, first === last ? [first] : [first, last]);
}

/** Esc: back to the view before the last framing. */
function restoreView(s: TraceState): void {
  const v = s.history.pop();
  if (v) s.view.restore(v);
  s.framed = [];
  s.view.cy.nodes().removeClass('framed');
  s.loader.setKeep(keepList(s));
}

/** Events drawn on their own whatever the level of detail: the current one, then the framed ones. */
function keepList(s: TraceState): number[] {
  const here = s.timeline.current;
  return [...(here === undefined ? [] : [here]), ...s.framed];
}

type SelectSource = 'click' | 'step' | 'host' | 'finding';

/**
 * Makes an event the current one (any event of the trace, loaded or not): scrolls to it, asks for
 * the window that draws it on its own, selects it, dims later events and asks for its details.
 */
function selectIndex(s: TraceState, index: number, source: SelectSource): void {
  if (s !== state || index < 0 || index >= s.graph.totalEvents) return;
  hideTooltip(); // it described the node under the pointer, not the event stepped to
  s.timeline.setCurrent(index);
  if (source !== 'finding') s.explained = undefined;
  if (source === 'step' || source === 'host') s.view.ensureVisible(index);
  s.loader.setKeep(keepList(s));
  // The focus ring on it and the events after it dimmed: page elements over the graph (cursor.ts), so a step redraws no Cytoscape element.
  s.highlight = true;
  placeCursor(s);
  post({ type: 'event', stamp: s.stamp, index });
  updateTimeline(s);
  saveState();
  if (source !== 'host') post({ type: 'selected', stamp: s.stamp, index, reveal: panel.follow });
}

/** The details pane shows an event the host sent (if it is still the current one). */
function showEvent(s: TraceState, node: GraphNode): void {
  if (node.index !== s.timeline.current) return;
  detailsShown++;
  // the same event's details again (the trace drawn anew after an append): the view stays where the user or the run put it
  const newlyShown = s.details?.index !== node.index;
  s.details = node;
  const { index } = node;
  const { stamp } = s;
  const actions: [string, () => void][] = [['Show in Trace File', () => post({ type: 'reveal', stamp, index })]];
  if (node.hasSource) actions.push(['Open Source Prompt', () => post({ type: 'openSource', stamp, index })]);
  if (node.textLength !== undefined) actions.push(['Show Whole Content', () => post({ type: 'showContent', stamp, index })]);
  actions.push(['Label…', () => post({ type: 'label', stamp, index })]);
  const people = s.view.peoplesLabelOf(index);
  showDetails($('details'), people ? { ...node, fields: [...node.fields, ["people's labels", people]] } : node, actions);
  showExplained(s);
  resized(s); // the details pane may have just appeared under a narrow graph
  if (newlyShown) s.view.ensureVisible(index); // or over it, as a drawer: the event comes out from under it
}

/** Px of the graph's bottom the details cover: a drawer over the graph in a narrow panel (styles.css), else 0. */
function coveredByDetails(): number {
  const graph = $('graph').getBoundingClientRect();
  const details = $('details').getBoundingClientRect();
  const over = details.height > 0 && details.top < graph.bottom && details.left < graph.right && details.right > graph.left;
  return over ? graph.bottom - Math.max(details.top, graph.top) : 0;
}

/** A click on the background: no focus ring, nothing dimmed, no details (until the next selection). */
function clearCurrent(s: TraceState): void {
  if (s !== state) return;
  s.highlight = false;
  placeCursor(s);
  s.explained = undefined;
  s.details = undefined;
  showDetails($('details'), undefined, []);
}

/** The counter, the time and the cursor line. */
function updateTimeline(s: TraceState): void {
  const { counter, time } = s.timeline.status();
  $('counter').textContent = counter;
  $('clock').textContent = time;
  placeCursor(s);
}

/** Zoom to the selection: its event with its neighbours in time. */
function zoomToSelection(s: TraceState): void {
  if (s.timeline.current === undefined) return;
  const pos = s.timeline.position;
  const around = Array.from(s.timeline.order.subarray(Math.max(0, pos - 5), pos + 6));
  s.history.push(s.view.view());
  s.view.frameIndices(around, 0.05);
}

/** Shows the whole run (Fit), and keeps that view as Fit's ({@link TraceState.fitView}); `fold`: lanes folded first so that every lane fits (a trace drawn anew). */
function fitWhole(s: TraceState, fold = false): void {
  if (fold) s.view.foldToFit();
  s.view.fit();
  s.fitView = s.view.view();
}

/** The panel or the details pane changed the graph's size: a view at Fit stretched to the new size is still Fit's. */
function resized(s: TraceState): void {
  const whole = atFit(s);
  s.view.resized();
  if (whole) s.fitView = s.view.view();
}

/** Commands run so far (for tests: a palette command reaches the page as a message). */
let commandsRun = 0;
/** Overviews drawn so far by this page (for tests: a trace sent again redraws it). */
let rendersRun = 0;
/** Details the host sent and the pane showed so far (for tests: those of a selection, and again after each drawing). */
let detailsShown = 0;
/** Overview deltas applied so far, and those that did not apply (the whole overview was asked for): for tests. */
const deltas = { applied: 0, refused: 0 };

/** Runs a command from the palette, a key or a button on the trace shown. */
function run(command: GraphCommand): void {
  const s = state;
  if (!s) return;
  commandsRun++;
  switch (command) {
    case 'fit':
      return fitWhole(s);
    case 'zoomToSelection':
      return zoomToSelection(s);
    case 'playPause':
      return s.timeline.togglePlay();
    case 'toggleAxis': {
      const mode = s.view.mode === 'time' ? 'order' : 'time';
      s.view.setMode(mode);
      s.fitView = s.view.view(); // (the whole trace in view)
      return showMode(mode, s.graph.timeUnit);
    }
    case 'back':
      // back out of a zoom or a finding's framing first; with none, a narrow panel's details drawer folds (the graph under it shows)
      if (s.history.length === 0 && s.framed.length === 0 && foldDrawer($('details'))) return;
      return restoreView(s);
    case 'exportPng':
      void exportPng(s.view, $('canvas')).then((data) => post({ type: 'export', format: 'png', data }));
      return;
    case 'exportSvg':
      return post({ type: 'export', format: 'svg', data: exportSvg(s.view, $('canvas')) });
    case 'label':
      if (s.timeline.current !== undefined) post({ type: 'label', stamp: s.stamp, index: s.timeline.current });
      return;
    default:
      s.timeline.step(command satisfies StepTarget);
  }
}

/** The run summary of the trace shown, saying whether it is still being written. */
function showRun(s: TraceState): void {
  showRunSummary($('run'), s.graph.run, s.graph.problems, {
    goTo: (index) => {
      selectIndex(s, index, 'finding');
      s.view.ensureVisible(index); // the run's end may be outside a zoomed view: selected off screen, the user saw nothing happen
      $('canvas').focus({ preventScroll: true }); // the keyboard stays with the graph
    },
  }, growing);
}

/** A host message: each that names an event or finding is for the snapshot shown, or dropped. */
function receive(m: HostMessage): void {
  switch (m.type) {
    case 'trace':
    case 'traceJson':
      moment('graph received');
      showLock(m.locked);
      growing = m.growing ?? false;
      showGrowing(growing, panel.followRun);
      return render(m.uri ?? state?.uri ?? readSaved(getState())?.uri, m.type === 'trace' ? m.graph : unpackOverview(m.json, m.columns), m.first);
    case 'traceDelta': {
      moment('graph received');
      // applied to the overview held (its columns grown in place); another one held: the whole overview is asked for
      const next = state && state.stamp === m.delta.base ? withDelta(state.graph, m.delta) : undefined;
      if (!next) {
        deltas.refused++;
        return post({ type: 'wholeTrace' });
      }
      deltas.applied++;
      showLock(m.locked);
      growing = m.growing ?? false;
      showGrowing(growing, panel.followRun);
      return render(m.uri ?? state?.uri, next, m.first);
    }
    case 'notGrowing': {
      growing = false;
      showGrowing(false, panel.followRun);
      if (!state) return;
      showRun(state);
      return listFindings(state); // without the room kept for the "analysing the newest events…" line
    }
    case 'fileGone':
      return showFileGone(m.gone);
    case 'window':
      moment('window received');
      return shownAt(m.window.stamp)?.loader.receive(m.window);
    case 'event': {
      const s = shownAt(m.stamp);
      return s && showEvent(s, m.node);
    }
    case 'found': {
      const s = shownAt(m.stamp);
      return s && receiveFound(s, m.query, m.indices);
    }
    case 'loading':
      return showLoading(m.title);
    case 'readProgress':
      return state && showReadProgress(state, m.bytes, m.of);
    case 'locked':
      return showLock(m.locked);
    case 'explain': {
      const s = shownAt(m.stamp);
      const finding = s?.graph.findings[m.finding];
      return s && finding && frameEvents(s, finding.events, m.finding);
    }
    case 'showLane': {
      // the events name the snapshot `stamp`: used only while the page shows that one
      const events = m.stamp !== undefined && shownAt(m.stamp) ? m.events : undefined;
      return state && showLane(state, m.agent, events);
    }
    case 'select': {
      const s = shownAt(m.stamp);
      // the host says the shared selection again with each update of the trace: the page shows it already (carried over
      // the drawing), and stepping to it again would pull the view back to it from where the user or the run put it
      if (!s || m.index === s.timeline.current) return;
      return selectIndex(s, m.index, 'host');
    }
    case 'command':
      return run(m.command);
    case 'humanLabels': {
      const s = shownAt(m.stamp);
      if (!s) return;
      s.view.setPeoplesLabels(m.labels);
      if (s.details) showEvent(s, s.details); // the details pane lists them
      return;
    }
    default:
      return unknownMessage(m);
  }
}

/** A message type the switch does not know: a compile error (`never`), ignored at run time. */
function unknownMessage(m: never): void {
  void m;
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => receive(event.data));

installKeys({
  run,
  revealCurrent: () => {
    // the current event itself, not the node drawing it (a tool result is drawn in its call's bar)
    const s = state;
    const index = s?.highlight ? s.timeline.current : undefined;
    if (!s || index === undefined) return false;
    post({ type: 'reveal', stamp: s.stamp, index });
    return true;
  },
});
installFilter(() => state);

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
followBox.checked = panel.follow;
followBox.addEventListener('change', () => {
  panel.follow = followBox.checked;
  saveState();
});
$<HTMLSelectElement>('speed').addEventListener('change', (e) => {
  const timeline = state?.timeline;
  if (!timeline) return;
  timeline.speed = Number((e.target as HTMLSelectElement).value) || 4;
  if (timeline.playing) {
    timeline.togglePlay();
    timeline.togglePlay();
  }
});
new ResizeObserver(() => state && resized(state)).observe($('graph'));
// the details drawer of a narrow panel grown (its content laid out, or unfolded): the selected event comes out from under it
new ResizeObserver(() => {
  const current = state?.timeline.current;
  // (only an event in view: one the user scrolled or panned away from stays there)
  if (state && current !== undefined && state.highlight && state.view.inViewX(current)) state.view.ensureVisible(current);
}).observe($('details'));
$('lock').addEventListener('click', () => post({ type: 'toggleLock' }));

/** Lists the shown trace's findings, or what it says instead (findings.ts), as the run is being written or not. */
function listFindings(s: TraceState): void {
  showFindings($('findings'), s.graph.findings, { frame: (events, finding) => frameEvents(s, events, finding) }, { ...s.graph, growing });
}

/** How far the read of a large file shown in part has got: the header and the findings' note say it (the graph stays the part's). */
function showReadProgress(s: TraceState, bytes: number, of: number): void {
  const reading = s.graph.reading;
  if (!reading || reading.stopped || reading.of !== of || bytes <= (reading.read ?? reading.bytes)) return;
  reading.read = bytes; // until the whole trace's overview replaces the part's
  showHeader(s.graph);
  listFindings(s);
}

/** Another trace is on its way: the state of the one shown goes, the loading state shows. */
function showLoading(title?: string): void {
  if (state) disposeTraceState(state);
  state = undefined;
  showLoadingScreen(title);
}

/** The graph area's size in px (the host keeps it to send the next graph's first window). */
function graphSize(): { width: number; height: number } {
  const { width, height } = $('graph').getBoundingClientRect();
  return { width: Math.round(width), height: Math.round(height) };
}

showLoading();
post({ type: 'ready' });
