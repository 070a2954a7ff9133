/**
 * The windowed graph of a trace session: the overview of the whole trace (lanes, axis, findings,
 * compact event columns) and, per request, the nodes, run bars and edges of one axis range at one
 * level of detail. The webview draws only windows, so every event of any trace is reachable while
 * Cytoscape holds a bounded number of elements. Pure: no `vscode` (the engine may run it in a worker).
 */
import type { GraphEdge, GraphLane, GraphNode, GraphOverview, GraphRun, GraphRunBrief, GraphWindow, WindowRequest } from '../shared/protocol';
import { CREDIT_TINT_FROM } from '../shared/credit-words';
import { eventDetails, layoutEdge, layoutNode, markedScope, nodeLabel, withCredit, type GraphLayout } from './graph-model';
import { graphIndex, prepareGraph, Role, type BucketPlan, type GraphIndex } from './graph-index';
import { packOverview } from '../shared/overview-columns';
import type { OverviewDelta } from '../shared/overview-delta';
import { overviewDelta } from './overview-delta';
import { grownFrom } from './structure-growth';
import type { LayoutStructure } from './graph-structure';
import { contentsOf, eventWithContent } from './long-content';
import { sourcePromptOf } from './source-prompt';
import { bucketWidth, runKey } from '../shared/axis';
import { countsSteps, shownAnalysis, type TraceSnapshot } from './snapshot';
import { eventPointOf, recordedLabelWords } from '../analysis/labels/recorded';
import type { CreditColumn } from '../analysis/credit-column';
import { lowerBound } from '../analysis/sorted';
import { BucketPlans } from './bucket-plans';

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

/** Bucket widths whose plans are kept per snapshot (the last ones asked for). */
const PLANNED_WIDTHS = 4;
/** Plans kept per bucket width at most (panning at one zoom over a whole trace would otherwise keep one per bucket): beyond it they are dropped and made again. */
const PLANS_PER_WIDTH = 20_000;

const stamps = new WeakMap<TraceSnapshot, number>();
let nextStamp = 1;

/** The stamp of a snapshot: a number that differs between snapshots (windows name it). */
export function snapshotStamp(snapshot: TraceSnapshot): number {
  let s = stamps.get(snapshot);
  if (s === undefined) stamps.set(snapshot, (s = nextStamp++));
  return s;
}

/** Builds a snapshot's graph index ahead of its first request (src/engine/graph-index.ts); here for the callers of the windowed graph. */
export { prepareGraph };

/**
 * The overview of a trace: lanes, time axis, findings, problem counts, the legend's contents and
 * the event columns (time order, axis position, lane, kind, bar end, row in the lane) as typed arrays, O(n) for n events.
 * The columns tx, lane, end and row are the layout's own arrays (not copies): never write to them.
 */
export function graphOverview(snapshot: TraceSnapshot, title: string): GraphOverview {
  const { layout, kinds, kind, cues } = graphIndex(snapshot);
  // the layout's own column (read only: an append's layout writes its new ranks after it, never in it)
  const byTime = layout.structure.byTime;
  return {
    title,
    format: layout.format,
    stamp: snapshotStamp(snapshot),
    totalEvents: layout.totalEvents,
    lanes: layout.lanes,
    ...(layout.folded ? { folded: layout.folded } : {}),
    axis: layout.axis,
    columns: { byTime, tx: layout.tx, lane: layout.lane, kind, end: layout.end, row: layout.row },
    kinds,
    // while an append is analysed, the last analysis's findings stay listed (snapshot.ts `carried`: the layout's marks and findings are its)
    findings: layout.findings,
    // (listed once the file is read whole: a reference to an event not read yet is no missing event)
    problems: snapshot.reading ? { errors: 0, warnings: 0 } : layout.problems,
    ...(layout.traces ? { traces: layout.traces } : {}),
    legend: {
      edgeTypes: edgeTypesDrawn(layout.edges, layout.lane),
      bars: layout.end.some((x) => x >= 0),
      // listed only when some node shows its halo
      credit: layout.credit !== undefined && someTinted(layout.credit),
      ...(layout.creditSigned === false ? { influence: true } : {}),
      cues: [...cues],
      marks: presentMarks(layout),
    },
    ...(countsSteps(snapshot) ? { timeUnit: 'steps' as const } : {}),
    ...(snapshot.run ? { run: runBrief(snapshot, layout.lanes) } : {}),
    ...(snapshot.analysisPending ? { analysing: true as const } : {}),
    ...(snapshot.carried ? { analysedEvents: snapshot.carried.events } : {}),
    ...(snapshot.reading ? { reading: snapshot.reading } : {}),
    ...(!snapshot.reading && snapshot.analysisError !== undefined ? { notAnalysed: snapshot.analysisError } : {}),
  };
}

