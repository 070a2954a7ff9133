/**
 * The index a snapshot's windowed graph is answered from (src/engine/graph-window.ts): per event its
 * kind and role in run bars, per lane row its drawn events sorted on each axis, per lane its stops,
 * the edges by source and by target. Its analysis-free part is built once per layout structure
 * (src/engine/graph-structure.ts) and shared by the trace as read and analysed; the roles, which
 * read the analysis's marks, are made per snapshot. Pure: no `vscode`.
 */
import type { GraphRun } from '../shared/protocol';
import { graphLayout, type GraphLayout } from './graph-model';
import type { LayoutStructure } from './graph-structure';
import { grownFrom } from './structure-growth';
import { eventCues } from '../shared/cues';
import { canonicalType, EVENT_TYPES } from '../trace/schema';
import { differingChunks, sameRange, sameUpTo } from './typed-diff';
import { appendColumn, copyColumn } from '../shared/append-column';
import { kindColumn, OTHER_KIND } from './kind-column';
import { shownAnalysis, type TraceSnapshot } from './snapshot';
import { contentsOf } from './long-content';
import type { CreditColumn } from '../analysis/credit-column';
import { BucketPlans } from './bucket-plans';
import { lowerBound } from '../analysis/sorted';
import { grownEdgeLookup, wholeEdgeLookup, type EdgeLookup } from './edge-lookup';

/** How an event takes part in runs. */
export const enum Role {
  /** Plain: joins a run bar. */
  Plain = 0,
  /** Arrows to other lanes, spawns, delegations, returns: on its own unless its bucket is crowded. */
  Notable = 1,
  /** Stops and problem marks: always on its own. */
  Own = 2,
  /**
   * A turn or phase end before its lane's last stop, drawn as a small mark: on its own unless it is
   * in a pile (two more stops of its lane less than a bucket away: then it joins its bucket's run
   * bar, which says how many events it holds), so turn ends never pile up.
   */
  TurnMark = 3,
}

/** Everything computed once per snapshot for answering windows: columns, no object per event. */
export interface GraphIndex {
  layout: GraphLayout;
  kinds: string[];
  /** Per event: index into `kinds`. */
  kind: Uint8Array;
  role: Uint8Array;
  /**
   * Per lane row (a track: lane, row), per mode: drawn events (no results inside bars) sorted by
   * start, and the longest bar; tracks in lane order, a lane's rows from the top.
   */
  tracks: Track[];
  /** Per lane, per mode: the positions of its stops, sorted (to tell a crowded turn end). */
  stops: { time: Float64Array; order: Float64Array }[];
  /** The layout's edges by source and by target event (src/engine/edge-lookup.ts). */
  edges: EdgeLookup;
  /** The cues some event carries (src/shared/cues.ts), in the order first met: what the legend explains. */
  cues: string[];
  /** Buckets already planned without events to keep, by mode and bucket width, then by lane and bucket number (see {@link planOf}; src/engine/bucket-plans.ts). */
  plans: Map<string, BucketPlans>;
}

/** One row of one lane: its drawn events sorted by start on each axis, and its longest bar on each. */
export interface Track {
  lane: number;
  row: number;
  time: Int32Array;
  order: Int32Array;
  longTime: number;
  longOrder: number;
}

/** How one lane row's bucket is drawn: the events on their own (in the order listed) and the run bar of the rest, if any. */
export interface BucketPlan {
  own: number[];
  run?: GraphRun;
}

const indices = new WeakMap<TraceSnapshot, GraphIndex>();

/** Builds a snapshot's graph index now (O(n log n) for n events), so that its overview and first windows answer without it. */
export function prepareGraph(snapshot: TraceSnapshot): void {
  graphIndex(snapshot);
}

