/**
 * The windowed graph of a trace session: the overview of the whole trace (lanes, axis, findings,
 * compact event columns) and, per request, the nodes, run bars and edges of one axis range at one
 * level of detail. The webview draws only windows, so every event of any trace is reachable while
 * Cytoscape holds a bounded number of elements. Pure: no `vscode` (the engine may run it in a worker).
 */
import type { GraphEdge, GraphNode, GraphOverview, GraphRun, GraphWindow, WindowRequest } from '../protocol';
import { eventCues } from '../panel/cues';
import { eventDetails, graphLayout, layoutEdge, layoutNode, nodeLabel, type GraphLayout } from '../panel/graph-model';
import { canonicalType } from '../trace/schema';
import { packOverview } from '../graph-columns';
import { contentsOf, eventWithContent } from './long-content';
import { bucketWidth, runKey } from '../panel/layout';
import type { TraceSnapshot } from './snapshot';

/**
 * A run bar forms where a lane has at least this many events in one bucket (a bucket is
 * `BUCKET_PX` = 16 px: three 14 px nodes in it would overlap anyway).
 */
const RUN_MIN = 3;
/**
 * Events with an arrow to another lane (or a spawn, ...) stay on their own up to this many per
 * bucket: one arrow per lane per 16 px at most (more is a hatch that tells nothing and costs the
 * webview most of its drawing time).
 */
const NOTABLE_MAX = 1;
/** Events searched per read of set-aside content from disk. */
const SEARCH_BLOCK = 4096;

/** How an event takes part in runs. */
const enum Role {
  /** Plain: joins a run bar. */
  Plain = 0,
  /** Arrows to other lanes, spawns, delegations, returns: on its own unless its bucket is crowded. */
  Notable = 1,
  /** Stops and problem marks: always on its own. */
  Own = 2,
}

/** Everything computed once per snapshot for answering windows: columns, no object per event. */
interface GraphIndex {
  layout: GraphLayout;
  kinds: string[];
  /** Per event: index into `kinds`. */
  kind: Uint8Array;
  role: Uint8Array;
  /** Per lane, per mode: drawn events (no results inside bars) sorted by start, and the longest bar. */
  lanes: { time: Int32Array; order: Int32Array; longTime: number; longOrder: number }[];
  /** Edges by source event: edge numbers of source i are `edgeAt[edgesFrom[i] .. edgesFrom[i + 1])`, in the layout's order. */
  edgesFrom: Int32Array;
  edgeAt: Int32Array;
}

const indices = new WeakMap<TraceSnapshot, GraphIndex>();
const stamps = new WeakMap<TraceSnapshot, number>();
let nextStamp = 1;

/** The stamp of a snapshot: a number that differs between snapshots (windows name it). */
export function snapshotStamp(snapshot: TraceSnapshot): number {
  let s = stamps.get(snapshot);
  if (s === undefined) stamps.set(snapshot, (s = nextStamp++));
  return s;
}