/** True when some event's credit is strong enough for its node's halo (the legend lists the halo then). */
function someTinted(credit: CreditColumn): boolean {
  for (let i = 0; i < credit.length; i++) if (Math.abs(credit.at(i)!) >= CREDIT_TINT_FROM) return true;
  return false;
}

/**
 * The types of the edges the graph draws, those that join two lanes (`lane`: per event, its lane), in
 * the order first met (a flag per type: no list of a name per edge).
 */
function edgeTypesDrawn(edges: GraphLayout['edges'], lane: ArrayLike<number>): string[] {
  const seen = new Uint8Array(edges.types.length);
  const out: string[] = [];
  for (let k = 0; k < edges.count && out.length < edges.types.length; k++) {
    const t = edges.type[k];
    if (seen[t] || lane[edges.source[k]] === lane[edges.target[k]]) continue;
    seen[t] = 1;
    out.push(edges.types[t]);
  }
  return out;
}

/** The snapshot's run summary for the graph: agents labelled as their lanes are. */
function runBrief(snapshot: TraceSnapshot, lanes: readonly GraphLane[]): GraphRunBrief | undefined {
  const run = snapshot.run;
  if (!run) return undefined;
  // the graph's lane labels (a compaction is `context compaction`), so the summary and the lanes agree
  const laneLabel = new Map(lanes.filter((l) => l.label !== undefined && (l.agent ?? l.name) === l.name).map((l) => [l.name, l.label!]));
  let ended: GraphRunBrief['ended'] = null;
  if (run.ended) ended = { index: run.ended.index, scope: run.ended.scope, reason: run.ended.reason, text: run.ended.text, recorded: run.ended.recorded, ...(run.ended.unended ? { unended: run.ended.unended } : {}), ...(run.ended.speaker !== undefined ? { speaker: run.ended.speaker } : {}), ...(run.ended.duringCall ? { duringCall: true } : {}) };
  return {
    task: run.task,
    ...(run.later_prompts ? { laterPrompts: run.later_prompts } : {}),
    ended,
    outcome: run.outcome,
    ...(run.spawned_by !== undefined ? { spawnedBy: run.spawned_by } : {}),
    duration: run.duration,
    tokens: run.tokens,
    eventTokens: run.event_tokens,
    agents: run.agents.map((a) => ({ name: a.name, label: laneLabel.get(a.name) ?? a.label, task: a.task, events: a.events })),
    ...(run.agent_count > run.agents.length ? { agentCount: run.agent_count } : {}),
    findings: run.findings,
    ...(run.finding_count > run.findings.length ? { findingCount: run.finding_count } : {}),
    ...(run.failed_calls ? { failedCalls: failedCalls(run.failed_calls) } : {}),
    ...labelledOf(snapshot),
  };
}

/** The run brief's `labelled`: the labels the file records beside otrace's verdicts, when it records any. */
function labelledOf(snapshot: TraceSnapshot): Pick<GraphRunBrief, 'labelled'> {
  const analysis = shownAnalysis(snapshot);
  const metadata = snapshot.loaded.trace.metadata as Record<string, unknown> | undefined;
  if (!analysis) return {};
  const words = recordedLabelWords(analysis, metadata, eventPointOf(snapshot.loaded));
  return words.length ? { labelled: words } : {};
}