/** The graph index of a snapshot (built on first use, then cached): O(n log n) for n events, O(n) when its trace's structure was built for another snapshot. */
export function graphIndex(snapshot: TraceSnapshot): GraphIndex {
  const known = indices.get(snapshot);
  if (known) return known;
  const aside = snapshot.setAside;
  const onDisk = aside?.size ? { has: (i: number) => aside.has(i), read: (at: readonly number[]) => contentsOf(snapshot, at) } : undefined;
  // while an append is analysed, the nodes keep the marks of the analysis the snapshot carries (of the events it read)
  const layout = graphLayout(snapshot.loaded, Infinity, shownAnalysis(snapshot), onDisk);
  const base = structureIndex(layout);
  const { kinds, kind, crossing } = base;
  const n = layout.events.length;
  // the roles without marks are the structure's; only the events the analysis marks are looked at again
  const role = base.role.slice();
  for (const [i, marks] of layout.marks) if (i >= 0 && i < n) role[i] = roleOf(kinds[kind[i]], marks, crossing[i] === 1);
  for (const i of base.firstSpawns) role[i] = Role.Own;
  for (const [i, marks] of layout.marks) if (i >= 0 && i < n && role[i] === Role.Own && isTurnMark(marks) && !keepsStop(marks)) role[i] = Role.TurnMark;
  const { tracks, stops, edges, cues } = base;
  const index: GraphIndex = { layout, kinds, kind, role, tracks, stops, edges, cues, plans: new Map() };
  if (base.grown) {
    // after an append: the buckets it left alone keep the plans made for the trace before it (those
    // whose events' marks differ, the other analysis's or none, are planned again)
    const from = base.grown.from.deref();
    const before = from && latest.get(from);
    if (before) index.plans = carriedPlans(before, index, base.grown);
  }
  latest.set(layout.structure, index);
  indices.set(snapshot, index);
  return index;
}

/** Per layout structure, the graph index made last for a snapshot of it (whose plans the next append's index carries). */
const latest = new WeakMap<LayoutStructure, GraphIndex>();

/**
 * The bucket plans of `before` (an index of the trace before an append) that hold for `index` (an
 * index after it; the old events kept their axis positions, rows and bars): every plan but those of
 * the buckets that hold an appended event, an old one that the append touched (see
 * {@link StructureIndex.grown}) or an old one whose marks differ (role, loop, credit: the two indices
 * show different analyses, or one shows none). A plan reads only its bucket's events, their kinds,
 * roles, positions, bar ends, loop marks and credit. O(touched) per bucket width kept: the plans are
 * read through (bucket-plans.ts), not copied.
 */
function carriedPlans(before: GraphIndex, index: GraphIndex, grown: NonNullable<StructureIndex['grown']>): GraphIndex['plans'] {
  const { lane, row, barOf, tx, order, lanes } = index.layout;
  const n = index.layout.events.length;
  const touched = [...grown.touched];
  for (let i = grown.n0; i < n; i++) touched.push(i);
  /** Old events whose credit alone differs: their buckets keep their plans, with their run bars' credit taken again. */
  const recredited: number[] = [];
  const was = before.layout;
  const now = index.layout;
  // marks of one analysis (one credit column) or of none differ only where the append touched; else compare
  if (was.credit !== now.credit) {
    // most events marked otherwise (another analysis's credit everywhere): planning again costs less than deleting plan by plan;
    // counted before any is listed (a list of half a million events made to be dropped was 8 MB of garbage per append at 1M)
    const most = touched.length + n / REPLAN_SHARE;
    const a: EventMarks = { role: before.role, loop: was.loop, credit: was.credit };
    const b: EventMarks = { role: index.role, loop: now.loop, credit: now.credit };
    // a sample first (when many differ, none is listed), then the events that differ listed in one pass
    if (mostDiffer(grown.n0, a, b) || !listDiffering(touched, recredited, grown.n0, most, a, b)) return new Map();
  }
  const out: GraphIndex['plans'] = new Map();
  for (const [key, plans] of before.plans) {
    const [mode, width] = key.split(':');
    const bucket = Number(width);
    const hidden = new Set<string>();
    for (const i of touched) {
      const d = barOf[i] >= 0 ? barOf[i] : i;
      if (lane[d] >= lanes.length) continue;
      const r = Math.min(row[d], Math.max(1, lanes[lane[d]].rows) - 1);
      hidden.add(`${lane[d]}:${r}:${Math.floor((mode === 'time' ? tx[d] : order[d]) / bucket)}`);
    }
    const carried = plans.carried(hidden);
    if (recredited.length > 0) recredit(index, carried, recredited, hidden, mode === 'time' ? 'time' : 'order', bucket);
    out.set(key, carried);
    plansCarried += Math.max(0, plans.size - hidden.size);
  }
  return out;
}

