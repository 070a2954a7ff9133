/**
 * The layout structure of a trace that grows (a running agent's log, issue #30): when a trace's
 * events and edges only had others appended since its structure was built, the structure is
 * extended by the appended events instead of built again (src/engine/graph-structure.ts builds it
 * whole). Equal to a whole build of the same trace (test/unit/engine/structure-growth.test.ts).
 *
 * An append is taken in when nothing in it reaches back (the test of src/analysis/follow.ts, and
 * what the layout reads of the events): the old events are the same objects at the same places,
 * the old edges too; every time is a finite number and no new one is earlier than the latest old
 * one; the new events are of agents that have a lane, of the trace of the old ones, and none has
 * an id that an old event's `parent`, a result's `causes` or an edge named without finding it; no
 * new edge (one between old events is taken in: a writer puts an edge line after the events it
 * joins) starts at an old event whose link goes to the edge's lane, nor joins two old nodes that
 * an old link joins after it;
 * a new spawn or delegation gives no lane another spawner; no new result or edge pairs an old call
 * paired before; no new result pairs with an old call whose span holds other old events; and the agents were not folded into groups (over
 * 1,000 lanes). Anything else builds the structure whole, as before.
 *
 * Cost of an extension: O(appended) for the lanes, pairs, rows, edges and time ranks, plus copies
 * of the per-event columns that old events' values may change in (bars, rows, edges: typed arrays,
 * memory copies; the lanes, time ranks, times and positions are written after the old ones in the
 * same buffers: src/engine/append-column.ts), the axis made again from the distinct times kept
 * sorted and the running median of their gaps (O(distinct times), no sort), and every event's axis position computed again when the
 * axis's threshold changed (O(n log gaps), when the span or the median gap doubled:
 * src/shared/axis.ts; else the old positions stand). The whole build of a followed trace also makes
 * what extensions go on from (O(n) once: the ids no event answered, which events hold others, the
 * distinct times sorted). Pure: no `vscode`.
 */
import { canonicalType, type TraceEdge, type TraceEvent } from '../trace/schema';
import type { IdTable } from '../trace/id-table';
import type { PairNumbering } from '../analysis/pair-table';
import { axisThreshold, extendedTimeAxis, keepsPositions, timeAxisOfMedian, timeToAxis } from '../shared/axis';
import { RunningMedian } from './running-median';
import { extendLaneRows, namedParent, type LaneRowsState } from './lane-rows';
import { laneToolKey, pairOpenCalls } from './lanes';
import { firstAtOrAfter, type LayoutEdges, type LayoutStructure } from './graph-structure';
import { appendColumn, columnWithRoom } from '../shared/append-column';
import { samePrefix } from '../trace/shared-prefix';

/** What the whole build's edge pass leaves for an extension: the pairs joined, the derived links' events, the candidates left without a target. */
export interface EdgesKept {
  joined: PairNumbering;
  /** The edges from trace edges (they come first in the list). */
  traceEdges: number;
  /** Per derived link (in the list's order, after the trace edges): the event it is derived from. */
  derivedFrom: Int32Array;
  /** Events (ascending) that would link into a lane that had no event at or after them (one may come). */
  pending: Int32Array;
  /** Edge type -> index into the edges' `types`. */
  typeIndex: Map<string, number>;
}

/** What a whole build keeps for its extension (see {@link keepGrowth}). */
export interface GrowthSeed {
  /** The events the id table reads ids from (pointed at the grown list by an extension). */
  holder: { events: readonly TraceEvent[] };
  /** Events and edges the structure was built from. */
  n: number;
  edgeCount: number;
  /** Each id's first event. */
  firstIndex: IdTable;
  /** A lane's events in time order (ties in file order). */
  laneOf: (lane: number) => Int32Array;
  /** Tool calls still waiting for a result, per `agent NUL tool` (toolCallPairs). */
  open: Map<string, number>;
  rows: LaneRowsState;
  /** Per event its time as read (the axis's input). */
  times: Float64Array;
  links: EdgesKept;
  /** The trace's edges the structure was built from. */
  traceEdges: readonly TraceEdge[];
}

/** A structure that can be extended, with what it was made from. */
interface Growth extends GrowthSeed {
  structure: LayoutStructure;
  /**
   * The events and edges the structure was built from: the lists themselves (a growing reader
   * hands out new lists per load, TraceBuilder.finish with `keep`; a list grown in place is not
   * taken for an append: its old places cannot be checked).
   */
  seenEvents: readonly TraceEvent[];
  seenEdges: readonly TraceEdge[];
  more?: More;
}