/** The graph index of a snapshot (built on first use, O(n log n) for n events, then cached). */
function graphIndex(snapshot: TraceSnapshot): GraphIndex {
  const known = indices.get(snapshot);
  if (known) return known;
  const layout = graphLayout(snapshot.loaded, Infinity, snapshot.analysis);
  const { events, edges } = layout;
  const n = events.length;
  const kinds: string[] = [];
  const kindIndex = new Map<string, number>();
  const kind = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const name = canonicalType(events[i].type);
    let k = kindIndex.get(name);
    if (k === undefined) {
      kindIndex.set(name, (k = kinds.length));
      kinds.push(name);
    }
    kind[i] = k;
  }
  const crossing = new Uint8Array(n);
  const edgesFrom = new Int32Array(n + 1);
  for (let k = 0; k < edges.count; k++) {
    const a = edges.source[k];
    const b = edges.target[k];
    edgesFrom[a + 1]++;
    if (layout.lane[a] !== layout.lane[b]) crossing[a] = crossing[b] = 1;
  }
  for (let i = 0; i < n; i++) edgesFrom[i + 1] += edgesFrom[i];
  const edgeAt = new Int32Array(edges.count);
  const fill = edgesFrom.slice(0, n);
  for (let k = 0; k < edges.count; k++) edgeAt[fill[edges.source[k]]++] = k;
  const role = new Uint8Array(n);
  for (let i = 0; i < n; i++) role[i] = roleOf(kinds[kind[i]], layout.marks.get(i), crossing[i] === 1);
  for (const i of firstSpawns(layout)) role[i] = Role.Own;
  const byLane = layout.lanes.map(() => [] as number[]);
  for (let i = 0; i < n; i++) if (layout.barOf[i] < 0) byLane[layout.lane[i]]?.push(i);
  const { tx, order, end } = layout;
  const lanes = byLane.map((list) => {
    const time = Int32Array.from(list).sort((a, b) => tx[a] - tx[b] || order[a] - order[b]);
    const inOrder = Int32Array.from(list).sort((a, b) => order[a] - order[b]);
    let longTime = 0;
    let longOrder = 0;
    for (const i of list) {
      if (end[i] < 0) continue;
      longTime = Math.max(longTime, tx[end[i]] - tx[i]);
      longOrder = Math.max(longOrder, order[end[i]] - order[i]);
    }
    return { time, order: inOrder, longTime, longOrder };
  });
  const index: GraphIndex = { layout, kinds, kind, role, lanes, edgesFrom, edgeAt };
  indices.set(snapshot, index);
  return index;
}

/**
 * The spawn events that first spawn into each lane (by time order): on their own at every level of
 * detail, so the first view shows who spawned whom. At most one per lane.
 */
function firstSpawns(layout: GraphLayout): number[] {
  const { edges, events, lane, order } = layout;
  const spawns: number[] = [];
  for (let k = 0; k < edges.count; k++) {
    const a = edges.source[k];
    if (canonicalType(events[a].type) === 'spawn' && lane[a] !== lane[edges.target[k]]) spawns.push(k);
  }
  spawns.sort((x, y) => order[edges.source[x]] - order[edges.source[y]]);
  const spawned = new Set<number>();
  const out: number[] = [];
  for (const k of spawns) {
    const to = lane[edges.target[k]];
    if (spawned.has(to)) continue;
    spawned.add(to);
    out.push(edges.source[k]);
  }
  return out;
}

function roleOf(kind: string, marks: Set<string> | undefined, crossing: boolean): Role {
  if (kind === 'stop' || marks?.has('blame') || marks?.has('stop-problem')) return Role.Own;
  if (crossing || ['spawn', 'despawn', 'delegate', 'return', 'reward', 'aggregate'].includes(kind)) return Role.Notable;
  return Role.Plain;
}

/**
 * The overview of a trace: lanes, time axis, findings, problem counts, the legend's contents and
 * the event columns (time order, axis position, lane, kind, bar end) as typed arrays, O(n) for n events.
 * The columns tx, lane and end are the layout's own arrays (not copies): never write to them.
 */
export function graphOverview(snapshot: TraceSnapshot, title: string): GraphOverview {
  const { layout, kinds, kind } = graphIndex(snapshot);
  const n = layout.events.length;
  const byTime = new Int32Array(n);
  for (let i = 0; i < n; i++) byTime[layout.order[i]] = i;
  const cues = new Set<string>();
  for (const e of layout.events) for (const c of eventCues(e)) cues.add(c);
  return {
    title,
    format: layout.format,
    stamp: snapshotStamp(snapshot),
    totalEvents: layout.totalEvents,
    lanes: layout.lanes,
    axis: layout.axis,
    columns: { byTime, tx: layout.tx, lane: layout.lane, kind, end: layout.end },
    kinds,
    findings: layout.findings,
    problems: layout.problems,
    ...(layout.traces ? { traces: layout.traces } : {}),
    legend: {
      edgeTypes: [...new Set(Array.from(layout.edges.type.subarray(0, layout.edges.count), (t) => layout.edges.types[t]))],
      bars: layout.end.some((x) => x >= 0),
      credit: layout.credit !== undefined && layout.events.some((_, i) => layout.credit![i] !== undefined),
      cues: [...cues],
    },
  };
}