/**
 * Gives the run bars of the buckets that hold `recredited` events (old events whose credit alone
 * differs between the index the plans were made for and `ix`) their most credited member's credit
 * again, in `plans` (carried for `ix`, `hidden` not read through; a bucket with no plan yet is added to
 * `hidden`, so that no plan made later for the index before is read through): a plan's events on their own and
 * its bar read no credit, so they stand; the bar's credit is taken from its members as
 * graph-window.ts `planBucket` takes it (the largest in size, the first of equals; none when 0). A reward's
 * append at 1M events changes the credit of some 15,000 events spread over every bucket at Fit:
 * planning them all again was 12-16 ms of the graph's answer. O(recredited + their buckets' events).
 */
function recredit(ix: GraphIndex, plans: BucketPlans, recredited: readonly number[], hidden: Set<string>, mode: 'time' | 'order', bucket: number): void {
  const { lane, row, barOf, lanes, credit } = ix.layout;
  const axis = mode === 'time' ? ix.layout.tx : ix.layout.order;
  // the tracks by lane and row, numbered (a bucket is a track's number and the bucket's)
  const trackOf: Track[][] = [];
  for (const t of ix.tracks) (trackOf[t.lane] ??= [])[t.row] = t;
  const seen = new Set<number | string>();
  for (const i of recredited) {
    const d = barOf[i] >= 0 ? barOf[i] : i;
    if (lane[d] >= lanes.length) continue;
    const r = Math.min(row[d], Math.max(1, lanes[lane[d]].rows) - 1);
    const k = Math.floor(axis[d] / bucket);
    const at = k * lanes.length * MAX_ROWS + lane[d] * MAX_ROWS + r;
    const seenKey = Number.isSafeInteger(at) && r < MAX_ROWS ? at : `${lane[d]}:${r}:${k}`;
    if (seen.has(seenKey)) continue;
    seen.add(seenKey);
    const key = `${lane[d]}:${r}:${k}`;
    if (hidden.has(key)) continue;
    const plan = plans.get(key);
    // a bucket planned nowhere yet is hidden: a plan the layer below gets later (for the index before) has that index's credit
    if (!plan) hidden.add(key);
    const track = trackOf[lane[d]]?.[r];
    if (!plan?.run || !track) continue;
    const list = mode === 'time' ? track.time : track.order;
    // the bucket's events, as graph-window.ts finds them
    const lo = lowerBound(list, (e) => axis[e] >= k * bucket);
    const hi = lowerBound(list, (e) => axis[e] >= (k + 1) * bucket, lo);
    const own = plan.own;
    const best = credit ? mostCredited(list, lo, hi, own, credit) : 0;
    if (best === (plan.run.credit ?? 0)) continue;
    const { credit: _was, ...run } = plan.run;
    plans.set(key, { own, run: best ? { ...run, credit: best } : run });
    runsRecredited++;
  }
}

/**
 * The credit of the most credited member of a bucket (its events `list[lo..hi)` but those on their own, `own`, listed
 * in the same order): the largest in size, the first of equals; 0 when none has any. A plain function of its own: as
 * the inner loop of {@link recredit}, V8 compiled it on its own and left that code at each bucket's end (124 times over
 * a written row's 24 appends at 1M).
 */
function mostCredited(list: ArrayLike<number>, lo: number, hi: number, own: readonly number[], credit: CreditColumn): number {
  let best = 0;
  for (let p = lo, q = 0; p < hi; p++) {
    const e = list[p];
    if (q < own.length && own[q] === e) {
      q++;
      continue;
    }
    const c = credit.at(e);
    if (c !== undefined && Math.abs(c) > Math.abs(best)) best = c;
  }
  return best;
}

/** Rows per lane that {@link recredit} numbers its buckets with (a lane with more is named by a string). */
const MAX_ROWS = 64;

/**
 * Above this share of the events marked otherwise, a graph index plans its buckets again rather than
 * deleting the plans of their buckets one by one: a new analysis's credit differs at a third of the
 * events of the bench trace at 1M, and deleting their plans (a key per event and plan width) was
 * 100-200 ms where planning the Fit window again is 20-40.
 */
const REPLAN_SHARE = 16;

/** What a bucket plan reads of an event's marks, per event: its role, loop mark and credit. */
interface EventMarks {
  role: Uint8Array;
  loop: Uint8Array;
  credit: CreditColumn | undefined;
}

/** True when event `i`'s marks differ between `a` and `b`. */
function marksDiffer(a: EventMarks, b: EventMarks, i: number): boolean {
  return a.role[i] !== b.role[i] || a.loop[i] !== b.loop[i] || a.credit?.at(i) !== b.credit?.at(i);
}