/** What extensions go on from, made with the whole build they extend (O(n) once). */
interface More {
  /** The latest time of an event. */
  lastTime: number;
  /** The trace id of the events (at most one: a file of several traces is laid out whole). */
  traceId: string | undefined;
  /** Ids named by an event's `parent`, a result's `causes` or an edge that no event has. */
  unresolved: Set<string>;
  /** Per event: 1 when another event names it as `parent` (its span decides whether it holds them). */
  hasChild: Growable<Uint8Array>;
  /** Per lane: its events in time order. */
  lists: Growable<Int32Array>[];
  /** Event indices in time order (the inverse of the structure's `order`). */
  byTime: Growable<Int32Array>;
  /** The distinct times, ascending, and the median of the gaps between successive ones. */
  uniq: Growable<Float64Array>;
  gaps: RunningMedian;
  /** The width of the gaps of the axis an extension made last ({@link axisThreshold}; undefined before the first). */
  threshold?: number;
}

/** A typed array with room to grow; `data.subarray(0, length)` holds the values. */
interface Growable<T extends Int32Array | Float64Array | Uint8Array> {
  data: T;
  length: number;
}

/** Structures that can be extended, by the first event of the trace they were built from (a trace whose first event changed is another trace). */
const growths = new WeakMap<TraceEvent, Growth>();
let extensions = 0;
/** Why the last structure asked for was not extended (or `extended`). */
let lastWhy = 'nothing asked yet';

/** How many layout structures this process extended by appends instead of building them (tests and benches). */
export function layoutStructureExtensions(): number {
  return extensions;
}

/** Why the last structure asked for of a trace seen before was built whole (`extended` when it was not): for tests and benches. */
export function lastExtension(): string {
  return lastWhy;
}

/** Notes why an extension was declined; @returns undefined (the structure is built whole). */
function decline(why: string): undefined {
  lastWhy = why;
  return undefined;
}

/** Loaded traces of files seen growing: only their structures keep what an append extends them from (tens of MB at 1M events). */
const followed = new WeakSet<object>();

/**
 * Says that a loaded trace is of a file seen growing (a session follows it): its layout
 * structure, when built whole, keeps what the next append extends it from. Others keep nothing.
 */
export function followLayout(loaded: object): void {
  followed.add(loaded);
}

/** True when {@link followLayout} was said of `loaded`. */
export function isFollowed(loaded: object): boolean {
  return followed.has(loaded);
}

/** Per extended structure, the one it was extended from (held weakly), its number of events, and the numbers of the edges the extension added (ascending). */
const origins = new WeakMap<LayoutStructure, { from: WeakRef<LayoutStructure>; n: number; insertedEdges: Int32Array }>();

/**
 * The structure `structure` was extended from and how many events that one has (its events are
 * the first ones of `structure`, the same objects at the same places), while it is still in
 * memory: what is made per structure (src/engine/graph-index.ts) can be extended the same way.
 * `insertedEdges`: the numbers of `structure`'s edges that the extension added, ascending (its
 * other edges are the old ones, in their order, with the same events).
 */
export function grownFrom(structure: LayoutStructure): { structure: LayoutStructure; n: number; insertedEdges: Int32Array } | undefined {
  const o = origins.get(structure);
  const from = o?.from.deref();
  return o && from ? { structure: from, n: o.n, insertedEdges: o.insertedEdges } : undefined;
}

/** Keeps a whole build's structure and what an append extends it from (called by the build). */
export function keepGrowth(structure: LayoutStructure, seed: GrowthSeed): void {
  const events = seed.holder.events;
  if (events.length === 0 || structure.fold || structure.grouped.traces.length > 1) return;
  const growth: Growth = { ...seed, structure, seenEvents: events, seenEdges: seed.traceEdges };
  // what extensions go on from, made with the whole build (O(n), about 0.5 s at 1M events, beside the build's own seconds) rather than by the first append
  growth.more = moreOf(growth);
  growths.set(events[0], growth);
}

/**
 * The structure of `events` and `edges` extended from the one built for their first
 * `n` events and `edgeCount` edges, when the rest was appended and reaches nothing back (see the
 * module's comment); undefined when it must be built whole. The structure extended cannot be
 * extended again (its successor is).
 */