/** The run summary's failed calls for the graph: the first one's result named by its event index. */
function failedCalls(failed: NonNullable<TraceSnapshot['run']>['failed_calls'] & object): NonNullable<GraphRunBrief['failedCalls']> {
  return { count: failed.count, index: failed.first.index, tool: failed.first.tool, error: failed.first.error };
}

/** The analysis marks some node carries (`loop`, `blame`, `stop-ok`, `stop-problem`), in that order: what the legend explains. */
function presentMarks(layout: GraphLayout): string[] {
  const found = new Set<string>();
  if (layout.loop.includes(1)) found.add('loop');
  for (const marks of layout.marks.values()) for (const m of marks) found.add(m);
  return ['loop', 'blame', 'stop-ok', 'stop-problem'].filter((m) => found.has(m));
}

/**
 * The overview as bytes, what the host passes to the webview unread: `json` the UTF-8 bytes of
 * the overview's JSON without its columns and with each finding's events as their count (a few
 * KB), `columns` the columns and the findings' events packed as binary (src/shared/overview-columns.ts,
 * `packOverview`). Both are new buffers (they can be moved to another thread). Also the
 * overview's axis, stamp and event count, for the first window.
 */
export function graphOverviewBytes(snapshot: TraceSnapshot, title: string): { json: Uint8Array; columns: Uint8Array; overview: Pick<GraphOverview, 'axis' | 'stamp' | 'totalEvents'> } {
  const overview = graphOverview(snapshot, title);
  return { ...packOverview(overview), overview: { axis: overview.axis, stamp: overview.stamp, totalEvents: overview.totalEvents } };
}

/** An overview sent to a webview, with the layout structure it was made from: what the next one may be a delta against. */
export interface OverviewSent {
  overview: GraphOverview;
  structure: LayoutStructure;
}

/**
 * The overview of `snapshot` as a delta against `held` (the overview last sent to the webview,
 * which holds it; undefined: it holds none) when the snapshot's layout structure is `held`'s (the analysed trace
 * after the trace as read) or was extended from it by an append (src/engine/structure-growth.ts `grownFrom`); else, or when the delta is not worth it
 * (src/engine/overview-delta.ts), undefined: the whole overview goes. Also the overview sent, for
 * the next call.
 */
export function graphOverviewDelta(snapshot: TraceSnapshot, title: string, held: OverviewSent | undefined): { delta?: OverviewDelta; sent: OverviewSent } {
  const overview = graphOverview(snapshot, title);
  const structure = graphIndex(snapshot).layout.structure;
  const sent = { overview, structure };
  // worth a delta: the held overview's layout, extended by an append, or the same layout (the analysed trace after
  // the trace as read: only marks and findings change; whole, it was 22 MB packed at 1M events, 20-30 ms)
  if (!held || (structure !== held.structure && grownFrom(structure)?.structure !== held.structure)) return { sent };
  const delta = overviewDelta(held.overview, overview);
  return delta ? { delta, sent } : { sent };
}

/**
 * The window of `request`: for every lane, the events whose span meets the range widened to whole
 * buckets (bucket width from the request's scale, see `bucketWidth`). In a lane's bucket with
 * {@link RUN_MIN} or more events, plain events form one run bar, events with arrows to other lanes
 * stay on their own up to {@link NOTABLE_MAX} (else they join the run too), stops, problem marks,
 * the first spawn into each lane and `request.keep` always stay on their own. Edges: those between drawn events, and lane-crossing
 * ones between an event and a run bar (one per pair; none from run to run).
 * Cost: a bucket is planned once per bucket width (O(its events)) and kept; then a window costs
 * O(buckets in range · log n + the buckets holding an event to keep + bars reaching in from the
 * left + elements drawn and their edges), so a step that keeps the current event on its own
 * re-plans only that event's bucket.
 */