/**
 * Adds to `touched` the events among [0, n0) whose marks differ between `a` and `b`, but those whose
 * credit alone differs (the same role and loop mark), which go to `recredited`. @returns false as
 * soon as either holds more than `most` (then planning again costs less). One pass over plain
 * columns (a closure over the layouts asked twice per event was 25-45 ms at 1M events); where the
 * two credit columns share their values (a followed trace's analyses share all but a few chunks),
 * only the roles and loop marks are compared (reading both credits per event was 12-18 ms per graph
 * answer at 1M events); where only credit differs, the two columns are compared chunk by chunk
 * (credit-column.ts `listDiffering`).
 */
function listDiffering(touched: number[], recredited: number[], n0: number, most: number, a: EventMarks, b: EventMarks): boolean {
  for (let from = 0; from < n0; from += DIFFER_SPAN) {
    const to = Math.min(n0, from + DIFFER_SPAN);
    const marksSame = sameRange(a.role, b.role, from, to) && sameRange(a.loop, b.loop, from, to);
    if (marksSame && a.credit !== undefined && b.credit !== undefined) {
      // roles and loop marks the same bytes (memcmp): only credit can differ (listDiffering skips the chunks the columns share)
      if (!a.credit.listDiffering(b.credit, from, to, recredited, most)) return false;
      continue;
    }
    for (let i = from; i < to; i++) {
      if (!marksDiffer(a, b, i)) continue;
      touched.push(i);
      if (touched.length > most) return false;
    }
  }
  return true;
}

/** Events per span of {@link listDiffering} (a credit column's chunk). */
const DIFFER_SPAN = 4096;

/** Positions of the old events sampled by {@link mostDiffer}. */
const DIFFER_SAMPLES = 1024;

/** True when the marks of more than 1 / {@link REPLAN_SHARE} of `DIFFER_SAMPLES` old events spread over [0, n0) differ; false for fewer old events. */
function mostDiffer(n0: number, a: EventMarks, b: EventMarks): boolean {
  if (n0 < 4 * DIFFER_SAMPLES) return false;
  const step = n0 / DIFFER_SAMPLES;
  let count = 0;
  for (let k = 0; k < DIFFER_SAMPLES; k++) if (marksDiffer(a, b, Math.floor(k * step))) count++;
  return count * REPLAN_SHARE > DIFFER_SAMPLES;
}

/** What a graph index reads of its layout's structure alone (no analysis): kept per structure, shared by the indices of the trace as read and analysed. */
interface StructureIndex {
  kinds: string[];
  kind: Uint8Array;
  /** Per event: 1 when an edge joins it to another lane. */
  crossing: Uint8Array;
  tracks: Track[];
  stops: GraphIndex['stops'];
  edges: EdgeLookup;
  /** See {@link firstSpawns}. */
  firstSpawns: number[];
  /** Per event: its role when the analysis marks nothing (see {@link roleOf}). */
  role: Uint8Array;
  /** See {@link GraphIndex.cues}. */
  cues: string[];
  /**
   * Set when made from the index of the structure `from` (its first `n0` events) and the old
   * events kept their axis positions, rows and bars: the old events whose role, bar end or first
   * spawn the append changed (what a bucket plan of theirs read).
   */
  grown?: { from: WeakRef<LayoutStructure>; n0: number; touched: number[] };
}

const structureIndices = new WeakMap<LayoutStructure, StructureIndex>();
let indexExtensions = 0;
let plansCarried = 0;
let runsRecredited = 0;

/** How many run bars of carried bucket plans this process gave another credit (an append's analysis changed it), instead of planning their buckets again: for tests and benches. */
export function graphRunsRecredited(): number {
  return runsRecredited;
}

/** How many bucket plans this process carried from a graph index to the next one after an append, instead of planning them again: for tests and benches. */
export function graphPlansCarried(): number {
  return plansCarried;
}

/** How many structure indices this process made from the one of the structure theirs was extended from (an append), instead of whole: for tests and benches. */
export function graphIndexExtensions(): number {
  return indexExtensions;
}

/**
 * The {@link StructureIndex} of a layout's structure (built once per structure, O(n log n) for n
 * events). A structure extended by an append (src/engine/structure-growth.ts `grownFrom`) whose
 * predecessor's index is still in memory has its index made from that one: the old events' kinds,
 * roles, tracks and stops carried, the appended events' added (O(appended log appended) plus O(n)
 * comparisons and copies of typed arrays); equal to a whole build (test/unit/engine/structure-growth.test.ts).
 */
