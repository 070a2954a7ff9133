/**
 * The Cytoscape graph as a timeline: one lane per agent (sub-agents under their spawner), x is
 * time (idle gaps compressed) or event order, a tool call and its result one bar, spawns,
 * delegations, messages and returns arrows between lanes. Cytoscape's own zoom stays at 1: the
 * view scales x (wheel, fit, frame) and lays the nodes out again, so labels keep their size
 * (11 px) at every zoom and lanes keep their height; labels that would collide are hidden.
 */
import cytoscape, { type Core, type ElementDefinition, type NodeSingular } from 'cytoscape';
import { axisLengthOf, fitScale, PAD, PAD_RIGHT } from '../src/shared/fit';
import { runKey } from '../src/shared/axis';
import type { GraphNode, GraphOverview, GraphRun, GraphWindow } from '../src/shared/protocol';
import { creditClass, isTurnMark, NODE, nodeElement, priority, RUN_RANK, runElement, STOP, stopLabel } from './graph-elements';
import { LabelPlacer, type LabelCandidate } from './graph-labels';
import { graphStyle } from './graph-style';
import { foldToFit, innerRowCount, lanesUnder, laneRows, rowCount } from './lane-folds';
import { kindColors } from './theme';
import { plainLabel } from '../src/shared/untrusted-text';
import { wheelGesture } from './wheel';

/**
 * Height limits of a row inside a lane in px: at least 10 (readable), at most 160 (a one-agent
 * session's three or four rows fill the panel). A lane is its `rows` rows high.
 */
export const MIN_ROW = 10;
const MAX_ROW = 160;
/** Below this row height, node labels would not fit under their node: none are shown. */
const LABEL_ROW = 30;

/** What the view shows: x scale (px per axis unit), axis mode, row height, collapsed lanes. */
export interface ViewState {
  mode: 'time' | 'order';
  scale: number;
  /** Height of one row inside a lane, px (the name of the saved states from before lanes had rows). */
  laneHeight: number;
  pan: { x: number; y: number };
}

/** The window the graph holds: its range, bucket width and mode (see `GraphWindow`). */
export interface LoadedWindow {
  from: number;
  to: number;
  bucket: number;
  mode: 'time' | 'order';
}

/**
 * The timeline graph of one trace in one container. It holds one window of the trace at a time
 * ({@link apply} swaps in the next one element by element: unchanged nodes are kept); the
 * overview's columns place any event of the whole trace without loading it.
 */
export class TraceGraph {
  readonly cy: Core;
  readonly graph: GraphOverview;
  mode: 'time' | 'order' = 'time';
  /** Pixels per axis unit (time: seconds, gaps compressed; order: events). */
  scale = 1;
  /** Height of one row inside a lane, px: a lane is its `rows` rows high (src/engine/lane-rows.ts). */
  rowHeight = 40;
  /** Lanes whose sub-agent lanes are folded away. */
  readonly collapsed = new Set<string>();
  /** The loaded window, if any. */
  window: LoadedWindow | undefined;
  /** Lane index -> its place among the lanes shown (undefined when folded away). */
  private rows: (number | undefined)[] = [];
  /** Lane index -> its first row counted over the lanes shown (-1 when folded away). */
  private tops = new Int32Array(0);
  /** Place among the lanes shown -> the lane. */
  private shown: number[] = [];
  /** Rows of the lanes shown, in all. */
  private innerRows = 1;
  private listeners: (() => void)[] = [];
  /** Event nodes of the loaded window by key. */
  private readonly nodeById = new Map<string, GraphNode>();
  /** The labels people gave events (the sidecar next to the trace), by event index: a mark of their own on the node. */
  private peoplesLabels = new Map<number, string>();
  /** Run bars of the loaded window by key. */
  private readonly runById = new Map<string, GraphRun>();
  /** Time-order rank of every event, and for a result drawn in its call's bar the call's index (else -1): made on first use. */
  private ranks: Int32Array | undefined;
  private bars: Int32Array | undefined;

  constructor(container: HTMLElement, graph: GraphOverview) {
    this.graph = graph;
    this.cy = cytoscape({
      container,
      elements: [],
      style: graphStyle(),
      layout: { name: 'preset', fit: false },
      zoom: 1,
      minZoom: 1,
      maxZoom: 1,
      userZoomingEnabled: false,
      boxSelectionEnabled: false,
      autoungrabify: true,
      // The current event is marked by page elements over the graph (webview/main.ts), never by
      // Cytoscape's selection: a selection change would redraw every element.
      autounselectify: true,
      textureOnViewport: false,
    });
    this.labels = new LabelPlacer(this.cy);
    this.computeRows();
    container.addEventListener('wheel', (e) => this.onWheel(e), { passive: false, capture: true });
  }