export function graphWindow(snapshot: TraceSnapshot, request: WindowRequest): GraphWindow {
  const ix = graphIndex(snapshot);
  const { layout } = ix;
  const { tx, order, end: endOf, barOf } = layout;
  const mode = request.mode;
  const bucket = bucketWidth(request.scale);
  const from = Math.floor(Math.max(0, Math.min(request.from, request.to)) / bucket) * bucket;
  const to = (Math.floor(Math.max(request.from, request.to) / bucket) + 1) * bucket;
  const keep = new Set(request.keep ?? []);
  const start = (i: number) => (mode === 'time' ? tx[i] : order[i]);
  const end = (i: number) => (endOf[i] < 0 ? start(i) : start(endOf[i]));
  // The buckets holding an event to keep (or its call's bar): planned afresh, not from the kept plans.
  const kept = new Set<string>();
  for (const j of keep) {
    if (!Number.isInteger(j) || j < 0 || j >= tx.length) continue;
    const d = barOf[j] >= 0 ? barOf[j] : j;
    kept.add(`${layout.lane[d]}:${layout.row[d]}:${Math.floor(start(d) / bucket)}`);
  }
  const cached = plansFor(ix, mode, bucket);
  const nodes: GraphNode[] = [];
  const runs: GraphRun[] = [];
  /** Event index -> the key of its node (own nodes and their results), in the order drawn. */
  const ownKey = new Map<number, string>();
  /** Per own node: where it sits in the order the window draws (see `Place`). */
  const ownPlace = new Map<number, Place>();
  /** This window's plans by lane and bucket number. */
  const planned = new Map<string, BucketPlan>();
  const own = (i: number, place: Place) => {
    const n = layoutNode(layout, i, false);
    nodes.push(n);
    ownKey.set(i, n.id);
    if (endOf[i] >= 0) ownKey.set(endOf[i], n.id);
    ownPlace.set(i, place);
  };
  for (const track of ix.tracks) {
    const { lane: laneNo, row } = track;
    const list = mode === 'time' ? track.time : track.order;
    const long = mode === 'time' ? track.longTime : track.longOrder;
    // Bars reaching in from the left.
    for (let k0 = lowerBound(list, (i) => start(i) >= from - long); k0 < list.length; k0++) {
      const i = list[k0];
      if (start(i) >= from) break;
      if (end(i) >= from) own(i, [laneNo, row, 0, 0, 0, start(i), order[i]]);
    }
    let lo = lowerBound(list, (i) => start(i) >= from);
    while (lo < list.length && start(list[lo]) < to) {
      const k = Math.floor(start(list[lo]) / bucket);
      const hi = lowerBound(list, (i) => start(i) >= (k + 1) * bucket, lo);
      const at = `${laneNo}:${row}:${k}`;
      let plan = kept.has(at) ? undefined : cached.get(at);
      if (!plan) {
        plan = planBucket(ix, list.subarray(lo, hi), { lane: laneNo, row, k }, { mode, bucket, keep: kept.has(at) ? keep : undefined });
        if (!kept.has(at)) {
          if (cached.size >= PLANS_PER_WIDTH) cached.clear();
          cached.set(at, plan);
        }
      }
      planned.set(at, plan);
      for (const i of plan.own) own(i, [laneNo, row, 1, k, 0, start(i), order[i]]);
      if (plan.run) runs.push(plan.run);
      lo = hi;
    }
  }

  /** The key an event is drawn under in this window (its node, or the run bar holding it), if drawn. */
  const keyOf = (i: number): string | undefined => {
    const known = ownKey.get(i);
    if (known !== undefined) return known;
    const d = barOf[i] >= 0 ? barOf[i] : i;
    const u = start(d);
    if (u < from || u >= to) return undefined;
    return planned.get(`${layout.lane[d]}:${layout.row[d]}:${Math.floor(u / bucket)}`)?.run?.id;
  };
  const edges = windowEdges(ix, {
    ownKey,
    ownPlace,
    keyOf,
    memberPlace: (i) => [layout.lane[i], layout.row[i], 1, Math.floor(start(i) / bucket), 1, start(i), order[i]],
    laneOfRun: (key) => planned.get(key.split(':').slice(2).join(':'))?.run?.lane, // the key's lane:row:bucket
  });
  return { seq: request.seq, stamp: request.stamp, mode, from, to, bucket, nodes: withContentRead(snapshot, layout, nodes), runs, edges };
}