/**
 * The overview as bytes, what the host passes to the webview unread: `json` the UTF-8 bytes of
 * the overview's JSON without its columns and with each finding's events as their count (a few
 * KB), `columns` the columns and the findings' events packed as binary (src/graph-columns.ts,
 * `packOverview`). Both are new buffers (they can be moved to another thread). Also the
 * overview's axis and stamp, for the first window.
 */
export function graphOverviewBytes(snapshot: TraceSnapshot, title: string): { json: Uint8Array; columns: Uint8Array; overview: Pick<GraphOverview, 'axis' | 'stamp'> } {
  const overview = graphOverview(snapshot, title);
  return { ...packOverview(overview), overview: { axis: overview.axis, stamp: overview.stamp } };
}

/**
 * The window of `request`: for every lane, the events whose span meets the range widened to whole
 * buckets (bucket width from the request's scale, see `bucketWidth`). In a lane's bucket with
 * {@link RUN_MIN} or more events, plain events form one run bar, events with arrows to other lanes
 * stay on their own up to {@link NOTABLE_MAX} (else they join the run too), stops, problem marks,
 * the first spawn into each lane and `request.keep` always stay on their own. Edges: those between drawn events, and lane-crossing
 * ones between an event and a run bar (one per pair; none from run to run). Cost: O(events in range + their edges).
 */
export function graphWindow(snapshot: TraceSnapshot, request: WindowRequest): GraphWindow {
  const ix = graphIndex(snapshot);
  const { layout, role } = ix;
  const { tx, order, end: endOf, barOf } = layout;
  const mode = request.mode;
  const bucket = bucketWidth(request.scale);
  const from = Math.floor(Math.max(0, Math.min(request.from, request.to)) / bucket) * bucket;
  const to = (Math.floor(Math.max(request.from, request.to) / bucket) + 1) * bucket;
  const keep = new Set(request.keep ?? []);
  const start = (i: number) => (mode === 'time' ? tx[i] : order[i]);
  const end = (i: number) => (endOf[i] < 0 ? start(i) : start(endOf[i]));
  const nodes: GraphNode[] = [];
  const runs: GraphRun[] = [];
  /** Event index -> the key it is drawn under in this window. */
  const drawnAs = new Map<number, string>();
  const drawn = new Map<string, number>(); // key -> lane
  const own = (i: number) => {
    const n = layoutNode(layout, i, false);
    nodes.push(n);
    drawnAs.set(i, n.id);
    if (endOf[i] >= 0) drawnAs.set(endOf[i], n.id);
    drawn.set(n.id, n.lane);
  };
  ix.lanes.forEach((lane, laneNo) => {
    const list = mode === 'time' ? lane.time : lane.order;
    const long = mode === 'time' ? lane.longTime : lane.longOrder;
    let k0 = lowerBound(list, (i) => start(i) >= from - long);
    let group: number[] = [];
    let groupK = NaN;
    const flush = () => {
      if (group.length) drawBucket(group, laneNo, groupK);
      group = [];
    };
    for (; k0 < list.length; k0++) {
      const i = list[k0];
      const u = start(i);
      if (u >= to) break;
      if (u < from) {
        if (end(i) >= from) own(i); // a bar reaching in from the left
        continue;
      }
      const k = Math.floor(u / bucket);
      if (k !== groupK) flush();
      groupK = k;
      group.push(i);
    }
    flush();
  });

  function drawBucket(group: number[], lane: number, k: number): void {
    if (group.length < RUN_MIN) return group.forEach(own);
    const fixed = (i: number) => role[i] === Role.Own || keep.has(i) || (endOf[i] >= 0 && keep.has(endOf[i]));
    const notable = group.filter((i) => !fixed(i) && role[i] === Role.Notable);
    const alone = new Set(group.filter((i) => fixed(i) || (notable.length <= NOTABLE_MAX && role[i] === Role.Notable)));
    const members = group.filter((i) => !alone.has(i));
    if (members.length < 2) return group.forEach(own);
    alone.forEach(own);
    const id = runKey(mode, bucket, lane, k);
    const count = new Map<string, number>();
    let u1 = -Infinity;
    let first = Infinity;
    let credit = 0;
    for (const i of members) {
      const c = layout.credit?.[i];
      if (c !== undefined && Math.abs(c) > Math.abs(credit)) credit = c;
      const kind = ix.kinds[ix.kind[i]];
      count.set(kind, (count.get(kind) ?? 0) + 1);
      u1 = Math.max(u1, end(i));
      first = Math.min(first, order[i]);
      drawnAs.set(i, id);
      if (endOf[i] >= 0) drawnAs.set(endOf[i], id);
    }
    drawn.set(id, lane);
    const kind = [...count].sort((a, b) => b[1] - a[1])[0][0];
    runs.push({ id, lane, u0: start(members[0]), u1, count: members.length, kind, loop: members.some((i) => layout.loop[i] === 1), order: first, ...(credit ? { credit } : {}) });
  }

  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const layoutEdges = layout.edges;
  for (const [index, key] of drawnAs) {
    if (barOf[index] >= 0) continue; // a result's edges are listed under its call's bar
    for (let at = ix.edgesFrom[index]; at < ix.edgesFrom[index + 1]; at++) {
      const k = ix.edgeAt[at];
      const target = drawnAs.get(layoutEdges.target[k]);
      if (target === undefined || target === key) continue;
      const isRun = key.startsWith('r') || target.startsWith('r');
      if (isRun && drawn.get(key) === drawn.get(target)) continue; // inside one lane: not drawn anyway
      if (key.startsWith('r') && target.startsWith('r')) continue; // run to run: zoomed out, such arrows are noise
      const e = layoutEdge(layoutEdges, k);
      const id = isRun ? `${key}>${target}` : e.id;
      if (seen.has(id)) continue;
      seen.add(id);
      edges.push(isRun ? { id, source: key, target, type: e.type, derived: e.derived } : e);
    }
  }
  return { seq: request.seq, stamp: request.stamp, mode, from, to, bucket, nodes, runs, edges };
}