export function extendStructure(events: readonly TraceEvent[], edges: readonly TraceEdge[]): LayoutStructure | undefined {
  if (events.length === 0) return decline('no events');
  const g = growths.get(events[0]);
  if (!g) return decline('no structure kept for this trace');
  const n0 = g.n;
  const n = events.length;
  const e0 = g.edgeCount;
  if (n < n0 || edges.length < e0) return decline('fewer events or edges');
  if ((events === g.seenEvents && n !== n0) || (edges === g.seenEdges && edges.length !== e0)) return decline('a list grown in place');
  // O(1) for the lists a growing read noted (src/trace/shared-prefix.ts), else compared one by one
  if (!samePrefix(events, g.seenEvents, n0)) return decline('an old event changed or moved');
  if (!samePrefix(edges, g.seenEdges, e0)) return decline('an old edge changed or moved');
  const s = g.structure;
  if (n === n0 && edges.length === e0) {
    // the same events and edges (another read of an unchanged trace, e.g. once its file is no longer
    // written): the same columns, made from `s` as an append of nothing (its graph index and overview
    // go on from `s`'s), and the one the next append extends
    lastWhy = 'unchanged';
    const same: LayoutStructure = { ...s, events };
    g.holder.events = events;
    origins.set(same, { from: new WeakRef(s), n: n0, insertedEdges: new Int32Array(0) });
    growths.set(events[0], { ...g, structure: same, seenEvents: events, seenEdges: edges });
    return same;
  }
  const more = g.more ?? moreOf(g);
  if (!more) return decline('a time that is not a finite number');
  // the new events: times, trace, lanes, ids that old events named without finding
  let traceId = more.traceId;
  let lastTime = more.lastTime;
  for (let i = n0; i < n; i++) {
    const e = events[i];
    if (typeof e.t !== 'number' || !Number.isFinite(e.t) || e.t < more.lastTime) return decline('a time earlier than the last one');
    lastTime = Math.max(lastTime, e.t);
    if (typeof e.trace_id === 'string') {
      if (traceId === undefined) traceId = e.trace_id;
      else if (traceId !== e.trace_id) return decline('a second trace');
    }
    if (s.grouped.indexOf(s.grouped.keyOf(e)) === undefined) return decline('a new agent (lane)');
    if (more.unresolved.has(e.id)) return decline('an id old events named without finding it');
    const kind = canonicalType(e.type);
    if ((kind === 'spawn' || kind === 'delegate') && e.to !== undefined && e.to !== e.agent && !keepsSpawner(s, e.to, e.agent, kind === 'spawn')) return decline('a spawn or delegation that gives a lane another spawner');
  }
  // ids (a repeated id stands for its first event); from here on what the growth keeps changes: it is taken
  growths.delete(events[0]);
  g.holder.events = events;
  const byId = g.firstIndex;
  for (let i = n0; i < n; i++) byId.add(events[i].id, i);
  // new edges join new events only
  const newEdges: { src: number; dst: number; k: number }[] = [];
  for (let k = e0; k < edges.length; k++) {
    const edge = edges[k];
    const src = byId.get(edge.src);
    const dst = byId.get(edge.dst);
    if (src === undefined || dst === undefined) continue;
    if (edge.type === 'spawn' && !keepsSpawner(s, events[dst].agent, events[src].agent, true)) return decline('a new spawn edge gives a lane another spawner');
    newEdges.push({ src, dst, k });
  }
  // time ranks: the new events after the old ones, in time order among themselves
  const newByTime = Array.from({ length: n - n0 }, (_, k) => n0 + k).sort((a, b) => events[a].t - events[b].t || a - b);
  // tool calls and their results (toolCallPairs on the new events, from the state the old ones left)
  // the calls' result and the results' call: the old columns extended in place (src/shared/append-column.ts);
  // an old event's entry the pairing changes is kept aside and written into a copy of its own after it
  let end = appendColumn(s.end, n).fill(-1, n0);
  let barOf = appendColumn(s.barOf, n).fill(-1, n0);
  const oldEnd = new Map<number, number>();
  const oldBar = new Map<number, number>();
  const endAt = (i: number) => (i < n0 ? (oldEnd.get(i) ?? end[i]) : end[i]);
  const barAt = (i: number) => (i < n0 ? (oldBar.get(i) ?? barOf[i]) : barOf[i]);
  const open = new Map(g.open);
  const kind = (i: number) => canonicalType(events[i].type);
  const pairedOld: number[] = [];
  let reachesBack = false;
  const pair = (call: number | undefined, result: number | undefined, byName: boolean) => {
    if (call === undefined || result === undefined || barAt(result) >= 0) return;
    if (kind(call) !== 'tool_call' || kind(result) !== 'tool_result' || events[result].t < events[call].t) return;
    if (endAt(call) >= 0) {
      // an old call paired by the time order before: a whole build pairs it with this result first
      if (byName && call < n0 && s.end[call] >= 0) reachesBack = true;
      return;
    }
    if (call < n0) oldEnd.set(call, result);
    else end[call] = result;
    if (result < n0) oldBar.set(result, call);
    else barOf[result] = call;
    if (call < n0) {
      pairedOld.push(call);
      // a whole build pairs it before the time order: it is no longer open there
      const key = laneToolKey(events[call]);
      if (open.get(key) === call) open.delete(key);
    }
  };
  // an old call paired before (by the time order, maybe): a whole build pairs it by this edge first
  for (const { src, dst, k } of newEdges) if (edges[k].type === 'tool_dependency') pair(src, dst, src < n0);
  for (let i = n0; i < n; i++) {
    if (kind(i) !== 'tool_result') continue;
    const e = events[i];
    if (e.parent !== undefined) pair(byId.get(e.parent), i, true);
    for (const ref of e.causes ?? []) if (ref !== undefined) pair(byId.get(ref), i, true);
  }
  if (reachesBack) return decline('a new result names an old call paired before');
  // (it reads the ends of new calls only, and whether new results are taken)
  pairOpenCalls(newByTime, kind, (i) => laneToolKey(events[i]), open, end, (i) => barAt(i) >= 0, (call, i) => pair(call, i, false));
  end = withChanges(end, oldEnd);
  barOf = withChanges(barOf, oldBar);
  // an old call whose span now ends later may hold old events it did not (their rows change)
  for (const c of pairedOld) if (more.hasChild.data[c]) return decline('the span of an old call now holds old events');
  // lanes
  const lane = appendColumn(s.lane, n);
  const groupedCounts = s.groupedCounts.slice();
  for (let i = n0; i < n; i++) {
    lane[i] = s.grouped.indexOf(s.grouped.keyOf(events[i])) ?? 0;
    groupedCounts[lane[i]]++;
  }
  // edges (before anything is changed that a whole build would have to redo)
  const edgesOut = extendEdges(g, more, events, edges, { lane, barOf, newEdges, n0 });
  if (!edgesOut) return decline('a new link joins two old nodes an old link joins after it');
  // from here on, nothing returns undefined
  extensions++;
  lastWhy = 'extended';
  const order = appendColumn(s.order, n);
  newByTime.forEach((i, r) => (order[i] = n0 + r));
  const { row, rows, state } = extendLaneRows({ events, lane, laneCount: s.laneCount, end, barOf, firstIndex: byId }, g.rows, s.row, n0);
  while (more.hasChild.length < n) pushGrowable(more.hasChild, 0);
  for (let i = n0; i < n; i++) {
    const p = namedParent({ events, lane, barOf, firstIndex: byId }, i);
    if (p >= 0) more.hasChild.data[p] = 1;
  }
  // the time axis, from the distinct times kept sorted
  const times = appendColumn(g.times.subarray(0, n0), n);
  for (let i = n0; i < n; i++) times[i] = events[i].t;
  const newGaps: number[] = [];
  const oldTimes = more.uniq.length;
  for (const i of newByTime) {
    const t = times[i];
    const last = more.uniq.length ? more.uniq.data[more.uniq.length - 1] : undefined;
    if (last !== undefined && t === last) continue;
    if (last !== undefined) newGaps.push(t - last);
    pushGrowable(more.uniq, t);
  }
  for (const gap of newGaps) more.gaps.add(gap);
  const uniq = more.uniq.data.subarray(0, more.uniq.length);
  // gaps as wide as the last axis's: only the new times are read for more (O(appended + gaps), not O(distinct times))
  const threshold = uniq.length ? axisThreshold(uniq, more.gaps.median) : 0;
  const axis = threshold === more.threshold && oldTimes > 0 ? extendedTimeAxis(s.axis, uniq, oldTimes, threshold) : timeAxisOfMedian(uniq, more.gaps.median);
  more.threshold = threshold;
  for (const i of newByTime) pushGrowable(more.byTime, i);
  // the old positions stand unless the axis's threshold changed (its span or median gap doubled: src/shared/axis.ts)
  const kept = keepsPositions(s.axis, axis, more.lastTime);
  const tx = kept ? appendColumn(s.tx, n) : new Float64Array(n);
  for (let i = kept ? n0 : 0; i < n; i++) tx[i] = timeToAxis(axis, times[i]);
  // per lane, its events in time order
  for (const i of newByTime) pushGrowable(more.lists[lane[i]], i);
  more.lastTime = lastTime;
  more.traceId = traceId;
  for (let i = n0; i < n; i++) noteUnresolved(more.unresolved, byId, events[i]);
  for (let k = e0; k < edges.length; k++) for (const id of [edges[k].src, edges[k].dst]) if (byId.get(id) === undefined) more.unresolved.add(id);
  // the time ranks' events: the old ones, then the new ones (pushed above), read where they are kept (never written again below the length read)
  const byTime = more.byTime.data.subarray(0, more.byTime.length);
  const structure: LayoutStructure = { ...s, events, groupedCounts, rows, axis, lane, row, order, byTime, tx, end, barOf, edges: edgesOut.edges };
  origins.set(structure, { from: new WeakRef(s), n: n0, insertedEdges: edgesOut.inserted });
  growths.set(events[0], {
    holder: g.holder,
    n,
    edgeCount: edges.length,
    firstIndex: byId,
    laneOf: laneListsOf(more),
    open,
    rows: state,
    times,
    links: edgesOut.kept,
    traceEdges: edges,
    structure,
    seenEvents: events,
    seenEdges: edges,
    more,
  });
  return structure;
}