function structureIndex(layout: GraphLayout): StructureIndex {
  const known = structureIndices.get(layout.structure);
  if (known) return known;
  const { events } = layout;
  const n = events.length;
  // a structure extended by an append: the old events' kinds and cues are those of the one it was extended from
  const from = grownFrom(layout.structure);
  const prev = from && structureIndices.get(from.structure);
  const kinds: string[] = prev ? prev.kinds.slice() : [];
  const kindIndex = new Map<string, number>(kinds.map((k, i) => [k, i]));
  const since = prev ? from!.n : 0;
  // the old events' kinds as they were: a longer view of their memory when it can be (src/shared/append-column.ts)
  const kind = prev ? appendColumn(prev.kind.subarray(0, since), n) : new Uint8Array(n);
  const cueSet = new Set<string>(prev?.cues);
  for (let i = since; i < n; i++) for (const c of eventCues(events[i])) cueSet.add(c);
  // the events' kinds read from their kind column (src/engine/kind-column.ts): a name looked up once per kind, not per event
  const codes = kindColumn(events);
  const byCode = new Int16Array(256).fill(-1);
  for (let i = since; i < n; i++) {
    const code = codes[i];
    let k = byCode[code];
    if (k < 0) {
      const name = code === OTHER_KIND ? canonicalType(events[i].type) : EVENT_TYPES[code];
      let known = kindIndex.get(name);
      if (known === undefined) {
        kindIndex.set(name, (known = kinds.length));
        kinds.push(name);
      }
      k = known;
      if (code !== OTHER_KIND) byCode[code] = k;
    }
    kind[i] = k;
  }
  const { crossing, edges } = (prev && grownEdges(layout, prev, from!)) || edgesByEvent(layout);
  const grown = prev ? grownTracks(layout, from!.structure, prev, since) : undefined;
  const tracks = grown?.tracks ?? wholeTracks(layout);
  if (grown) indexExtensions++;
  const touched: number[] = grown?.longer ?? [];
  // an old event keeps its role unless an edge now joins it to another lane
  const crossed: number[] = [];
  if (prev) {
    // compared as bytes: only chunks where an old event's crossing changed are read value by value
    for (const [start, end] of differingChunks(crossing, prev.crossing, since)) for (let i = start; i < end; i++) if (crossing[i] !== prev.crossing[i]) crossed.push(i);
  }
  // the old roles as they were, a longer view of their memory while none changed; else a copy
  const role = !prev ? new Uint8Array(n) : crossed.length > 0 ? copyColumn(prev.role.subarray(0, since), n) : appendColumn(prev.role.subarray(0, since), n);
  for (const i of crossed) {
    role[i] = roleOf(kinds[kind[i]], undefined, crossing[i] === 1);
    touched.push(i);
  }
  // without marks an event's role is its kind's, crossing or not: worked out once per kind
  const kindRole = kinds.flatMap((name) => [roleOf(name, undefined, false), roleOf(name, undefined, true)]);
  for (let i = since; i < n; i++) role[i] = kindRole[2 * kind[i] + crossing[i]];
  const stops = prev && grown?.sameTx && prev.stops.length === layout.lanes.length ? grownStops(layout, prev, kinds, kind, since) : stopsByLane(layout, kinds, kind);
  const spawns = firstSpawns(layout, kinds, kind);
  // an old event that became, or is no longer, the first spawn into a lane
  if (prev) {
    const was = new Set(prev.firstSpawns);
    const is = new Set(spawns);
    for (const i of spawns) if (i < since && !was.has(i)) touched.push(i);
    for (const i of prev.firstSpawns) if (!is.has(i)) touched.push(i);
  }
  const index: StructureIndex = { kinds, kind, crossing, tracks, stops, edges, firstSpawns: spawns, role, cues: [...cueSet], ...(grown?.sameTx ? { grown: { from: new WeakRef(from!.structure), n0: since, touched } } : {}) };
  structureIndices.set(layout.structure, index);
  return index;
}