/** One event's node with its text and fields (for the details pane); undefined for an unknown index. */
export function graphEvent(snapshot: TraceSnapshot, index: number): GraphNode | undefined {
  const { layout } = graphIndex(snapshot);
  if (!Number.isInteger(index) || index < 0 || index >= layout.events.length) return undefined;
  const event = eventWithContent(snapshot, index);
  return event && { ...layoutNode(layout, index, false), ...eventDetails(event) };
}

/** Indices (file order) of the events whose id, label, agent or content contains `query`, case-insensitive. */
export function findEvents(snapshot: TraceSnapshot, query: string): number[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const { layout } = graphIndex(snapshot);
  const events = snapshot.loaded.trace.events;
  const out: number[] = [];
  const aside = snapshot.setAside;
  const n = layout.events.length;
  // Long content set aside is read back from disk a block of events at a time (never all at once).
  for (let from = 0; from < n; from += SEARCH_BLOCK) {
    const to = Math.min(n, from + SEARCH_BLOCK);
    const readBack = new Map<number, string | undefined>();
    if (aside) {
      const wanted: number[] = [];
      for (let i = from; i < to; i++) if (aside.has(i)) wanted.push(i);
      contentsOf(snapshot, wanted).forEach((text, k) => readBack.set(wanted[k], text));
    }
    for (let i = from; i < to; i++) {
      const e = events[i];
      const text = (readBack.has(i) ? readBack.get(i) : (e.content ?? e.content_ref)) ?? '';
      if (`${e.id} ${nodeLabel(e, layout.end[i] >= 0)} ${e.agent} ${text}`.toLowerCase().includes(q)) out.push(i);
    }
  }
  return out;
}

/** First position in `list` whose item satisfies `pred` (which must be monotone: false then true). */
function lowerBound(list: Int32Array, pred: (item: number) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pred(list[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