/** `column` with the entries of `changes` written, in a copy of its own when there are any (the old view of its buffer is another structure's). */
function withChanges(column: Int32Array, changes: Map<number, number>): Int32Array {
  if (changes.size === 0) return column;
  const out = columnWithRoom(Int32Array, column.length);
  out.set(column);
  for (const [i, v] of changes) out[i] = v;
  return out;
}

/**
 * A lane's events in time order, read from `more`'s lists. (A function of its own: a closure made
 * in {@link extendStructure} would hold that call's scope, the structure and events before the
 * append among it, as long as the growth it is kept in lives.)
 */
function laneListsOf(more: More): (lane: number) => Int32Array {
  return (l) => more.lists[l].data.subarray(0, more.lists[l].length);
}

/**
 * The edges of the extended structure, in a whole build's order: the trace edges (old, then new),
 * then the derived links by the event they come from (old ones, those of old events that found a
 * target among the new events, then the new events'); undefined when a new edge or link joins two
 * old nodes that an old link joins after it in a whole build's order (the whole build keeps the new
 * one), or a new edge starts at an old event that has a link into the edge's lane (a whole build
 * draws no link then). `inserted`: the numbers of the edges added, ascending (the others are the
 * old ones, in their order: src/engine/edge-lookup.ts reads the old lookup through them).
 */