/** What {@link windowEdges} needs of a window being made. */
interface DrawnWindow {
  /** Event index -> the key of its node (own nodes and their results), in the order drawn. */
  ownKey: Map<number, string>;
  /** Per own node: where it sits in the order the window draws. */
  ownPlace: Map<number, Place>;
  /** The key an event is drawn under (its node, or the run bar holding it), if drawn. */
  keyOf: (i: number) => string | undefined;
  /** Where a run bar's member sits in the order the window draws (after its bucket's own events, in lane order). */
  memberPlace: (i: number) => Place;
  /** The lane of a run bar of this window, by key. */
  laneOfRun: (key: string) => number | undefined;
}

/**
 * A window's edges: those between drawn events, and lane-crossing ones between an event and a run
 * bar (one per pair; none from run to run). Only edges touching an own node can be drawn, so those
 * are the candidates: the own nodes' outgoing edges and their incoming ones from run bars'
 * members. Listed in the order the window draws their sources, each source's edges in the
 * layout's order (the order a scan of every drawn event gives). O(own nodes' edges · log).
 */
function windowEdges(ix: GraphIndex, w: DrawnWindow): GraphEdge[] {
  const { layout } = ix;
  const { barOf, end: endOf } = layout;
  const layoutEdges = layout.edges;
  const candidates: { place: Place; k: number; key: string }[] = [];
  for (const [index, key] of w.ownKey) {
    if (barOf[index] >= 0) continue; // a result's edges are listed under its call's bar
    const place = w.ownPlace.get(index)!;
    ix.edges.forEachFrom(index, (k) => candidates.push({ place, k, key }));
    for (const t of endOf[index] >= 0 ? [index, endOf[index]] : [index])
      ix.edges.forEachInto(t, (k) => {
        const source = layoutEdges.source[k];
        if (w.ownKey.has(source)) return; // listed with its source
        const sourceKey = w.keyOf(source);
        if (sourceKey !== undefined && barOf[source] < 0) candidates.push({ place: w.memberPlace(source), k, key: sourceKey });
      });
  }
  candidates.sort((a, b) => comparePlaces(a.place, b.place) || a.k - b.k);
  const laneOf = (key: string, i: number) => (key.startsWith('r') ? w.laneOfRun(key) : layout.lane[i]);
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  for (const { k, key } of candidates) {
    const targetIndex = layoutEdges.target[k];
    const target = w.keyOf(targetIndex);
    if (target === undefined || target === key) continue;
    const isRun = key.startsWith('r') || target.startsWith('r');
    if (isRun && laneOf(key, layoutEdges.source[k]) === laneOf(target, targetIndex)) continue; // inside one lane: not drawn anyway
    if (key.startsWith('r') && target.startsWith('r')) continue; // run to run: zoomed out, such arrows are noise
    const e = layoutEdge(layoutEdges, k);
    const id = isRun ? `${key}>${target}` : e.id;
    if (seen.has(id)) continue;
    seen.add(id);
    edges.push(isRun ? { id, source: key, target, type: e.type, derived: e.derived } : e);
  }
  return edges;
}

/**
 * Where an element sits in the order a window draws: lane, row in the lane, 0 for a bar reaching
 * in from the left and 1 for a bucket, the bucket number, 0 for an event on its own and 1 for a
 * run bar's member, then the row's order (start, time-order rank).
 */
type Place = [number, number, number, number, number, number, number];

