/**
 * The part of a trace's graph that its analysis does not change (issue #30): lanes and their folds,
 * rows, the time axis, each event's axis position, time rank and bar, and the edges with the
 * derived spawn, message and return links. Built once per loaded trace and shared by the graphs of
 * its snapshots (the trace as read, then analysed), so a progressive load does not lay the trace
 * out twice; the analysis's marks, findings and credit are added on top (src/engine/graph-model.ts).
 * Reads no event content (long content may be let go between two snapshots). Pure: no `vscode`.
 */
import type { GraphModel } from '../shared/protocol';
import type { LoadedTrace } from '../trace/model';
import type { TraceEdge } from '../trace/schema';
import type { TraceEvent } from '../trace/schema';
import { KIND, kindColumn } from './kind-column';
import { byTimeOrderOf, firstIndexOfIds, LaneTable, toolCallPairs } from './lanes';
import { laneRows } from './lane-rows';
import { timeAxis, timeToAxis } from '../shared/axis';
import { PairNumbering } from '../analysis/pair-table';
import type { IdTable } from '../trace/id-table';
import { agentColumn } from './agent-column';
import { foldLanes, type FoldedLane, type FoldedLanes } from './lane-folds';
import { IdTable as IdTableClass } from '../trace/id-table';
import { extendStructure, isFollowed, keepGrowth, type EdgesKept } from './structure-growth';
import { columnWithRoom } from '../shared/append-column';

/** The graph's edges in columns: source and target are event indices of drawn nodes (a bar's call). */
export interface LayoutEdges {
  count: number;
  source: Int32Array;
  target: Int32Array;
  /** Index into `types`. */
  type: Uint16Array;
  types: string[];
  /** 1 for a derived link (`link<id>`), 0 for a trace edge (`edge<id>`). */
  derived: Uint8Array;
  /** The number in the edge's key. */
  id: Int32Array;
}

/**
 * What a trace's graph is laid out on, whatever its analysis says: per event (file order) its lane,
 * row, time rank, axis position and bar; the lanes as grouped and, past the lanes a graph shows,
 * folded; the edges. About 30 bytes per event plus 20 per edge.
 */
export interface LayoutStructure {
  /** The events drawn (the first `maxEvents` in file order). */
  events: readonly TraceEvent[];
  /**
   * The agents' lanes, one per trace and agent, in spawn-tree order (before any folding): its
   * `keyOf` gives an event's lane key, `indexOf` a lane key's index, `at` a lane as an object
   * (made when asked: 1M agents are not 1M objects kept), `traces` the trace ids of a file of several.
   */
  grouped: LaneTable;
  /** Events per lane of `grouped`. */
  groupedCounts: Int32Array;
  /** The folds, when the agents were more than the lanes a graph shows (src/engine/lane-folds.ts). */
  fold?: { lanes: FoldedLane[]; laneOf: Int32Array; folded: FoldedLanes };
  /** Events per shown lane, when folded. */
  shownCounts?: Int32Array;
  /** The number of lanes shown. */
  laneCount: number;
  /** Per shown lane, its rows. */
  rows: Uint8Array;
  axis: GraphModel['axis'];
  /** Per event: its shown lane (index into the graph's lanes). */
  lane: Int32Array;
  /** Per event: its row inside its lane (src/engine/lane-rows.ts). */
  row: Uint8Array;
  /** Per event: its rank in time order. */
  order: Int32Array;
  /** Per time rank: its event (the inverse of `order`). */
  byTime: Int32Array;
  /** Per event: its position on the time axis (axis units). */
  tx: Float64Array;
  /** Per event: the index of its result when it is a tool call drawn as a bar, else -1. */
  end: Int32Array;
  /** Per event: the index of the call whose bar it is drawn in (a tool result), else -1. */
  barOf: Int32Array;
  edges: LayoutEdges;
}

/** The structure of each loaded trace's whole graph, with what it was built from (to tell a trace whose events changed). */
const structures = new WeakMap<LoadedTrace, { events: readonly TraceEvent[]; n: number; edges: readonly TraceEdge[] | undefined; edgeCount: number; structure: LayoutStructure }>();
let builds = 0;

/** How many layout structures this process has built (a progressive load builds one for its two snapshots): for tests and benches. */
export function layoutStructureBuilds(): number {
  return builds;
}

/**
 * The {@link LayoutStructure} of the first `maxEvents` events of a loaded trace. That of all its
 * events is built once per `loaded` and kept with it while it lives (a WeakMap), unless its events
 * or edges changed since (another array, or another length). O(n log n) for n events; for a trace
 * of a file seen growing whose events and edges were only appended to since the last structure,
 * that one is extended instead (src/engine/structure-growth.ts: equal to a whole build).
 */