function extendEdges(g: Growth, more: More, events: readonly TraceEvent[], edges: readonly TraceEdge[], at: { lane: Int32Array; barOf: Int32Array; newEdges: { src: number; dst: number; k: number }[]; n0: number }): { edges: LayoutEdges; kept: EdgesKept; inserted: Int32Array } | undefined {
  const { lane, barOf, newEdges, n0 } = at;
  const s = g.structure;
  const old = s.edges;
  const kept = g.links;
  const drawn = (i: number) => (barOf[i] >= 0 ? barOf[i] : i);
  const n = events.length;
  // the new events of each lane, in time order, to look targets up in
  const newOfLane = new Map<number, number[]>();
  for (let i = n0; i < n; i++) {
    const list = newOfLane.get(lane[i]);
    if (list) list.push(i);
    else newOfLane.set(lane[i], [i]);
  }
  for (const list of newOfLane.values()) list.sort((a, b) => events[a].t - events[b].t || a - b);
  /** The first event of lane l at or after t other than self: in the old list, else among the new ones. */
  const target = (l: number, t: number, self: number): number | undefined => {
    const oldList = more.lists[l];
    const found = firstAtOrAfter(events, oldList.data.subarray(0, oldList.length), t, self);
    if (found !== undefined) return found;
    return firstAtOrAfter(events, Int32Array.from(newOfLane.get(l) ?? []), t, self);
  };
  /**
   * A new edge (before: at `place`, an edge or the event of a link) between two old nodes: false
   * when an old link already joins them that comes after it in a whole build's order (the whole
   * build would keep the new one and drop the old); a new one that comes after is dropped below.
   */
  const fitsBetweenOld = (a: number, b: number, place: { traceEdge: true } | { event: number }) => {
    if (!kept.joined.has(a, b)) return true;
    for (let k = 0; k < old.count; k++) {
      if (old.source[k] !== a || old.target[k] !== b) continue;
      if (k < kept.traceEdges) return true; // an old trace edge comes first
      return 'event' in place && kept.derivedFrom[k - kept.traceEdges] < place.event;
    }
    return true;
  };
  /** The lane an event's link goes to (its `to`), if it has one. */
  const toLane = (e: TraceEvent) => (e.to === undefined ? undefined : s.grouped.indexOf(s.grouped.keyOfAgent(e, e.to)));
  // what is pushed, checked before the pairs joined are changed
  const traceAdds: [number, number, string, number][] = [];
  const reached = new Map<number, number[]>();
  /** Old events whose link waiting for a target a new edge into its lane makes needless (a whole build draws no link then). */
  const unpending = new Set<number>();
  for (const { src, dst, k } of newEdges) {
    if (src < n0 && toLane(events[src]) === lane[dst]) {
      // an old event with a new edge into the lane its link goes to: a whole build draws no link
      if (binarySearch(kept.derivedFrom, src)) return undefined;
      unpending.add(src);
    }
    const list = reached.get(src);
    if (list) list.push(lane[dst]);
    else reached.set(src, [lane[dst]]);
    const a = drawn(src);
    const b = drawn(dst);
    if (a === b) continue;
    if (a < n0 && b < n0 && !fitsBetweenOld(a, b, { traceEdge: true })) return undefined;
    traceAdds.push([a, b, edges[k].type, k]);
  }
  const linkType = (e: TraceEvent) => {
    const kind = canonicalType(e.type);
    return kind === 'spawn' || kind === 'return' || kind === 'delegate' || kind === 'message' ? kind : undefined;
  };
  /** Derived links found: [event, a, b, type]. */
  const pendingAdds: [number, number, number, string][] = [];
  const pendingLeft: number[] = [];
  for (const i of kept.pending) {
    if (unpending.has(i)) continue;
    const e = events[i];
    const l = s.grouped.indexOf(s.grouped.keyOfAgent(e, e.to!));
    if (l === undefined || !newOfLane.has(l)) {
      pendingLeft.push(i);
      continue;
    }
    const t = target(l, e.t, i);
    if (t === undefined) {
      pendingLeft.push(i);
      continue;
    }
    const a = drawn(i);
    const b = drawn(t);
    if (a === b) continue;
    if (b < n0 && !fitsBetweenOld(a, b, { event: i })) return undefined;
    pendingAdds.push([i, a, b, linkType(e)!]);
  }
  const newAdds: [number, number, number, string][] = [];
  const newPending: number[] = [];
  for (let i = n0; i < n; i++) {
    const e = events[i];
    const type = linkType(e);
    if (!type || !e.to || e.to === e.agent) continue;
    const l = s.grouped.indexOf(s.grouped.keyOfAgent(e, e.to));
    if (l !== undefined && reached.get(i)?.includes(l)) continue;
    const t = l === undefined ? undefined : target(l, e.t, i);
    if (t === undefined) {
      if (l !== undefined) newPending.push(i);
      continue;
    }
    const a = drawn(i);
    const b = drawn(t);
    if (a === b) continue;
    newAdds.push([i, a, b, type]);
  }
  // now the pairs joined change: in a whole build's order (trace edges, then links by event)
  const joined = kept.joined;
  const added = (a: number, b: number) => {
    const size = joined.size;
    joined.number(a, b);
    return joined.size > size;
  };
  const types = old.types.slice();
  const typeIndex = new Map(kept.typeIndex);
  const typeOf = (type: string) => {
    let t = typeIndex.get(type);
    if (t === undefined) {
      typeIndex.set(type, (t = types.length));
      types.push(type);
    }
    return t;
  };
  const traceNew = traceAdds.filter(([a, b]) => added(a, b));
  const pendingNew = pendingAdds.filter(([, a, b]) => added(a, b));
  const derivedNew = newAdds.filter(([, a, b]) => added(a, b));
  const count = old.count + traceNew.length + pendingNew.length + derivedNew.length;
  if (traceNew.length === 0 && pendingNew.length === 0) return appendedLinks(old, kept, { count, types, typeOf, derivedNew, pending: [...pendingLeft, ...newPending], joined, typeIndex });
  // with room: the next append's links extend these in their memory (appendedLinks), not copies of them
  const out: LayoutEdges = { count, source: columnWithRoom(Int32Array, count), target: columnWithRoom(Int32Array, count), type: columnWithRoom(Uint16Array, count), types, derived: columnWithRoom(Uint8Array, count), id: columnWithRoom(Int32Array, count) };
  const derivedFrom = columnWithRoom(Int32Array, count - kept.traceEdges - traceNew.length);
  let k = 0;
  /** Copies old edges [from, to) (the old type numbers stand: `types` starts with the old ones); a derived link's id is its place. */
  const copy = (from: number, to: number) => {
    out.source.set(old.source.subarray(from, to), k);
    out.target.set(old.target.subarray(from, to), k);
    out.derived.set(old.derived.subarray(from, to), k);
    out.type.set(old.type.subarray(from, to), k);
    // (old links staying at their place keep their ids: copied as memory, not one by one)
    if (from >= kept.traceEdges && k !== from) for (let j = 0; j < to - from; j++) out.id[k + j] = k + j;
    else out.id.set(old.id.subarray(from, to), k);
    k += to - from;
  };
  /** The numbers of the edges added (pushed, not copied): ascending. */
  const inserted: number[] = [];
  const push = (a: number, b: number, type: string, derived: boolean, id: number) => {
    inserted.push(k);
    out.source[k] = a;
    out.target[k] = b;
    out.type[k] = typeOf(type);
    out.derived[k] = derived ? 1 : 0;
    out.id[k] = id;
    k++;
  };
  copy(0, kept.traceEdges);
  for (const [a, b, type, id] of traceNew) push(a, b, type, false, id);
  const traceEdges = k;
  // the old links and those found for old events, by event
  let d = 0;
  const oldLinks = old.count - kept.traceEdges;
  for (let p = 0; p <= pendingNew.length; p++) {
    // the old links before the next one found for an old event (all that are left after the last)
    let upTo = d;
    if (p === pendingNew.length) upTo = oldLinks;
    else while (upTo < oldLinks && kept.derivedFrom[upTo] < pendingNew[p][0]) upTo++;
    derivedFrom.set(kept.derivedFrom.subarray(d, upTo), k - traceEdges);
    copy(kept.traceEdges + d, kept.traceEdges + upTo);
    d = upTo;
    if (p === pendingNew.length) break;
    const [i, a, b, type] = pendingNew[p];
    derivedFrom[k - traceEdges] = i;
    push(a, b, type, true, k);
  }
  for (const [i, a, b, type] of derivedNew) {
    derivedFrom[k - traceEdges] = i;
    push(a, b, type, true, k);
  }
  const pending = Int32Array.from([...pendingLeft, ...newPending]);
  return { edges: out, kept: { joined, traceEdges, derivedFrom, pending, typeIndex }, inserted: Int32Array.from(inserted) };
}