  /**
   * Time-order rank of every event (the inverse of the overview's `byTime`). Made on first use, as
   * is {@link barOf}: the first paint needs neither, and each is a pass over every event (a million at 1M).
   */
  get rank(): Int32Array {
    if (this.ranks) return this.ranks;
    const byTime = this.graph.columns.byTime;
    const rank = new Int32Array(byTime.length);
    for (let r = 0; r < byTime.length; r++) rank[byTime[r]] = r;
    return (this.ranks = rank);
  }

  /** For a result drawn in its call's bar: the call's index (else -1). */
  private get barOf(): Int32Array {
    if (this.bars) return this.bars;
    const end = this.graph.columns.end;
    const barOf = new Int32Array(end.length).fill(-1);
    for (let call = 0; call < end.length; call++) if (end[call] >= 0) barOf[end[call]] = call;
    return (this.bars = barOf);
  }

  /** Calls `fn` after every change of the view (scale, pan, lanes). */
  onViewChange(fn: () => void): void {
    this.listeners.push(fn);
    this.cy.on('viewport', fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  /** The loaded node of a key (undefined when not in the window or a run bar). */
  node(id: string): GraphNode | undefined {
    return this.nodeById.get(id);
  }

  /** The loaded run bar of a key. */
  run(id: string): GraphRun | undefined {
    return this.runById.get(id);
  }

  /** Loaded event nodes (for labels and dimming). */
  loadedNodes(): IterableIterator<GraphNode> {
    return this.nodeById.values();
  }

  /** Loaded run bars. */
  loadedRuns(): IterableIterator<GraphRun> {
    return this.runById.values();
  }

  /** Axis position of an event's start and end (bars span; others are points), from the columns. */
  spanOf(index: number): [number, number] {
    const end = this.graph.columns.end[index];
    if (this.mode === 'order') return [this.rank[index], end >= 0 ? this.rank[end] : this.rank[index]];
    const tx = this.graph.columns.tx;
    return [tx[index], end >= 0 ? tx[end] : tx[index]];
  }

  /** The event drawn for an index: itself, or the call whose bar holds this result. */
  drawnIndex(index: number): number {
    return this.barOf[index] >= 0 ? this.barOf[index] : index;
  }

  /** Axis position of a node's start and end (bars span; others are points). */
  span(n: GraphNode): [number, number] {
    if (this.mode === 'order') return [n.order, n.orderEnd ?? n.order];
    return [n.tx, n.txEnd ?? n.tx];
  }

  /** Length of the axis in axis units. */
  axisLength(): number {
    return axisLengthOf(this.graph, this.mode);
  }

  /** Screen x (in the graph container) of an axis position. */
  screenX(u: number): number {
    return PAD + u * this.scale + this.cy.pan().x;
  }

  /** Axis position at a screen x. */
  axisAt(x: number): number {
    return (x - this.cy.pan().x - PAD) / this.scale;
  }

  /** The axis range on screen. */
  viewRange(): [number, number] {
    return [this.axisAt(0), this.axisAt(this.cy.width() || 600)];
  }

  /**
   * True when the view shows some of the run, at a scale that shows it: its time (or order) range
   * meets the run's and is at most 50 times as long, and some lane is in view. A view restored for
   * the same file after it was written anew with another run (seconds long, where the view spanned
   * hours) shows none of it.
   */
  showsRun(): boolean {
    const [a, b] = this.viewRange();
    const length = Math.max(this.axisLength(), 1e-9);
    const top = -this.cy.pan().y;
    const height = this.cy.height() || 400;
    return b > 0 && a < length && b - a <= 50 * length && top < this.innerRows * this.rowHeight && top + height > 0;
  }

  /** The height of one row of a lane in px: what a lane's rows need (its `rows` rows) is this many times it. */
  get laneHeight(): number {
    return this.rowHeight;
  }

  /** Place of each lane (folded lanes have none). */
  private computeRows(): void {
    this.rows = laneRows(this.graph.lanes, this.collapsed);
    this.placeRows();
  }

  /** Each shown lane's first row, from the lanes' places: lanes are their row counts high. */
  private placeRows(): void {
    const lanes = this.graph.lanes;
    this.tops = new Int32Array(lanes.length).fill(-1);
    this.shown = [];
    let top = 0;
    this.rows.forEach((place, lane) => {
      if (place === undefined) return;
      this.tops[lane] = top;
      this.shown[place] = lane;
      top += this.rowsOf(lane);
    });
    this.innerRows = Math.max(1, innerRowCount(lanes, this.rows));
  }

  /** Rows inside a lane (at least 1). */
  rowsOf(lane: number): number {
    return Math.max(1, this.graph.lanes[lane]?.rows ?? 1);
  }

  /** The row height at which the lanes shown fill `height` px (within 10..160 px). */
  private fitRowHeight(height: number): number {
    return Math.max(MIN_ROW, Math.min(MAX_ROW, Math.floor((height - 4) / this.innerRows)));
  }

  /** Top of a shown lane in graph px (before pan), and its height: its rows. Undefined when folded away. */
  laneBox(lane: number): { top: number; height: number } | undefined {
    const top = this.tops[lane];
    if (top === undefined || top < 0) return undefined;
    return { top: top * this.rowHeight, height: this.rowsOf(lane) * this.rowHeight };
  }

  /** Lanes on rows, in order (folded ones left out). */
  visibleLanes(): number {
    return rowCount(this.rows);
  }

  /** Place of a lane among the lanes shown, or undefined when folded away. */
  row(lane: number): number | undefined {
    return this.rows[lane];
  }

  /** Graph y (before pan) of the centre of the nodes of a lane's row (labels go under them). */
  private nodeY(lane: number, row: number): number {
    return (this.tops[lane] + Math.min(row, this.rowsOf(lane) - 1)) * this.rowHeight + this.nodeOffset();
  }

  /** Screen y of the centre of the nodes of a lane's row (labels go under them). */
  rowY(lane: number, row = 0): number {
    return this.nodeY(lane, row) + this.cy.pan().y;
  }

  /** Distance from a row's top to its nodes' centres, in px. */
  nodeOffset(): number {
    const h = this.rowHeight;
    return h >= LABEL_ROW ? Math.max(STOP / 2, Math.min(h * 0.38, h - 28)) : h / 2;
  }

  /** Folds or unfolds the sub-agent lanes of a lane. */
  toggleLane(name: string): void {
    if (this.collapsed.has(name)) this.collapsed.delete(name);
    else this.collapsed.add(name);
    this.computeRows();
    this.rowHeight = this.fitRowHeight(this.cy.height() || 400);
    this.layout();
  }

  /**
   * Swaps in a window: elements no longer in it are removed, new ones added, run bars whose
   * contents changed updated in place; nodes in both windows are kept as they are (their classes
   * and scratch data survive). Then lays out and culls labels.
   */
  apply(win: GraphWindow): void {
    const nodes = new Map(win.nodes.map((n) => [n.id, n]));
    const runs = new Map(win.runs.map((r) => [r.id, r]));
    const edges = new Map(win.edges.map((e) => [e.id, e]));
    /** Elements new or moved in this window: the only ones to place when the geometry is unchanged. */
    const changed = new Set<string>();
    this.cy.batch(() => {
      const gone = this.cy.collection();
      this.cy.edges().forEach((e) => {
        if (!edges.has(e.id())) gone.merge(e);
      });
      this.cy.nodes().forEach((n) => {
        if (!nodes.has(n.id()) && !runs.has(n.id())) gone.merge(n);
      });
      this.cy.remove(gone);
      for (const id of [...this.nodeById.keys()]) if (!nodes.has(id)) this.nodeById.delete(id);
      for (const id of [...this.runById.keys()]) if (!runs.has(id)) this.runById.delete(id);
      const add: ElementDefinition[] = [];
      for (const [id, n] of nodes) {
        if (!this.nodeById.has(id)) {
          add.push(nodeElement(n));
          changed.add(id);
        }
        this.nodeById.set(id, n);
      }
      for (const [id, r] of runs) {
        const old = this.runById.get(id);
        if (!old) add.push(runElement(r, this.colors));
        else if (old.count !== r.count || old.kind !== r.kind || old.credit !== r.credit) {
          const ele = this.cy.getElementById(id);
          ele.data({ label: `${r.count} events`, members: r.count, color: this.colors[r.kind] ?? '#9d9d9d', credit: r.credit, tint: Math.min(0.55, Math.abs(r.credit ?? 0)) });
          ele.toggleClass('credit-pos', creditClass(r.credit) === ' credit-pos');
          ele.toggleClass('credit-neg', creditClass(r.credit) === ' credit-neg');
        }
        if (!old || old.u0 !== r.u0 || old.u1 !== r.u1) changed.add(id);
        this.runById.set(id, r);
      }
      const lane = (id: string) => this.nodeById.get(id)?.lane ?? this.runById.get(id)?.lane;
      for (const [id, e] of edges) {
        if (this.cy.getElementById(id).nonempty()) continue;
        add.push({ group: 'edges', data: { id, source: e.source, target: e.target, type: e.type }, classes: `${e.type}${e.derived ? ' derived' : ''}${lane(e.source) === lane(e.target) ? ' intra' : ''}` });
      }
      this.cy.add(add);
    });
    this.window = { from: win.from, to: win.to, bucket: win.bucket, mode: win.mode };
    this.markPeoplesLabels();
    this.layout(this.geometry() === this.laidOut ? changed : undefined);
  }

  /** The geometry the last full layout used (mode, scale, lane height, rows): while it holds, placed nodes stay where they are. */
  private laidOut = '';

  private geometry(): string {
    return `${this.mode} ${this.scale} ${this.rowHeight} ${this.rows.join()}`;
  }

  /** Drops everything loaded (the axis mode changed: run bars and windows no longer fit). */
  clear(): void {
    this.cy.elements().remove();
    this.nodeById.clear();
    this.runById.clear();
    this.window = undefined;
  }

  /** Places every loaded node (or only `only`) for the current mode, scale and lane height; then hides colliding labels. */
  layout(only?: Set<string>): void {
    if (!only) this.laidOut = this.geometry();
    const { size, stop, mark, barHeight } = this.sizes();
    this.cy.batch(() => {
      let eles = only ? this.cy.collection() : this.cy.nodes();
      if (only) for (const id of only) eles = eles.union(this.cy.getElementById(id));
      eles.forEach((ele) => {
        const id = ele.id();
        const n = this.nodeById.get(id);
        const r = n ? undefined : this.runById.get(id);
        const lane = n?.lane ?? r?.lane;
        if (lane === undefined) return;
        const row = this.rows[lane];
        const folded = row === undefined;
        if (folded !== ele.hasClass('folded')) ele.toggleClass('folded', folded);
        if (folded) return;
        let x: number;
        let w: number;
        let h: number;
        if (n) {
          const [a, b] = this.span(n);
          const x0 = PAD + a * this.scale;
          const x1 = PAD + b * this.scale;
          const isBar = n.txEnd !== undefined;
          x = isBar ? (x0 + x1) / 2 : x0;
          // Sizes are data the stylesheet maps (bypass styles cost far more per node).
          const stopSize = isTurnMark(n) ? mark : stop;
          w = isBar ? Math.max(6, x1 - x0) : n.kind === 'stop' ? stopSize : size;
          h = isBar ? barHeight : n.kind === 'stop' ? stopSize : size;
        } else {
          const x0 = PAD + r!.u0 * this.scale - size / 2;
          const x1 = PAD + r!.u1 * this.scale + size / 2;
          x = (x0 + x1) / 2;
          w = Math.max(8, x1 - x0);
          h = barHeight + 4;
        }
        const y = this.nodeY(lane, n?.row ?? r!.row);
        const p = ele.position();
        if (p.x !== x || p.y !== y) ele.position({ x, y });
        if (ele.data('w') !== w || ele.data('h') !== h) ele.data({ w, h });
      });
    });
    this.cullLabels();
    this.changed();
  }

  private readonly colors = kindColors();

  /** Node size, stop size, a turn end's mark size and bar height in px at the current row height. */
  private sizes(): { size: number; stop: number; mark: number; barHeight: number } {
    const size = Math.max(6, Math.min(NODE, this.rowHeight - 4));
    return { size, stop: Math.max(size, Math.min(STOP, this.rowHeight - 2)), mark: Math.max(6, size - 2), barHeight: Math.max(5, Math.min(10, size - 3)) };
  }

  /**
   * The screen box (px in the graph container) where an event is drawn, from the overview's
   * columns, loaded or not: its node or bar as `layout` places it (a result: its call's bar; inside
   * a run bar: the node it would be). Undefined when its lane is folded away.
   */
  eventBox(index: number): { x1: number; y1: number; x2: number; y2: number } | undefined {
    const drawn = this.drawnIndex(index);
    const lane = this.graph.columns.lane[drawn];
    if (this.rows[lane] === undefined) return undefined;
    const [a, b] = this.spanOf(drawn);
    const { size, stop, mark, barHeight } = this.sizes();
    const isBar = this.graph.columns.end[drawn] >= 0;
    const isStop = this.graph.kinds[this.graph.columns.kind[drawn]] === 'stop';
    const loaded = this.nodeById.get(`n${drawn}`);
    const stopSize = loaded && isTurnMark(loaded) ? mark : stop;
    const x0 = this.screenX(a);
    const x1 = this.screenX(b);
    const w = isBar ? Math.max(6, x1 - x0) : isStop ? stopSize : size;
    const h = isBar ? barHeight : isStop ? stopSize : size;
    const x = isBar ? (x0 + x1) / 2 : x0;
    const y = this.rowY(lane, this.graph.columns.row[drawn]);
    return { x1: x - w / 2, y1: y - h / 2, x2: x + w / 2, y2: y + h / 2 };
  }

  /** The key an event is drawn under in the loaded window: its node, its call's bar, or the run bar holding it. */
  keyOf(index: number): string | undefined {
    const drawn = this.drawnIndex(index);
    const id = `n${drawn}`;
    if (this.nodeById.has(id)) return id;
    const w = this.window;
    if (!w || w.mode !== this.mode) return undefined;
    const u = this.spanOf(drawn)[0];
    const run = runKey(w.mode, w.bucket, this.graph.columns.lane[drawn], this.graph.columns.row[drawn], Math.floor(u / w.bucket));
    return this.runById.has(run) ? run : undefined;
  }

  /**
   * Level of detail for labels: greedily keeps the labels of the most important events (stops,
   * marked events, spawns, delegations and returns, then the rest in time order) whose boxes do
   * not overlap a kept one in the same lane, each with its content (`Bash: npm test`) where that
   * fits, else its short form (`Bash`); the rest are hidden. Labels collide only within one row of
   * a lane. No label when rows are too low to hold one.
   */
  cullLabels(): void {
    const candidates: LabelCandidate[] = [];
    // one line of labels per lane row: a key per (lane, row)
    const line = (lane: number, row: number) => lane * 8 + Math.min(row, 7);
    if (this.rowHeight >= LABEL_ROW) {
      for (const n of this.nodeById.values()) {
        if (this.rows[n.lane] === undefined) continue;
        const [a, b] = this.span(n);
        candidates.push({ id: n.id, lane: line(n.lane, n.row), cx: PAD + ((a + b) / 2) * this.scale, text: stopLabel(n), ...(n.short ? { short: plainLabel(n.short) } : {}), bold: n.kind === 'stop', rank: priority(n), order: n.order });
      }
      for (const r of this.runById.values()) {
        if (this.rows[r.lane] === undefined) continue;
        candidates.push({ id: r.id, lane: line(r.lane, r.row), cx: PAD + ((r.u0 + r.u1) / 2) * this.scale, text: `${r.count} events`, bold: false, rank: RUN_RANK, order: r.order });
      }
    }
    this.labels.place(candidates, this.cy.width(), this.cy.pan().x);
  }

  /** Shows the labels that fit (graph-labels.ts). */
  private readonly labels: LabelPlacer;

  /**
   * Lane groups for the first view: while the visible lanes would be lower than 10 px, the agent
   * with the most sub-agent lanes is folded into one named lane (its own), which the lane column
   * unfolds on a click.
   */
  foldToFit(): void {
    const height = this.cy.height() || 400;
    this.rows = foldToFit(this.graph.lanes, this.collapsed, (rows) => rows * MIN_ROW <= height - 4);
    this.placeRows();
  }

  /** Lanes folded under a lane (its sub-agents, theirs, ...). */
  hiddenUnder(name: string): number {
    return lanesUnder(this.graph.lanes, name);
  }

  /** The scale and lane height at which the whole time span and every lane fit the panel (lanes at least 10 px). */
  fit(): void {
    const width = this.cy.width() || 600;
    const height = this.cy.height() || 400;
    this.scale = fitScale(width, this.axisLength());
    this.rowHeight = this.fitRowHeight(height);
    this.layout();
    this.lastSize = { width, height };
    this.cy.pan({ x: 0, y: 0 });
  }

  private lastSize = { width: 0, height: 0 };
  /** The container's client size at the last {@link resized}. */
  private lastClient = '';

  /**
   * After the panel changed size: the same time range stays in view (x scale and pan stretch
   * with the width) and the lanes fill the new height.
   */
  resized(): void {
    const container = this.cy.container();
    // Unchanged (the details pane filled again at the same width): Cytoscape's resize would redraw every element.
    const client = container ? `${container.clientWidth}x${container.clientHeight}` : '';
    if (client && client === this.lastClient) return;
    this.lastClient = client;
    this.cy.resize();
    const width = this.cy.width();
    const height = this.cy.height();
    const old = this.lastSize;
    this.lastSize = { width, height };
    if (!old.width || !width || (old.width === width && old.height === height)) return;
    const factor = (width - PAD - PAD_RIGHT) / Math.max(1, old.width - PAD - PAD_RIGHT);
    const pan = this.cy.pan();
    this.scale *= factor;
    this.rowHeight = this.fitRowHeight(height);
    this.layout();
    this.cy.pan({ x: pan.x * factor, y: pan.y });
  }

  /** Frames the axis range [a, b] (axis units) with `context` of its width on each side, and brings the lanes at the given places (see {@link row}) into view. */
  frame(a: number, b: number, rows: number[], context = 0.15, minShare = 1 / 200): void {
    const width = this.cy.width() || 600;
    const span = Math.max(b - a, this.axisLength() * minShare);
    if (b - a < span) a -= (span - (b - a)) / 2; // a short range is centred in the least span
    const lo = a - span * context;
    const hi = a + span * (1 + context);
    this.scale = Math.max(1e-9, (width - 2 * PAD) / (hi - lo));
    this.layout();
    const height = this.visibleHeight();
    const first = rows.length ? this.laneBox(this.shown[Math.min(...rows)]) : undefined;
    const last = rows.length ? this.laneBox(this.shown[Math.max(...rows)]) : undefined;
    const top = first ? first.top : 0;
    const bottom = last ? last.top + last.height : height;
    const pan = this.cy.pan();
    let y = pan.y;
    if (top + y < 0 || bottom + y > height) y = Math.min(0, height / 2 - (top + bottom) / 2);
    this.cy.pan({ x: -lo * this.scale, y });
  }

  /**
   * Frames some events (by index) from the overview's columns: their time range with context, their
   * lanes in view; the view spans at least `minShare` of the whole run.
   */
  frameIndices(indices: number[], context = 0.15, minShare = 1 / 200): void {
    if (!indices.length) return;
    let a = Infinity;
    let b = -Infinity;
    const rows: number[] = [];
    for (const i of indices) {
      const [s, e] = this.spanOf(this.drawnIndex(i));
      a = Math.min(a, s);
      b = Math.max(b, e);
      const row = this.rows[this.graph.columns.lane[i]];
      if (row !== undefined) rows.push(row);
    }
    this.frame(a, b, [Math.min(...rows), Math.max(...rows)].filter(Number.isFinite), context, minShare);
  }

  /** The screen x (px) of the middle of what draws an event (by index: its node, or its call's bar). */
  private middleX(drawn: number): number {
    const [a, b] = this.spanOf(drawn);
    return this.screenX((a + b) / 2);
  }

  /** True when an event (by index) is within the graph's width (below, something may cover it: {@link coveredBottom}). */
  inViewX(index: number): boolean {
    const x = this.middleX(this.drawnIndex(index));
    return x >= 0 && x <= this.cy.width();
  }

  /** Scrolls (no zoom) so that an event (by index) is on screen; works for events outside the loaded window. */
  ensureVisible(index: number): void {
    const drawn = this.drawnIndex(index);
    const x = this.middleX(drawn);
    const lane = this.graph.columns.lane[drawn];
    const y = this.rows[lane] === undefined ? undefined : this.rowY(lane, this.graph.columns.row[drawn]);
    const w = this.cy.width();
    const h = this.visibleHeight();
    const pan = { ...this.cy.pan() };
    let moved = false;
    if (x < 20 || x > w - 40) {
      // centred, but never scrolled past the run's start or end: a step to the run's first events
      // in a view of the whole run scrolled half a screen of nothing before t = 0 into view
      let shift = w / 2 - x;
      const end = this.screenX(this.axisLength()) + shift;
      if (end < w - PAD_RIGHT) shift += w - PAD_RIGHT - end;
      const start = this.screenX(0) + shift;
      if (start > PAD) shift -= start - PAD;
      if (Math.abs(shift) >= 1) {
        pan.x += shift;
        moved = true;
      }
    }
    if (y !== undefined && (y < 10 || y > h - 10)) {
      // centred, but never scrolled past the first lane's top or the last lane's bottom: a step to an
      // event of the first lanes left a band of nothing between the axis and the lanes
      const shift = Math.min(0, Math.max(h - this.innerRows * this.rowHeight, pan.y + h / 2 - y)) - pan.y;
      if (Math.abs(shift) >= 1) {
        pan.y += shift;
        moved = true;
      }
    }
    // Only when it moves: setting the same pan still redraws every element.
    if (moved) this.cy.pan(pan);
  }

  /**
   * Px at the bottom of the graph that something drawn over it covers (the details drawer of a
   * narrow panel): set by the page; a step or a frame brings the lanes into the rest of the height.
   */
  coveredBottom: () => number = () => 0;

  /** The graph's height in px less what covers its bottom ({@link coveredBottom}). */
  private visibleHeight(): number {
    const height = this.cy.height() || 400;
    return Math.max(height / 3, height - this.coveredBottom());
  }

  /** Zooms x by `factor` around screen x `at`. */
  zoomAt(factor: number, at: number): void {
    const u = this.axisAt(at);
    const min = ((this.cy.width() || 600) - 2 * PAD) / this.axisLength() / 2;
    this.scale = Math.min(4000, Math.max(min, this.scale * factor));
    this.layout();
    this.cy.pan({ x: at - PAD - u * this.scale, y: this.cy.pan().y });
  }

  /** Wheel: zoom x around the pointer, or pan (wheel.ts). */
  private onWheel(e: WheelEvent): void {
    e.preventDefault();
    e.stopPropagation();
    const gesture = wheelGesture(e, (e.currentTarget as HTMLElement).getBoundingClientRect().left);
    if ('pan' in gesture) {
      const pan = this.cy.pan();
      this.cy.pan({ x: pan.x + gesture.pan, y: pan.y });
    } else this.zoomAt(gesture.zoom, gesture.at);
  }

  /** The view, for restoring it (Esc, a hidden panel). */
  view(): ViewState {
    return { mode: this.mode, scale: this.scale, laneHeight: this.rowHeight, pan: { ...this.cy.pan() } };
  }

  /** Restores a view from {@link view}. */
  restore(v: ViewState): void {
    this.mode = v.mode;
    this.scale = v.scale;
    this.rowHeight = v.laneHeight;
    this.layout();
    this.cy.pan(v.pan);
  }

  /** Switches x between time and event order, keeping the whole trace in view. */
  setMode(mode: 'time' | 'order'): void {
    this.mode = mode;
    this.clear();
    this.fit();
  }

  /** Marks the events people labelled (class `human-label`: an outline, apart from otrace's borders); replaces the previous marks. */
  setPeoplesLabels(labels: readonly { index: number; text: string }[]): void {
    this.peoplesLabels = new Map(labels.map((l) => [l.index, l.text]));
    this.markPeoplesLabels();
  }

  /** Puts the `human-label` class on what draws each labelled event in the loaded window: its node, its call's bar or the run bar holding it. */
  private markPeoplesLabels(): void {
    const keys = new Set<string>();
    for (const index of this.peoplesLabels.keys()) {
      const key = this.keyOf(index);
      if (key) keys.add(key);
    }
    this.cy.batch(() => {
      this.cy.nodes('.human-label').forEach((node) => {
        if (!keys.has(node.id())) node.removeClass('human-label');
      });
      for (const key of keys) this.cy.getElementById(key).addClass('human-label');
    });
  }

  /** The words of the labels people gave an event, if any. */
  peoplesLabelOf(index: number): string | undefined {
    return this.peoplesLabels.get(index);
  }

  /** Cytoscape node of an event index (a result's is its call's bar), when loaded on its own. */
  nodeOfIndex(index: number): NodeSingular | undefined {
    const ele = this.cy.getElementById(`n${this.drawnIndex(index)}`);
    return ele.nonempty() ? (ele as NodeSingular) : undefined;
  }

  destroy(): void {
    this.cy.destroy();
  }
}