export function layoutStructure(loaded: LoadedTrace, maxEvents = Infinity): LayoutStructure {
  const all = loaded.trace.events;
  if (all.length > maxEvents) return buildStructure(all.slice(0, maxEvents), loaded.trace.edges ?? []);
  const edges = loaded.trace.edges;
  const known = structures.get(loaded);
  if (known && known.events === all && known.n === all.length && known.edges === edges && known.edgeCount === (edges?.length ?? 0)) return known.structure;
  // a trace that only grew since a structure was built for it (appends, nothing reaching back) extends that one (src/engine/structure-growth.ts)
  const structure = extendStructure(all, edges ?? []) ?? buildStructure(all, edges ?? [], isFollowed(loaded));
  structures.set(loaded, { events: all, n: all.length, edges, edgeCount: edges?.length ?? 0, structure });
  return structure;
}

/** Builds the structure of `events` (see {@link layoutStructure}); `growable`: keeps what an append extends it from (src/engine/structure-growth.ts). */
function buildStructure(events: readonly TraceEvent[], edges: readonly TraceEdge[], growable = false): LayoutStructure {
  builds++;
  const n = events.length;
  // One lane group per trace when the file holds several: lanes keyed by trace and agent; one trace's lanes in columns.
  const lanes = new LaneTable(events, edges);
  // a followed trace's columns that appends only add to get room after them (src/engine/append-column.ts)
  const tx = growable ? columnWithRoom(Float64Array, n) : new Float64Array(n);
  for (let i = 0; i < n; i++) tx[i] = events[i].t;
  const axis = timeAxis(tx);
  const byTime = byTimeOrderOf(tx);
  const order = growable ? columnWithRoom(Int32Array, n) : new Int32Array(n);
  for (let rank = 0; rank < n; rank++) order[byTime[rank]] = rank;
  // each id's first event (firstIndexOfIds), reading the ids through a holder an extension points at the grown list
  const holder = { events };
  const firstIndex = growable ? new IdTableClass(n, (i) => holder.events[i].id) : firstIndexOfIds(events);
  if (growable) for (let i = 0; i < n; i++) firstIndex.add(events[i].id, i);
  const times = growable ? columnWithRoom(Float64Array, n) : undefined;
  times?.set(tx);
  const lane = growable ? columnWithRoom(Int32Array, n) : new Int32Array(n);
  lane.set(lanes.laneOfEvent);
  // each lane's events sorted by their times, read from the column of times (tx before it holds axis positions)
  const byLane = new LaneEvents(tx, lane, lanes.length);
  // the times column read again, not the events (a pass over a million objects less)
  for (let i = 0; i < n; i++) tx[i] = timeToAxis(axis, tx[i]);
  // More agents than lanes a graph can show (1M events, each its own agent): the engine folds them into named groups.
  const groupedCounts = countsByLane(lane, lanes.length);
  const fold = foldLanes(lanes, groupedCounts);
  if (fold) for (let i = 0; i < n; i++) lane[i] = fold.laneOf[lane[i]];
  // a structure that appends extend keeps string keys for its open calls (structure-growth.ts); a folded one is never extended
  const grows = growable && !fold;
  const pairs = toolCallPairs(events, edges, { firstIndex, byTime, ...(grows ? {} : { agents: agentColumn(events) }) });
  const end = pairs.end;
  const barOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) if (end[i] >= 0) barOf[end[i]] = i;
  /** The lane (index into the graph's lanes) of an original lane. */
  const shownOf = (k: number) => (fold ? fold.laneOf[k] : k);
  const laneCount = fold ? fold.lanes.length : lanes.length;
  const { row, rows, state } = laneRows({ events, lane, laneCount, end, barOf, firstIndex });
  const kept: EdgesKept | undefined = grows ? ({} as EdgesKept) : undefined;
  const layoutEdges = graphEdges(events, edges, { lane, barOf, laneOfKey: (key) => lanes.indexOf(key), shownOf, keyOfTo: (e) => lanes.keyOfAgent(e, e.to!), firstAtOrAfter: (k, t, self) => byLane.firstAtOrAfter(k, t, self), firstIndex }, kept);
  byLane.dropTimes();
  const structure: LayoutStructure = {
    events,
    grouped: lanes,
    groupedCounts,
    ...(fold ? { fold, shownCounts: countsByLane(lane, laneCount) } : {}),
    laneCount,
    rows,
    axis,
    lane,
    row,
    order,
    byTime,
    tx,
    end,
    barOf,
    edges: layoutEdges,
  };
  if (kept && times) keepGrowth(structure, { holder, n, edgeCount: edges.length, firstIndex, laneOf: (k) => byLane.of(k), open: pairs.open as Map<string, number>, rows: state, times, links: kept, traceEdges: edges });
  return structure;
}

