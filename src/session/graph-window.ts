/**
 * The windowed graph of a trace session: the overview of the whole trace (lanes, axis, findings,
 * compact event columns) and, per request, the nodes, run bars and edges of one axis range at one
 * level of detail. The webview draws only windows, so every event of any trace is reachable while
 * Cytoscape holds a bounded number of elements. Pure: no `vscode` (the engine may run it in a worker).
 */
import type { GraphColumns, GraphEdge, GraphModel, GraphNode, GraphOverview, GraphRun, GraphWindow, WindowRequest } from '../protocol';
import { buildGraph, eventDetails } from '../panel/graph-model';
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

/** How an event takes part in runs. */
const enum Role {
  /** Plain: joins a run bar. */
  Plain = 0,
  /** Arrows to other lanes, spawns, delegations, returns: on its own unless its bucket is crowded. */
  Notable = 1,
  /** Stops and problem marks: always on its own. */
  Own = 2,
}

/** Everything computed once per snapshot for answering windows. */
interface GraphIndex {
  model: GraphModel;
  columns: GraphColumns;
  kinds: string[];
  /** Time-order rank of each event. */
  rank: Int32Array;
  role: Uint8Array;
  /** Per lane, per mode: drawn events (no results inside bars) sorted by start, and the longest bar. */
  lanes: { time: Int32Array; order: Int32Array; longTime: number; longOrder: number }[];
  /** Edges by source node key. */
  edgesFrom: Map<string, GraphEdge[]>;
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
  const model = buildGraph(snapshot.loaded, '', Infinity, snapshot.analysis, { details: false });
  const n = model.nodes.length;
  const kinds: string[] = [];
  const kindIndex = new Map<string, number>();
  const columns: GraphColumns = { byTime: new Array(n), tx: new Array(n), lane: new Array(n), kind: new Array(n), end: new Array(n) };
  const rank = new Int32Array(n);
  for (const node of model.nodes) {
    const i = node.index;
    rank[i] = node.order;
    columns.byTime[node.order] = i;
    columns.tx[i] = node.tx;
    columns.lane[i] = node.lane;
    let k = kindIndex.get(node.kind);
    if (k === undefined) {
      kindIndex.set(node.kind, (k = kinds.length));
      kinds.push(node.kind);
    }
    columns.kind[i] = k;
    columns.end[i] = node.endIndex ?? -1;
  }
  const edgesFrom = new Map<string, GraphEdge[]>();
  const crossing = new Set<string>();
  for (const e of model.edges) {
    edgesFrom.set(e.source, [...(edgesFrom.get(e.source) ?? []), e]);
    const a = model.nodes[Number(e.source.slice(1))];
    const b = model.nodes[Number(e.target.slice(1))];
    if (a && b && a.lane !== b.lane) crossing.add(e.source).add(e.target);
  }
  const role = new Uint8Array(n);
  for (const node of model.nodes) role[node.index] = roleOf(node, crossing.has(node.id));
  for (const i of firstSpawns(model)) role[i] = Role.Own;
  const byLane = model.lanes.map(() => [] as GraphNode[]);
  for (const node of model.nodes) if (!node.bar) byLane[node.lane]?.push(node);
  const lanes = byLane.map((list) => {
    const time = Int32Array.from([...list].sort((a, b) => a.tx - b.tx || a.order - b.order).map((x) => x.index));
    const order = Int32Array.from([...list].sort((a, b) => a.order - b.order).map((x) => x.index));
    let longTime = 0;
    let longOrder = 0;
    for (const x of list) {
      longTime = Math.max(longTime, (x.txEnd ?? x.tx) - x.tx);
      longOrder = Math.max(longOrder, (x.orderEnd ?? x.order) - x.order);
    }
    return { time, order, longTime, longOrder };
  });
  const index: GraphIndex = { model, columns, kinds, rank, role, lanes, edgesFrom };
  indices.set(snapshot, index);
  return index;
}

/**
 * The spawn events that first spawn into each lane (by time order): on their own at every level of
 * detail, so the first view shows who spawned whom. At most one per lane.
 */
function firstSpawns(model: GraphModel): number[] {
  const spawns = model.edges
    .map((e) => ({ from: model.nodes[Number(e.source.slice(1))], to: model.nodes[Number(e.target.slice(1))] }))
    .filter(({ from, to }) => from && to && from.kind === 'spawn' && from.lane !== to.lane)
    .sort((a, b) => a.from.order - b.from.order);
  const spawned = new Set<number>();
  const out: number[] = [];
  for (const { from, to } of spawns) {
    if (spawned.has(to.lane)) continue;
    spawned.add(to.lane);
    out.push(from.index);
  }
  return out;
}

function roleOf(n: GraphNode, crossing: boolean): Role {
  if (n.kind === 'stop' || n.marks.some((m) => m === 'blame' || m === 'stop-problem')) return Role.Own;
  if (crossing || ['spawn', 'despawn', 'delegate', 'return', 'reward', 'aggregate'].includes(n.kind)) return Role.Notable;
  return Role.Plain;
}

/**
 * The overview of a trace: lanes, time axis, findings, problem counts, the legend's contents and
 * the event columns (time order, axis position, lane, kind, bar end), O(n) numbers for n events.
 */