function comparePlaces(a: Place, b: Place): number {
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return a[j] - b[j];
  return 0;
}

/** The kept plans of one mode and bucket width (the oldest width's are dropped beyond {@link PLANNED_WIDTHS}). */
function plansFor(ix: GraphIndex, mode: 'time' | 'order', bucket: number): BucketPlans {
  const key = `${mode}:${bucket}`;
  let plans = ix.plans.get(key);
  if (plans) {
    ix.plans.delete(key); // most recent last
    ix.plans.set(key, plans);
    return plans;
  }
  ix.plans.set(key, (plans = BucketPlans.empty()));
  for (const old of ix.plans.keys()) if (ix.plans.size > PLANNED_WIDTHS) ix.plans.delete(old);
  return plans;
}

/**
 * How a lane row's bucket (its events in the row's order) is drawn: under {@link RUN_MIN} events,
 * each on its own; else stops, problem marks, first spawns and `keep` on their own, events with
 * arrows to other lanes too when at most {@link NOTABLE_MAX} of them, and the rest one run bar
 * (unless fewer than two are left: then all on their own). A turn end in a pile (two more stops
 * of its lane less than a bucket away) is never on its own (unless kept): it joins the run bar,
 * even one of a single event, so crowded turn ends become a count instead of a pile of marks. O(events in the
 * bucket · log stops of the lane).
 */
function planBucket(ix: GraphIndex, group: Int32Array, at: { lane: number; row: number; k: number }, opts: { mode: 'time' | 'order'; bucket: number; keep?: Set<number> }): BucketPlan {
  const { layout, role } = ix;
  const { tx, order, end: endOf } = layout;
  const { mode, bucket, keep } = opts;
  const axis = mode === 'time' ? tx : order;
  const stops = mode === 'time' ? ix.stops[at.lane]?.time : ix.stops[at.lane]?.order;
  // Each event's flags in one pass, then the run's figures in another: no list or closure per
  // bucket (at Fit a 1M-event trace's ~2,000 buckets are planned again whenever a new analysis
  // changes most credit, as a followed trace's reward does).
  const n = group.length;
  const flags = planFlags(n);
  let anyCrowded = false;
  let notable = 0;
  for (let k = 0; k < n; k++) {
    const i = group[k];
    const r = role[i];
    const kept = keep !== undefined && (keep.has(i) || (endOf[i] >= 0 && keep.has(endOf[i])));
    // a turn end in a pile joins the run bar unless kept
    const crowded = r === Role.TurnMark && !kept && stops !== undefined && stopNear(stops, axis[i], bucket);
    if (crowded) anyCrowded = true;
    const fixed = (r === Role.Own || r === Role.TurnMark || kept) && !crowded;
    flags[k] = fixed ? FIXED : 0;
    if (!fixed && r === Role.Notable) notable++;
  }
  if (n < RUN_MIN && !anyCrowded) return { own: Array.from(group) };
  // events with arrows to other lanes stay on their own when few
  const notableAlone = notable <= NOTABLE_MAX;
  let members = 0;
  for (let k = 0; k < n; k++) {
    if (flags[k] === FIXED || (notableAlone && role[group[k]] === Role.Notable)) flags[k] = ALONE;
    else members++;
  }
  if (members < 2 && !anyCrowded) return { own: Array.from(group) };
  // members per kind (an index into ix.kinds), and the kinds in the order first met
  const count = new Int32Array(ix.kinds.length);
  const met: number[] = [];
  const own: number[] = [];
  let head = -1;
  let u1 = -Infinity;
  let first = Infinity;
  let credit = 0;
  let loop = false;
  for (let k = 0; k < n; k++) {
    const i = group[k];
    if (flags[k] === ALONE) {
      own.push(i);
      continue;
    }
    if (head < 0) head = i;
    const c = layout.credit?.at(i);
    if (c !== undefined && Math.abs(c) > Math.abs(credit)) credit = c;
    const kind = ix.kind[i];
    if (count[kind]++ === 0) met.push(kind);
    u1 = Math.max(u1, endOf[i] < 0 ? axis[i] : axis[endOf[i]]);
    first = Math.min(first, order[i]);
    if (layout.loop[i] === 1) loop = true;
  }
  // the most common kind; of several as common, the first met
  let most = met[0];
  for (const k of met) if (count[k] > count[most]) most = k;
  const run: GraphRun = { id: runKey(mode, bucket, at.lane, at.row, at.k), lane: at.lane, row: at.row, u0: axis[head], u1, count: members, kind: ix.kinds[most], loop, order: first, ...(credit ? { credit } : {}) };
  return { own, run };
}