/**
 * {@link extendEdges} when the append only adds links after the old ones (no trace edge, no link of
 * an old event: the common append): the old columns are extended in place (src/shared/append-column.ts)
 * and only the new links written, instead of copying every edge (15 bytes each) on each append.
 */
function appendedLinks(
  old: LayoutEdges,
  kept: EdgesKept,
  add: { count: number; types: string[]; typeOf: (type: string) => number; derivedNew: [number, number, number, string][]; pending: number[]; joined: EdgesKept['joined']; typeIndex: EdgesKept['typeIndex'] },
): { edges: LayoutEdges; kept: EdgesKept; inserted: Int32Array } {
  const { count, derivedNew } = add;
  const column = <T extends Int32Array | Uint16Array | Uint8Array>(c: T) => appendColumn(c.subarray(0, old.count) as T, count);
  const out: LayoutEdges = { count, source: column(old.source), target: column(old.target), type: column(old.type), types: add.types, derived: column(old.derived), id: column(old.id) };
  const derivedFrom = appendColumn(kept.derivedFrom, count - kept.traceEdges);
  const inserted = new Int32Array(derivedNew.length);
  derivedNew.forEach(([i, a, b, type], q) => {
    const k = old.count + q;
    out.source[k] = a;
    out.target[k] = b;
    out.type[k] = add.typeOf(type);
    out.derived[k] = 1;
    // a derived link's id is its place
    out.id[k] = k;
    derivedFrom[k - kept.traceEdges] = i;
    inserted[q] = k;
  });
  return { edges: out, kept: { joined: add.joined, traceEdges: kept.traceEdges, derivedFrom, pending: Int32Array.from(add.pending), typeIndex: add.typeIndex }, inserted };
}