/** Events per lane, from the events' lane column. */
function countsByLane(lane: Int32Array, laneCount: number): Int32Array {
  const counts = new Int32Array(laneCount);
  for (const l of lane) if (l < laneCount) counts[l]++;
  return counts;
}

/** What {@link graphEdges} needs of the layout being built. */
interface EdgeContext {
  lane: Int32Array;
  barOf: Int32Array;
  /** The lane (before folding: an index into the structure's `grouped`) of a lane key. */
  laneOfKey: (key: string) => number | undefined;
  /** The shown lane (index into the graph's lanes) of a lane before folding. */
  shownOf: (k: number) => number;
  /** The lane key of the agent an event is addressed to (`to`). */
  keyOfTo: (e: TraceEvent) => string;
  /** The first event of lane k (before folding) at or after time `t` other than `self` (see {@link firstAtOrAfter}). */
  firstAtOrAfter: (k: number, t: number, self: number) => number | undefined;
  firstIndex: IdTable;
}

/**
 * The trace's edges and the derived links (see {@link buildGraph}), in columns. Pairs already
 * joined and the lanes each event's edges reach are kept in typed tables, not sets of strings.
 */
function graphEdges(events: readonly TraceEvent[], edges: readonly TraceEdge[], ctx: EdgeContext, kept?: EdgesKept): LayoutEdges {
  const n = events.length;
  const kinds = kindColumn(events);
  /** Whether event i may derive a link (its kind links, it names another agent in `to`). */
  const links = (i: number) => {
    const kind = kinds[i];
    if (kind !== KIND.spawn && kind !== KIND.return && kind !== KIND.delegate && kind !== KIND.message) return false;
    const e = events[i];
    return !!e.to && e.to !== e.agent;
  };
  // the edges made are at most the trace's and one per event that may derive a link: sized once
  // (a million events made these columns and the pairs' table a third larger, then doubled the table twice:
  // typed arrays whose bytes outside the heap start the collector marking the whole trace again)
  // (and listed once: each `to` read once, a pass over a million objects less)
  const linking = new Int32Array(n);
  let candidates = 0;
  for (let i = 0; i < n; i++) if (links(i)) linking[candidates++] = i;
  const capacity = edges.length + candidates;
  const out: LayoutEdges = { count: 0, source: new Int32Array(capacity), target: new Int32Array(capacity), type: new Uint16Array(capacity), types: [], derived: new Uint8Array(capacity), id: new Int32Array(capacity) };
  const typeIndex = new Map<string, number>();
  /** Drawn node pairs joined so far (numbered pairs: no string or number object per pair). */
  const joined = new PairNumbering(capacity);
  /** Per trace edge that resolves: its source event and the lane of its target (then grouped by source). */
  const edgeSource = new Int32Array(edges.length);
  const edgeLane = new Int32Array(edges.length);
  let resolved = 0;
  /** Adds a pair; @returns false when it was there already. */
  const added = (set: PairNumbering, a: number, b: number) => {
    const size = set.size;
    set.number(a, b);
    return set.size > size;
  };
  const drawn = (i: number) => (ctx.barOf[i] >= 0 ? ctx.barOf[i] : i);
  const push = (a: number, b: number, type: string, derived: boolean, id: number) => {
    let t = typeIndex.get(type);
    if (t === undefined) {
      typeIndex.set(type, (t = out.types.length));
      out.types.push(type);
    }
    const k = out.count++;
    out.source[k] = a;
    out.target[k] = b;
    out.type[k] = t;
    out.derived[k] = derived ? 1 : 0;
    out.id[k] = id;
  };
  // Edges name event ids; a repeated id stands for its first event (of the first trace holding it).
  const byId = ctx.firstIndex;
  edges.forEach((edge, i) => {
    const src = byId.get(edge.src);
    const dst = byId.get(edge.dst);
    if (src === undefined || dst === undefined) return;
    edgeSource[resolved] = src;
    edgeLane[resolved++] = ctx.lane[dst];
    const [a, b] = [drawn(src), drawn(dst)];
    if (a === b || !added(joined, a, b)) return;
    push(a, b, edge.type, false, i);
  });
  const reaches = lanesReached(n, edgeSource.subarray(0, resolved), edgeLane.subarray(0, resolved));
  const traceEdges = out.count;
  const derivedFrom: number[] = [];
  const pending: number[] = [];
  for (let c = 0; c < candidates; c++) {
    const i = linking[c];
    const e = events[i];
    const kind = kinds[i];
    const linkType = kind === KIND.spawn ? 'spawn' : kind === KIND.return ? 'return' : kind === KIND.delegate ? 'delegate' : 'message';
    const toLane = ctx.laneOfKey(ctx.keyOfTo(e));
    const toLaneIndex = toLane === undefined ? undefined : ctx.shownOf(toLane);
    if (toLaneIndex !== undefined && reaches(i, toLaneIndex)) continue;
    const target = toLane === undefined ? undefined : ctx.firstAtOrAfter(toLane, e.t, i);
    if (target === undefined) {
      if (toLaneIndex !== undefined) pending.push(i); // an event of that lane may come later (an append)
      continue;
    }
    const [a, b] = [drawn(i), drawn(target)];
    if (a === b || !added(joined, a, b)) continue;
    derivedFrom.push(i);
    push(a, b, linkType, true, out.count);
  }
  // Kept with the layout: only as long as the edges made.
  const k = out.count;
  if (kept) Object.assign(kept, { joined, traceEdges, derivedFrom: Int32Array.from(derivedFrom), pending: Int32Array.from(pending), typeIndex });
  return { ...out, source: out.source.slice(0, k), target: out.target.slice(0, k), type: out.type.slice(0, k), derived: out.derived.slice(0, k), id: out.id.slice(0, k) };
}