/** The edges by source and by target event, and which events an edge joins to another lane: O(n + edges), typed arrays only. */
function edgesByEvent(layout: GraphLayout): Pick<StructureIndex, 'crossing' | 'edges'> {
  const { count, source, target } = layout.edges;
  const lane = layout.lane;
  const n = layout.events.length;
  const crossing = new Uint8Array(n);
  for (let k = 0; k < count; k++) if (lane[source[k]] !== lane[target[k]]) crossing[source[k]] = crossing[target[k]] = 1;
  return { crossing, edges: wholeEdgeLookup(layout.edges, n) };
}

/**
 * {@link edgesByEvent} of a layout whose structure was extended from `from` (its events and edges
 * the old ones, in their order, with the edges at `from.insertedEdges` added; the old events keep
 * their lanes), made from the old index `prev`: O(edges added) plus a copy of the old crossings.
 * Undefined when the old lookup has read through as many appends as it may (src/engine/edge-lookup.ts).
 */
function grownEdges(layout: GraphLayout, prev: StructureIndex, from: { n: number; insertedEdges: Int32Array }): Pick<StructureIndex, 'crossing' | 'edges'> | undefined {
  const edges = grownEdgeLookup(prev.edges, layout.edges, from.insertedEdges);
  if (!edges) return undefined;
  const { source, target } = layout.edges;
  const lane = layout.lane;
  const n0 = from.n;
  const old = prev.crossing.subarray(0, n0);
  // the old crossings as they were, a longer view of their memory, unless a new edge joins an old event to another lane for the first time
  let marksOld = false;
  for (const k of from.insertedEdges) if (lane[source[k]] !== lane[target[k]] && ((source[k] < n0 && old[source[k]] === 0) || (target[k] < n0 && old[target[k]] === 0))) marksOld = true;
  const crossing = marksOld ? copyColumn(old, layout.events.length) : appendColumn(old, layout.events.length);
  for (const k of from.insertedEdges) if (lane[source[k]] !== lane[target[k]]) crossing[source[k]] = crossing[target[k]] = 1;
  return { crossing, edges };
}

/** The tracks of a layout built from its events (O(n log n); O(n) for a trace written in time order). */
function wholeTracks(layout: GraphLayout): Track[] {
  const { tx, order, end } = layout;
  return drawnByTrack(layout).map(({ lane, row, list }) => {
    // a trace written in time order: both are the track's list itself (no copies: 8 bytes per event)
    const time = sortedBy(list, (a, b) => tx[a] - tx[b] || order[a] - order[b]);
    const inOrder = sortedBy(list, (a, b) => order[a] - order[b]);
    let longTime = 0;
    let longOrder = 0;
    for (const i of list) {
      if (end[i] < 0) continue;
      longTime = Math.max(longTime, tx[end[i]] - tx[i]);
      longOrder = Math.max(longOrder, order[end[i]] - order[i]);
    }
    return { lane, row, time, order: inOrder, longTime, longOrder };
  });
}

/**
 * The tracks of a layout whose structure was extended from `old` (its first `n0` events are
 * `old`'s, src/engine/structure-growth.ts), made from `prev`'s tracks and the appended events:
 * each track's lists are its old ones followed by its new events (the new events' time ranks
 * come after every old one). Equal to {@link wholeTracks}. Undefined when an old event changed
 * lane row or bar, or a lane its number of rows (then the tracks are made whole).
 * O(n) byte comparisons (memcmp) and copies of typed arrays plus O(appended log appended).
 */