/** True when the ascending list holds v. */
function binarySearch(list: Int32Array, v: number): boolean {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length && list[lo] === v;
}

/** True when a spawn (`spawn`) or delegation from agent `by` to agent `to` gives `to`'s lane no other spawner than it has (src/engine/lanes.ts, laneTree). */
function keepsSpawner(s: LayoutStructure, to: string, by: string, spawn: boolean): boolean {
  const k = s.grouped.indexOf(to);
  if (k === undefined) return true; // no such agent: the claim is not made
  const parent = s.grouped.at(k).parent;
  // a delegation claims only a lane without a spawner; a spawn, the spawner it has (spawns claim before delegations)
  return parent === by || (!spawn && parent !== undefined);
}

/** What later extensions go on from (O(n) once); undefined when the old events cannot be extended (a time that is not a finite number). */
function moreOf(g: Growth): More | undefined {
  const s = g.structure;
  const events = g.seenEvents;
  const n = g.n;
  let lastTime = -Infinity;
  let traceId: string | undefined;
  for (let i = 0; i < n; i++) {
    const e = events[i];
    if (typeof e.t !== 'number' || !Number.isFinite(e.t)) return undefined;
    if (e.t > lastTime) lastTime = e.t;
    if (traceId === undefined && typeof e.trace_id === 'string') traceId = e.trace_id;
  }
  const unresolved = new Set<string>();
  const hasChild = { data: new Uint8Array(Math.max(16, n + (n >> 3))), length: n };
  const input = { events, lane: s.lane, barOf: s.barOf, firstIndex: g.firstIndex };
  for (let i = 0; i < n; i++) {
    noteUnresolved(unresolved, g.firstIndex, events[i]);
    const p = namedParent(input, i);
    if (p >= 0) hasChild.data[p] = 1;
  }
  for (let k = 0; k < g.edgeCount; k++) for (const id of [g.seenEdges[k].src, g.seenEdges[k].dst]) if (g.firstIndex.get(id) === undefined) unresolved.add(id);
  const lists = Array.from({ length: s.grouped.length }, (_, l) => {
    const list = g.laneOf(l);
    const data = new Int32Array(Math.max(16, list.length * 2));
    data.set(list);
    return { data, length: list.length };
  });
  const sorted = g.times.slice(0, n).sort();
  let unique = 0;
  for (let i = 0; i < n; i++) if (unique === 0 || sorted[i] !== sorted[unique - 1]) sorted[unique++] = sorted[i];
  const gaps = new Float64Array(Math.max(0, unique - 1));
  for (let i = 1; i < unique; i++) gaps[i - 1] = sorted[i] - sorted[i - 1];
  gaps.sort();
  const uniq = new Float64Array(Math.max(16, unique * 2));
  uniq.set(sorted.subarray(0, unique));
  const byTime = new Int32Array(Math.max(16, n + (n >> 3)));
  for (let i = 0; i < n; i++) byTime[s.order[i]] = i;
  return { lastTime, traceId, unresolved, hasChild, lists, byTime: { data: byTime, length: n }, uniq: { data: uniq, length: unique }, gaps: new RunningMedian(gaps) };
}

/** Adds to `unresolved` the ids event `e` names that no event has: its `parent`, and a result's `causes`. */
function noteUnresolved(unresolved: Set<string>, byId: IdTable, e: TraceEvent): void {
  if (e.parent !== undefined && byId.get(e.parent) === undefined) unresolved.add(e.parent);
  if (canonicalType(e.type) === 'tool_result') for (const ref of e.causes ?? []) if (ref !== undefined && byId.get(ref) === undefined) unresolved.add(ref);
}

/** Appends v, doubling the room when full. */
function pushGrowable<T extends Int32Array | Float64Array | Uint8Array>(g: Growable<T>, v: number): void {
  if (g.length === g.data.length) {
    const data = new (g.data.constructor as new (n: number) => T)(Math.max(16, g.data.length * 2));
    data.set(g.data);
    g.data = data;
  }
  g.data[g.length++] = v;
}