/** Whether a trace edge goes from event i into a lane: the edges' target lanes grouped by source event (two Int32Arrays, no set of pairs). */
function lanesReached(n: number, source: Int32Array, lane: Int32Array): (i: number, lane: number) => boolean {
  const start = new Int32Array(n + 1);
  for (const s of source) start[s + 1]++;
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const lanes = new Int32Array(source.length);
  const fill = start.slice(0, n);
  source.forEach((s, k) => (lanes[fill[s]++] = lane[k]));
  return (i, l) => {
    for (let k = start[i]; k < start[i + 1]; k++) if (lanes[k] === l) return true;
    return false;
  };
}

/**
 * Indices of the events of each lane, in time order (ties in file order): one column counted then
 * filled, a lane's events a range of it (a view made when asked for: no object per lane); a lane is
 * sorted only when its events are not in time order already.
 */
class LaneEvents {
  private readonly start: Int32Array;
  private readonly column: Int32Array;

  /** @param times per event its time (`t`); @param lane per event its lane (0 .. laneCount - 1). */
  constructor(times: Float64Array, lane: Int32Array, laneCount: number) {
    const n = times.length;
    const start = new Int32Array(laneCount + 1);
    for (let i = 0; i < n; i++) start[lane[i] + 1]++;
    for (let l = 0; l < laneCount; l++) start[l + 1] += start[l];
    const fill = start.slice(0, laneCount);
    const column = new Int32Array(n);
    for (let i = 0; i < n; i++) column[fill[lane[i]]++] = i;
    for (let l = 0; l < laneCount; l++) if (start[l + 1] - start[l] > 1) sortByTime(column.subarray(start[l], start[l + 1]), times);
    this.start = start;
    this.column = column;
    // the column's times side by side with it: a search reads neighbouring numbers, not an event object per step
    const sorted = new Float64Array(n);
    for (let j = 0; j < n; j++) sorted[j] = times[column[j]];
    this.times = sorted;
  }

  /** Per entry of the column, its event's time (until {@link dropTimes}). */
  private times: Float64Array | undefined;

  /** The events of lane k, in time order. */
  of(k: number): Int32Array {
    return this.column.subarray(this.start[k], this.start[k + 1]);
  }

  /**
   * The first event of lane k at or after time `t` (by binary search), other than `self`, as
   * {@link firstAtOrAfter} finds it in `of(k)`; undefined when none.
   */
  firstAtOrAfter(k: number, t: number, self: number): number | undefined {
    const times = this.times!;
    const column = this.column;
    let lo = this.start[k];
    let hi = this.start[k + 1];
    const until = hi;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    while (lo < until && column[lo] === self) lo++;
    return lo < until ? column[lo] : undefined;
  }

  /** Lets go of the times (8 bytes per event) once the searches are done. */
  dropTimes(): void {
    this.times = undefined;
  }
}

/** Sorts a lane's event indices by time, stable (as an array's sort is); left as it is when already in order. */
function sortByTime(lane: Int32Array, times: Float64Array): void {
  let sorted = true;
  for (let k = 1; k < lane.length && sorted; k++) sorted = times[lane[k - 1]] - times[lane[k]] <= 0;
  if (!sorted) lane.set(Array.from(lane).sort((a, b) => times[a] - times[b]));
}

/** The first event of a time-sorted lane at or after `t` (by binary search), other than `self`. */
export function firstAtOrAfter(events: readonly TraceEvent[], lane: Int32Array | undefined, t: number, self: number): number | undefined {
  if (!lane) return undefined;
  let lo = 0;
  let hi = lane.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[lane[mid]].t < t) lo = mid + 1;
    else hi = mid;
  }
  while (lo < lane.length && lane[lo] === self) lo++;
  return lane[lo];
}