function grownTracks(layout: GraphLayout, old: LayoutStructure, prev: StructureIndex, n0: number): { tracks: Track[]; sameTx: boolean; longer: number[] } | undefined {
  const { lane, row, barOf, tx, order, end } = layout;
  const n = layout.events.length;
  const laneCount = layout.lanes.length;
  if (old.rows.length !== laneCount) return undefined;
  for (let l = 0; l < laneCount; l++) if (Math.max(1, old.rows[l]) !== Math.max(1, layout.lanes[l].rows)) return undefined;
  // (the columns read into locals: a property read per event of objects of many shapes costs more than the loop)
  const { row: oldRow, barOf: oldBarOf, lane: oldLane, tx: oldTx, end: oldEnd } = old;
  // the old events' columns compared as bytes (typed-diff.ts): equal bytes, equal values
  if (!sameUpTo(row, oldRow, n0) || !sameUpTo(barOf, oldBarOf, n0) || !sameUpTo(lane, oldLane, n0)) return undefined;
  const sameTx = sameUpTo(tx, oldTx, n0);
  // track number of a lane's row, as drawnByTrack numbers them
  const first = new Int32Array(laneCount + 1);
  for (let l = 0; l < laneCount; l++) first[l + 1] = first[l] + Math.max(1, layout.lanes[l].rows);
  if (first[laneCount] !== prev.tracks.length) return undefined;
  const trackOf = (i: number) => first[lane[i]] + Math.min(row[i], first[lane[i] + 1] - first[lane[i]] - 1);
  const added: number[][] = Array.from({ length: prev.tracks.length }, () => []);
  for (let i = n0; i < n; i++) if (barOf[i] < 0 && lane[i] < laneCount) added[trackOf(i)].push(i);
  // old calls whose result came with the append: their bars grew
  const longer = new Set<number>();
  const ended: number[] = [];
  for (const [start, stop] of differingChunks(end, oldEnd, n0))
    for (let i = start; i < stop; i++)
      if (end[i] !== oldEnd[i] && barOf[i] < 0 && lane[i] < laneCount) {
        longer.add(trackOf(i));
        ended.push(i);
      }
  const byTime = (a: number, b: number) => tx[a] - tx[b] || order[a] - order[b];
  const tracks = prev.tracks.map((t, k) => {
    const more = added[k];
    if (more.length === 0 && !longer.has(k) && sameTx) return t;
    more.sort((a, b) => order[a] - order[b]);
    const inOrder = concat(t.order, more);
    let time: Int32Array;
    // old lists that were one (in time order as in file order) with the old positions kept: only from where the new events join is read
    const from = sameTx && t.time === t.order ? Math.max(1, t.order.length) : 1;
    if (isSortedByTime(inOrder, tx, order, from)) time = inOrder;
    else if (sameTx) {
      // the old ones in time order, then the new ones (whose times are no earlier), checked where they meet
      const tail = more.slice().sort(byTime);
      time = concat(t.time, tail);
      if (t.time.length > 0 && tail.length > 0 && byTime(t.time[t.time.length - 1], tail[0]) > 0) time = inOrder.slice().sort(byTime);
    } else time = inOrder.slice().sort(byTime);
    let longTime = sameTx ? t.longTime : 0;
    let longOrder = sameTx ? t.longOrder : 0;
    const bars = sameTx && !longer.has(k) ? more : inOrder;
    for (const i of bars) {
      if (end[i] < 0) continue;
      longTime = Math.max(longTime, tx[end[i]] - tx[i]);
      longOrder = Math.max(longOrder, order[end[i]] - order[i]);
    }
    return { lane: t.lane, row: t.row, time, order: inOrder, longTime, longOrder };
  });
  return { tracks, sameTx, longer: ended };
}

/** `a` followed by `b`: a longer view of `a`'s buffer when it has room (src/shared/append-column.ts; `a` itself unchanged), else a new one. */
function concat(a: Int32Array, b: readonly number[]): Int32Array {
  const out = appendColumn(a, a.length + b.length);
  out.set(b, a.length);
  return out;
}

/** True when `list` is sorted by axis position, then time rank (what the time lists are sorted by), read from `from` (its entries before `from` known sorted). */
function isSortedByTime(list: Int32Array, tx: Float64Array, order: Int32Array, from = 1): boolean {
  for (let k = from; k < list.length; k++) {
    const a = list[k - 1];
    const b = list[k];
    if (!(tx[a] - tx[b] < 0 || (tx[a] - tx[b] === 0 && order[a] - order[b] <= 0))) return false;
  }
  return true;
}

/**
 * The stops per lane of a layout extended from the one of `prev` (its first `n0` events), when
 * the old events kept their axis positions: the old lists with the new stops merged in (lanes
 * without new stops share the old lists). Equal to {@link stopsByLane}.
 */
function grownStops(layout: GraphLayout, prev: StructureIndex, kinds: string[], kind: Uint8Array, n0: number): StructureIndex['stops'] {
  const stop = kinds.indexOf('stop');
  const out = prev.stops.slice();
  if (stop < 0) return out;
  const more = new Map<number, number[]>();
  for (let i = n0; i < kind.length; i++) {
    if (kind[i] !== stop || layout.lane[i] >= out.length) continue;
    const list = more.get(layout.lane[i]);
    if (list) list.push(i);
    else more.set(layout.lane[i], [i]);
  }
  for (const [l, list] of more) {
    const grow = (old: Float64Array, of: ArrayLike<number>) => {
      const next = new Float64Array(old.length + list.length);
      next.set(old);
      list.forEach((i, k) => (next[old.length + k] = of[i]));
      return next.sort();
    };
    out[l] = { time: grow(out[l].time, layout.tx), order: grow(out[l].order, layout.order) };
  }
  return out;
}