export function graphOverview(snapshot: TraceSnapshot, title: string): GraphOverview {
  const { model, columns, kinds } = graphIndex(snapshot);
  return {
    title,
    format: model.format,
    stamp: snapshotStamp(snapshot),
    totalEvents: model.totalEvents,
    lanes: model.lanes,
    axis: model.axis,
    columns,
    kinds,
    findings: model.findings,
    problems: model.problems,
    ...(model.traces ? { traces: model.traces } : {}),
    legend: {
      edgeTypes: [...new Set(model.edges.map((e) => e.type))],
      bars: model.nodes.some((n) => n.txEnd !== undefined),
      credit: model.nodes.some((n) => n.credit !== undefined),
      cues: [...new Set(model.nodes.flatMap((n) => n.cues ?? []))],
    },
  };
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
  const { model, rank, role } = ix;
  const mode = request.mode;
  const bucket = bucketWidth(request.scale);
  const from = Math.floor(Math.max(0, Math.min(request.from, request.to)) / bucket) * bucket;
  const to = (Math.floor(Math.max(request.from, request.to) / bucket) + 1) * bucket;
  const keep = new Set(request.keep ?? []);
  const start = (n: GraphNode) => (mode === 'time' ? n.tx : n.order);
  const end = (n: GraphNode) => (mode === 'time' ? (n.txEnd ?? n.tx) : (n.orderEnd ?? n.order));
  const nodes: GraphNode[] = [];
  const runs: GraphRun[] = [];
  /** Event index -> the key it is drawn under in this window. */
  const drawnAs = new Map<number, string>();
  const drawn = new Map<string, number>(); // key -> lane
  const own = (n: GraphNode) => {
    nodes.push(n);
    drawnAs.set(n.index, n.id);
    if (n.endIndex !== undefined) drawnAs.set(n.endIndex, n.id);
    drawn.set(n.id, n.lane);
  };
  ix.lanes.forEach((lane, laneNo) => {
    const list = mode === 'time' ? lane.time : lane.order;
    const long = mode === 'time' ? lane.longTime : lane.longOrder;
    let i = lowerBound(list, (k) => start(model.nodes[k]) >= from - long);
    let group: GraphNode[] = [];
    let groupK = NaN;
    const flush = () => {
      if (group.length) drawBucket(group, laneNo, groupK);
      group = [];
    };
    for (; i < list.length; i++) {
      const n = model.nodes[list[i]];
      const u = start(n);
      if (u >= to) break;
      if (u < from) {
        if (end(n) >= from) own(n); // a bar reaching in from the left
        continue;
      }
      const k = Math.floor(u / bucket);
      if (k !== groupK) flush();
      groupK = k;
      group.push(n);
    }
    flush();
  });

  function drawBucket(group: GraphNode[], lane: number, k: number): void {
    if (group.length < RUN_MIN) return group.forEach(own);
    const fixed = (n: GraphNode) => role[n.index] === Role.Own || keep.has(n.index) || (n.endIndex !== undefined && keep.has(n.endIndex));
    const notable = group.filter((n) => !fixed(n) && role[n.index] === Role.Notable);
    const alone = new Set(group.filter((n) => fixed(n) || (notable.length <= NOTABLE_MAX && role[n.index] === Role.Notable)));
    const members = group.filter((n) => !alone.has(n));
    if (members.length < 2) return group.forEach(own);
    alone.forEach(own);
    const id = runKey(mode, bucket, lane, k);
    const count = new Map<string, number>();
    let u1 = -Infinity;
    let first = Infinity;
    let credit = 0;
    for (const n of members) {
      if (n.credit !== undefined && Math.abs(n.credit) > Math.abs(credit)) credit = n.credit;
      count.set(n.kind, (count.get(n.kind) ?? 0) + 1);
      u1 = Math.max(u1, end(n));
      first = Math.min(first, rank[n.index]);
      drawnAs.set(n.index, id);
      if (n.endIndex !== undefined) drawnAs.set(n.endIndex, id);
    }
    drawn.set(id, lane);
    const kind = [...count].sort((a, b) => b[1] - a[1])[0][0];
    runs.push({ id, lane, u0: start(members[0]), u1, count: members.length, kind, loop: members.some((n) => n.marks.includes('loop')), order: first, ...(credit ? { credit } : {}) });
  }

  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  for (const [index, key] of drawnAs) {
    const node = model.nodes[index];
    if (node.bar) continue; // a result's edges are listed under its call's bar
    for (const e of ix.edgesFrom.get(node.id) ?? []) {
      const target = drawnAs.get(Number(e.target.slice(1)));
      if (target === undefined || target === key) continue;
      const isRun = key.startsWith('r') || target.startsWith('r');
      if (isRun && drawn.get(key) === drawn.get(target)) continue; // inside one lane: not drawn anyway
      if (key.startsWith('r') && target.startsWith('r')) continue; // run to run: zoomed out, such arrows are noise
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
  const node = graphIndex(snapshot).model.nodes[index];
  const event = snapshot.loaded.trace.events[index];
  return node && event ? { ...node, ...eventDetails(event) } : undefined;
}

/** Indices (file order) of the events whose id, label, agent or content contains `query`, case-insensitive. */
export function findEvents(snapshot: TraceSnapshot, query: string): number[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const { model } = graphIndex(snapshot);
  const events = snapshot.loaded.trace.events;
  const out: number[] = [];
  for (const n of model.nodes) {
    const e = events[n.index];
    const text = e.content ?? e.content_ref ?? '';
    if (`${n.eventId} ${n.label} ${n.agent} ${text}`.toLowerCase().includes(q)) out.push(n.index);
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