/** {@link planBucket}'s flag of an event that stays on its own whatever the others (a stop, a mark, a first spawn, kept). */
const FIXED = 1;
/** {@link planBucket}'s flag of an event drawn on its own. */
const ALONE = 2;
/** Per event of the bucket being planned, its flags (reused: grown to the largest bucket). */
let flagScratch = new Uint8Array(1024);

/** {@link flagScratch} with room for `n` events. */
function planFlags(n: number): Uint8Array {
  if (flagScratch.length < n) flagScratch = new Uint8Array(Math.max(n, 2 * flagScratch.length));
  return flagScratch;
}

/**
 * True when a sorted list of stop positions holds two more stops than the one at `u` less than
 * `bucket` from it: a pile (a pair of turn ends stays two marks: the Claude Code session's two
 * turn ends a second apart are both named in the first view).
 */
function stopNear(stops: Float64Array, u: number, bucket: number): boolean {
  // the stops in (u - bucket, u + bucket): three or more (the one at u and two others) are a pile
  let lo = 0;
  let hi = stops.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (stops[mid] <= u - bucket) lo = mid + 1;
    else hi = mid;
  }
  let near = 0;
  for (let j = lo; j < stops.length && stops[j] < u + bucket; j++) if (++near > 2) return true;
  return false;
}

/**
 * One event's node with its text and fields (for the details pane); undefined for an unknown index.
 * `hasSource` says whether it has a source prompt by the rule Go to Source Prompt follows
 * (src/engine/source-prompt.ts: its own `source`, a sub-agent's task, a turn's user prompt).
 */
export function graphEvent(snapshot: TraceSnapshot, index: number): GraphNode | undefined {
  const { layout } = graphIndex(snapshot);
  if (!Number.isInteger(index) || index < 0 || index >= layout.events.length) return undefined;
  const event = eventWithContent(snapshot, index);
  if (!event) return undefined;
  const details = withCredit(eventDetails(event, layout.timeUnit, markedScope(layout.marks.get(index))), layout, index);
  return { ...layoutNode(layout, index, false, event), ...details, hasSource: sourcePromptOf(snapshot, index) !== undefined };
}

/**
 * The window's nodes, those of events whose long content was set aside (src/engine/long-content.ts)
 * labelled and cued from their content read back from disk (one open of the file for the window), as
 * they are when it is in memory (a followed file's events keep it): the label never depends on it.
 */
function withContentRead(snapshot: TraceSnapshot, layout: GraphLayout, nodes: GraphNode[]): GraphNode[] {
  const aside = snapshot.setAside;
  if (!aside?.size) return nodes;
  const at: number[] = [];
  nodes.forEach((n, k) => {
    if (aside.has(n.index)) at.push(k);
  });
  if (at.length === 0) return nodes;
  const texts = contentsOf(snapshot, at.map((k) => nodes[k].index));
  const out = nodes.slice();
  at.forEach((k, j) => {
    const i = nodes[k].index;
    const read = layoutNode(layout, i, false, { ...layout.events[i], content: texts[j] ?? '' });
    const { label: _label, short: _short, cues: _cues, ...rest } = nodes[k];
    out[k] = { ...rest, label: read.label, ...(read.short === undefined ? {} : { short: read.short }), ...(read.cues ? { cues: read.cues } : {}) };
  });
  return out;
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