/**
 * Per lane row, its drawn events (no results inside bars) in file order, lanes in order and each
 * lane's rows from the top: views of one column, counted then filled (no list per track grown by
 * push; a 1M-event trace's lists came to 8 MB and their copies).
 */
function drawnByTrack(layout: GraphLayout): { lane: number; row: number; list: Int32Array }[] {
  const { lane, row, barOf } = layout;
  const laneCount = layout.lanes.length;
  // Track number of a lane's row: the lane's first track plus the row.
  const first = new Int32Array(laneCount + 1);
  for (let l = 0; l < laneCount; l++) first[l + 1] = first[l] + Math.max(1, layout.lanes[l].rows);
  const trackOf = (i: number) => first[lane[i]] + Math.min(row[i], first[lane[i] + 1] - first[lane[i]] - 1);
  const sizes = new Int32Array(first[laneCount]);
  for (let i = 0; i < lane.length; i++) if (barOf[i] < 0 && lane[i] < laneCount) sizes[trackOf(i)]++;
  const column = new Int32Array(sizes.reduce((sum, size) => sum + size, 0));
  const fill = new Int32Array(sizes.length);
  const out: { lane: number; row: number; list: Int32Array }[] = [];
  let offset = 0;
  for (let l = 0; l < laneCount; l++)
    for (let r = 0; r < first[l + 1] - first[l]; r++) {
      const t = first[l] + r;
      out.push({ lane: l, row: r, list: column.subarray(offset, offset + sizes[t]) });
      fill[t] = offset;
      offset += sizes[t];
    }
  for (let i = 0; i < lane.length; i++) if (barOf[i] < 0 && lane[i] < laneCount) column[fill[trackOf(i)]++] = i;
  return out;
}

/** True for the marks of a turn or phase end. */
function isTurnMark(marks: Set<string> | undefined): boolean {
  return marks !== undefined && (marks.has('turn-end') || marks.has('phase-end'));
}

/** True for the marks of a stop drawn large whatever its scope: its lane's last stop, a problem, the blamed event. */
function keepsStop(marks: Set<string> | undefined): boolean {
  return marks !== undefined && (marks.has('last-stop') || marks.has('stop-problem') || marks.has('blame'));
}

/** Per lane, the positions of its stops on each axis, sorted. */
function stopsByLane(layout: GraphLayout, kinds: string[], kind: Uint8Array): { time: Float64Array; order: Float64Array }[] {
  const stop = kinds.indexOf('stop');
  const lists = layout.lanes.map(() => ({ time: [] as number[], order: [] as number[] }));
  const { lane, tx, order } = layout;
  if (stop >= 0)
    for (let i = 0; i < kind.length; i++) {
      if (kind[i] !== stop || lane[i] >= lists.length) continue;
      lists[lane[i]].time.push(tx[i]);
      lists[lane[i]].order.push(order[i]);
    }
  return lists.map((l) => ({ time: Float64Array.from(l.time).sort(), order: Float64Array.from(l.order).sort() }));
}

/**
 * `list` sorted by `compare` (stable): `list` itself when already in that order (the usual case: a
 * trace written in time order), else a sorted copy (`list` is left as it is). Sorting a typed array
 * with a comparator copies it twice on the heap, so it is done only when needed.
 */
function sortedBy(list: Int32Array, compare: (a: number, b: number) => number): Int32Array {
  for (let k = 1; k < list.length; k++) if (!(compare(list[k - 1], list[k]) <= 0)) return list.slice().sort(compare);
  return list;
}

/**
 * The spawn events that first spawn into each lane (by time order): on their own at every level of
 * detail, so the first view shows who spawned whom. At most one per lane.
 */
function firstSpawns(layout: GraphLayout, kinds: string[], kind: Uint8Array): number[] {
  const { edges, lane, order } = layout;
  const spawn = kinds.indexOf('spawn');
  const spawns: number[] = [];
  for (let k = 0; k < edges.count; k++) {
    const a = edges.source[k];
    if (spawn >= 0 && kind[a] === spawn && lane[a] !== lane[edges.target[k]]) spawns.push(k);
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
