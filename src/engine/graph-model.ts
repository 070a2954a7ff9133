/**
 * Turns a loaded trace into the graph the webview draws: one entry per event (a tool call and its
 * result share one bar), the trace's edges plus derived spawn, message and return links, lanes in
 * spawn-tree order and a time axis with idle gaps compressed (src/engine/lanes.ts). The webview
 * scales the axis to the panel; nothing here costs more than O(n log n) for n events.
 * Pure: imports nothing from `vscode`.
 */
import type { Analysis } from '../analysis';
import { isSoundStop } from '../analysis/types';
import { creditColumn, type CreditColumn } from '../analysis/credit-column';
import type { GraphEdge, GraphFinding, GraphLane, GraphModel, GraphNode } from '../shared/protocol';
import type { LoadedTrace, Problem } from '../trace/model';
import { canonicalType, type TraceEvent } from '../trace/schema';
import { describeCue, eventCues } from '../shared/cues';
import { recordsFailure } from '../shared/recorded-failure';
import { layoutStructure, type LayoutEdges, type LayoutStructure } from './graph-structure';
import { firstIndexOfIds } from './lanes';
import { creditWorthShowing, formatCredit, shareWords } from '../shared/credit-words';
import { plainLabel, visibleControls } from '../shared/untrusted-text';
import { formatDuration } from '../shared/duration-words';
import { formatAt, formatSpan, timeUnitOf, type TimeUnit } from '../trace/units';
import { eventLabel, LABEL_CHARS, shortLabel, type LabelContext } from './event-labels';
import { LANE_LABEL_CHARS, laneScan, laneWords, type ContentOnDisk, type LaneScan } from './lane-labels';
import { grownFrom, isFollowed } from './structure-growth';
import { shownProblem } from './shown-problems';
import { samePrefix } from '../trace/shared-prefix';
import { sameUpTo } from './typed-diff';
import { appendColumn, columnWithRoom } from '../shared/append-column';
import type { FoldedLane, FoldedLanes } from './lane-folds';
import { formatUsage, usageOf } from '../trace/tokens';
import { ENDED_WORDS, reasonField, stopReasonWords } from '../shared/stop-words';

const TEXT_LIMIT = 2000;

/**
 * The graph of a trace in columns, one entry per drawn event (file order), without a node object
 * per event: what {@link buildGraph} makes nodes and edges of, and what the windowed graph keeps
 * for a trace of any size (src/engine/graph-window.ts), making the nodes of a window on demand
 * ({@link layoutNode}, {@link layoutEdge}). About 30 bytes per event plus 20 per edge.
 */
export interface GraphLayout {
  format: string;
  /** What the events' `t` counts: seconds, or steps when the trace records no clock. */
  timeUnit: TimeUnit;
  totalEvents: number;
  traces?: GraphModel['traces'];
  lanes: GraphLane[];
  /** Set when the agents were more than the lanes a graph shows: what was folded into group lanes (src/engine/lane-folds.ts). */
  folded?: FoldedLanes;
  axis: GraphModel['axis'];
  findings: GraphFinding[];
  problems: GraphModel['problems'];
  /** The events drawn (the first `maxEvents` in file order). */
  events: readonly TraceEvent[];
  /** Per event: its lane (index into `lanes`). */
  lane: Int32Array;
  /** Per event: its row inside its lane (0 = the lane's top row; src/engine/lane-rows.ts); a result drawn in a bar has its call's. */
  row: Uint8Array;
  /** Per event: its rank in time order. */
  order: Int32Array;
  /** Per event: its position on the time axis (axis units). */
  tx: Float64Array;
  /** Per event: the index of its result when it is a tool call drawn as a bar, else -1. */
  end: Int32Array;
  /** Per event: the index of the call whose bar it is drawn in (a tool result), else -1. */
  barOf: Int32Array;
  /** Per lane: its trace, when the file holds several (nodes then name it). */
  laneTraces?: (string | undefined)[];
  /** Per event: 1 when it is a member of a loop (its node's first mark, `loop`). */
  loop: Uint8Array;
  /** Event index -> its other analysis marks (`stop-ok`, `stop-problem`, `turn-end`, `phase-end`, `last-stop`, `blame`; sparse). */
  marks: Map<number, Set<string>>;
  /** Credit per event index, when the analysis gave it (src/analysis/credit-column.ts: a followed trace's analyses share its chunks). */
  credit?: CreditColumn;
  /** False when the credit is an unsigned influence share (the trace records no outcome). */
  creditSigned?: boolean;
  edges: LayoutEdges;
  /** What the node labels of an event need: the shown names of lanes (of the event's trace), the run's working folder. */
  labelContext: (e: TraceEvent) => LabelContext;
  /** What the layout shares with every other layout of its loaded trace (the columns above are its). */
  structure: LayoutStructure;
}

/**
 * Builds the {@link GraphModel} of a trace, drawing at most `maxEvents` events (the first in file order);
 * `options.details: false` leaves out each node's text and fields (the windowed graph asks for
 * them per event, see src/engine/graph-window.ts).
 * Lanes: agents as a spawn tree (sub-agents under their spawner). `tx` is the event's time on an
 * axis whose long idle gaps are compressed; `order` its rank in time order. A tool call paired
 * with its result is one bar (`txEnd`); the result points at it (`bar`).
 * Derived links (only when the trace has no edge from that event into the target agent's lane):
 * - spawn: a spawn event -> the first event of the spawned agent (`to`) at or after it;
 * - message: a delegate/message with `to` -> the next event of that agent at or after it;
 * - return: a return with `to` -> the next event of that agent at or after it.
 * Edges into or out of a result drawn in a bar attach to the bar; edges inside a bar are dropped.
 */
export function buildGraph(loaded: LoadedTrace, title: string, maxEvents = Infinity, analysis?: Analysis, options: { details?: boolean } = {}): GraphModel {
  const layout = graphLayout(loaded, maxEvents, analysis);
  const details = options.details ?? true;
  const { format, totalEvents, traces, lanes, axis, findings, problems } = layout;
  const edges: GraphEdge[] = [];
  for (let k = 0; k < layout.edges.count; k++) edges.push(layoutEdge(layout.edges, k));
  return {
    title,
    format,
    totalEvents,
    ...(traces ? { traces } : {}),
    lanes,
    nodes: layout.events.map((_, i) => layoutNode(layout, i, details)),
    axis,
    edges,
    findings,
    problems,
  };
}

/**
 * The graph of a trace in columns (see {@link GraphLayout}; what {@link buildGraph} describes). The
 * structure (lanes, rows, axis, edges) is shared with every layout of the same loaded trace
 * ({@link layoutStructure}); the lanes' words, which read the events' content, and the analysis's
 * marks, findings and credit are made here. O(n log n) for n events the first time, O(n) after.
 * `contentOnDisk`: the events whose content was let go after the analysis (the lanes' tasks are read back).
 */
export function graphLayout(loaded: LoadedTrace, maxEvents = Infinity, analysis?: Analysis, contentOnDisk?: ContentOnDisk): GraphLayout {
  const edges = loaded.trace.edges ?? [];
  // Cytoscape stays interactive up to some ten thousand nodes: beyond the limit, draw the first events.
  const structure = layoutStructure(loaded, maxEvents);
  const { events, grouped: lanes, fold, lane, rows } = structure;
  const { keyOf, traces } = lanes;
  const { loop, marks } = layoutMarks(analysis, events, lane);
  /** The lane (index into the graph's lanes) of an original lane. */
  const shownOf = (k: number) => (fold ? fold.laneOf[k] : k);
  const metadata = loaded.trace.metadata as Record<string, unknown> | undefined;
  const agentsMeta = metadata?.agents && typeof metadata.agents === 'object' ? (metadata.agents as Record<string, unknown>) : undefined;
  // words only for the lanes shown as their agent's (a folded agent is named in its group's tooltip)
  const own = fold ? fold.lanes.flatMap((l) => (l.of === undefined ? [] : [lanes.at(l.of)])) : lanes.all();
  const countOf = (key: string) => {
    const k = lanes.indexOf(key);
    return k === undefined ? 0 : structure.groupedCounts[k];
  };
  const wordsInput = { events, edges, keyOf, firstIndex: () => firstIndexOfIds(events), count: countOf, agents: agentsMeta, contentOnDisk };
  const ownWords = laneWords(own, wordsInput, contentOnDisk ? undefined : structureScan(structure, wordsInput));
  const ownLanes: GraphLane[] = own.map((l, i) => ({
    name: l.name,
    ...(ownWords[i].label === undefined ? {} : { label: ownWords[i].label }),
    tip: ownWords[i].tip,
    ...(l.parent ? { parent: l.parent } : {}),
    depth: l.depth,
    count: countOf(l.key),
    rows: 1,
    ...(l.trace === undefined ? {} : { trace: l.trace }),
    ...(l.name === l.agent ? {} : { agent: l.agent }),
  }));
  let ownAt = 0;
  const graphLanes: GraphLane[] = fold
    ? fold.lanes.map((l, i) => {
        if (l.of === undefined) return { ...groupLane(l), count: structure.shownCounts![i] };
        // a kept lane sits under its nearest kept ancestor (its spawner may be folded)
        const { parent: _spawner, ...own } = ownLanes[ownAt++];
        return { ...own, ...(l.parent ? { parent: l.parent } : {}), depth: l.depth };
      })
    : ownLanes;
  graphLanes.forEach((l, i) => (l.rows = rows[i]));
  const cwd = typeof metadata?.cwd === 'string' ? metadata.cwd : undefined;
  const labelContext = (e: TraceEvent): LabelContext => ({
    cwd,
    laneLabel: (agent) => {
      const k = lanes.indexOf(lanes.keyOfAgent(e, agent));
      const shown = k === undefined ? undefined : graphLanes[shownOf(k)];
      return shown === undefined || shown.folded !== undefined ? agent : (shown.label ?? agent);
    },
  });
  const laneTraces = traces.length > 1 ? graphLanes.map((l) => l.trace) : undefined;
  const unit = timeUnitOf(loaded);
  return {
    format: loaded.format,
    timeUnit: unit,
    totalEvents: loaded.trace.events.length,
    ...(laneTraces ? { traces: traces.map((id) => ({ id, events: lane.reduce((sum, l) => sum + (laneTraces[l] === id ? 1 : 0), 0), lanes: graphLanes.filter((l) => l.trace === id).length })) } : {}),
    lanes: graphLanes,
    ...(fold ? { folded: fold.folded } : {}),
    axis: structure.axis,
    findings: graphFindings(analysis, events, unit),
    problems: {
      errors: shownCount(loaded, 'error'),
      warnings: shownCount(loaded, 'warning'),
    },
    events,
    lane,
    row: structure.row,
    order: structure.order,
    tx: structure.tx,
    end: structure.end,
    barOf: structure.barOf,
    ...(laneTraces ? { laneTraces } : {}),
    loop,
    marks,
    credit: analysis && creditColumn(analysis.credit),
    creditSigned: analysis?.credit.signed,
    edges: structure.edges,
    labelContext,
    structure,
  };
}

/** How many of the trace's reading problems the views show with `severity` (src/engine/shown-problems.ts). */
function shownCount(loaded: LoadedTrace, severity: Problem['severity']): number {
  const followed = isFollowed(loaded);
  let count = 0;
  for (const p of loaded.problems) if (shownProblem(p, followed).severity === severity) count++;
  return count;
}

/** The lanes' scan of each structure's events (src/engine/lane-labels.ts `laneScan`), made with their content in memory. */
const scans = new WeakMap<LayoutStructure, LaneScan>();

/**
 * The {@link LaneScan} of a structure's events, kept with it: a structure extended by an append
 * (src/engine/structure-growth.ts `grownFrom`) scans only the appended events, from its
 * predecessor's scan. For events whose content is all in memory (none let go to disk).
 */
function structureScan(structure: LayoutStructure, input: Parameters<typeof laneScan>[0]): LaneScan {
  const known = scans.get(structure);
  if (known) return known;
  const from = grownFrom(structure);
  const prev = from && scans.get(from.structure);
  const scan = prev ? laneScan(input, from!.n, prev) : laneScan(input);
  scans.set(structure, scan);
  return scan;
}

/**
 * The graph lane of a group of folded agents: named by what groups them (`sub-agents of
 * orchestrator (folded)`, `worker_3#* (folded)`, `other agents (folded)`), its tooltip saying how
 * many agents and events it holds and naming the first few (trace text, controls shown).
 */
function groupLane(l: FoldedLane): GraphLane {
  const g = l.group!;
  const n = (x: number) => x.toLocaleString('en-US');
  const how = g.by === 'parent' ? `spawned by ${plainLabel(l.parent ?? '')}` : g.by === 'prefix' ? `named ${plainLabel(g.prefix ?? '')}…` : 'not grouped otherwise';
  return {
    name: l.name,
    label: plainLabel(`${l.name.replace(/ \(folded\)/, '')} · ${n(g.agents)} agents`, LANE_LABEL_CHARS),
    tip: `${n(g.agents)} agents folded into one lane (${how}), e.g. ${g.examples.map((a) => plainLabel(a, 60)).join(', ')}${g.agents > g.examples.length ? ', …' : ''}`,
    ...(l.parent ? { parent: l.parent } : {}),
    depth: l.depth,
    count: 0, // the caller's count of its events
    rows: 1,
    ...(l.trace === undefined ? {} : { trace: l.trace }),
    folded: { agents: g.agents, by: g.by },
  };
}

/**
 * The node of event `index` of a layout, as {@link buildGraph} lists it; `details` adds its text and fields.
 * @param e the event (by default the layout's: give it with its long content read back from disk when that was set aside).
 */
export function layoutNode(layout: GraphLayout, index: number, details: boolean, e: TraceEvent = layout.events[index]): GraphNode {
  const end = layout.end[index];
  const bar = layout.barOf[index];
  const lane = layout.lane[index];
  return {
    id: nodeKey(index),
    index,
    eventId: e.id,
    type: e.type,
    kind: canonicalType(e.type),
    agent: e.agent,
    ...(layout.laneTraces ? { trace: layout.laneTraces[lane] } : {}),
    lane,
    row: layout.row[index],
    t: e.t,
    tx: layout.tx[index],
    order: layout.order[index],
    ...(end < 0 ? {} : { txEnd: layout.tx[end], orderEnd: layout.order[end], endIndex: end }),
    ...(bar < 0 ? {} : { bar: nodeKey(bar) }),
    ...labels(scopedLabel(e, nodeLabel(e, end >= 0, layout.labelContext(e)), layout.marks.get(index))), // trace text: controls and bidi shown as ⟨U+202E⟩
    ...cuesOf(e, end >= 0 ? layout.events[end] : undefined),
    ...(details ? withCredit(eventDetails(e, layout.timeUnit, markedScope(layout.marks.get(index))), layout, index) : { fields: [] }),
    hasSource: e.source !== undefined,
    credit: layout.credit?.at(index),
    marks: layout.loop[index] === 1 ? ['loop', ...(layout.marks.get(index) ?? [])] : [...(layout.marks.get(index) ?? [])],
  };
}

/**
 * The details' fields with the analysis's estimate for the event, in the words of the hover and the
 * inline mark: `credit (estimate)` `+0.42` / `−0.13` when the trace records an outcome, else
 * `share of the result (estimate)` `50%`; nothing when no analysis ran or the value prints as
 * 0.00 (see creditWorthShowing).
 */
export function withCredit<T extends { fields: [string, string][] }>(details: T, layout: GraphLayout, index: number): T {
  const v = layout.credit?.at(index);
  if (!creditWorthShowing(v)) return details;
  const field: [string, string] = layout.creditSigned === false ? ['share of the result (estimate)', shareWords(v)] : ['credit (estimate)', formatCredit(v, true)];
  return { ...details, fields: [...details.fields, field] };
}

/** Edge `k` of a layout's edges, as {@link buildGraph} lists it. */
export function layoutEdge(edges: LayoutEdges, k: number): GraphEdge {
  const derived = edges.derived[k] === 1;
  return { id: `${derived ? 'link' : 'edge'}${edges.id[k]}`, source: nodeKey(edges.source[k]), target: nodeKey(edges.target[k]), type: edges.types[edges.type[k]], derived };
}

/** The Cytoscape key of the event at an index. */
export function nodeKey(index: number): string {
  return `n${index}`;
}

/** Per analysis, the marks made of it last, with the events and lanes they were made for. */
const marksMade = new WeakMap<Analysis, { events: readonly TraceEvent[]; lane: Int32Array; n: number; loop: Uint8Array; marks: Map<number, Set<string>> }>();

/**
 * The analysis's marks of a layout ({@link analysisMarks}, then {@link markLastStops}). A trace as
 * read after an append shows the analysis of the trace before it: the marks made of that analysis
 * for the trace before it stand (its events and their lanes are the same; the loop column grows by
 * zeros), so an append does not read every loop member again (O(1) instead of O(n + loop members)).
 * The marks returned are shared by the layouts of one analysis: read them, never change them.
 */
function layoutMarks(analysis: Analysis | undefined, events: readonly TraceEvent[], lane: Int32Array): { loop: Uint8Array; marks: Map<number, Set<string>> } {
  const n = events.length;
  const made = analysis && marksMade.get(analysis);
  // (made for every event the analysis read: no mark was left out for an index past the trace's end)
  if (made && n >= made.n && made.n >= analysis.metrics.events && samePrefix(events, made.events, made.n) && sameUpTo(lane, made.lane, made.n)) {
    const loop = made.n === n ? made.loop : appendColumn(made.loop, n);
    marksMade.set(analysis, { events, lane, n, loop, marks: made.marks });
    return { loop, marks: made.marks };
  }
  const { loop, marks } = analysisMarks(analysis, n);
  markLastStops(analysis, events, lane, marks);
  if (analysis) marksMade.set(analysis, { events, lane, n, loop, marks });
  return { loop, marks };
}

/**
 * Marks from the analysis: loop members as flags (a 1M-event trace can have hundreds of thousands),
 * and the other marks (a stop's `stop-ok` / `stop-problem`, the blamed event's `blame`) by event
 * index. A node lists `loop` first, then its other marks in the order found (stops, then blame).
 */
function analysisMarks(analysis: Analysis | undefined, n: number): { loop: Uint8Array; marks: Map<number, Set<string>> } {
  // with room: the next append's trace as read shows these marks, its loop column a longer view of this one (layoutMarks)
  const loop = columnWithRoom(Uint8Array, n);
  const marks = new Map<number, Set<string>>();
  const mark = (i: number, m: string) => marks.set(i, (marks.get(i) ?? new Set()).add(m));
  if (!analysis) return { loop, marks };
  for (const l of analysis.loops) flagAll(loop, l.indices, n);
  // ✓ for a sound stop only (a recorded success); a turn or phase end gets no verdict, only its scope;
  // a failure found on weak evidence is no problem mark (it is an info)
  for (const stop of analysis.stops) {
    if (stop.scope === 'turn' || stop.scope === 'phase') mark(stop.index, `${stop.scope}-end`);
    else if (stop.finding !== 'ok' && stop.confidence !== 'low') mark(stop.index, 'stop-problem');
    else if (isSoundStop(stop)) mark(stop.index, 'stop-ok');
  }
  if (analysis.blame) mark(analysis.blame.index, 'blame');
  return { loop, marks };
}

/**
 * Sets `flags[i]` for each index of `indices` in [0, n). An indexed loop in a plain function: the
 * loops of a followed trace hold 100k+ members at 1M events, and an iterator over them in code V8
 * left unoptimized made a result object per member (1.1 MB of garbage per analysed answer).
 */
function flagAll(flags: Uint8Array, indices: readonly number[], n: number): void {
  for (let j = 0; j < indices.length; j++) {
    const i = indices[j];
    if (i >= 0 && i < n) flags[i] = 1;
  }
}

/**
 * Marks `last-stop` on a turn or phase end that is its lane's last stop (in time, ties in file
 * order): how that agent's part of the run ended. It is drawn as a stop; the turn ends before it
 * are small marks (a rollout of many turns piled up turn-end octagons in one row).
 */
function markLastStops(analysis: Analysis | undefined, events: readonly TraceEvent[], lane: Int32Array, marks: Map<number, Set<string>>): void {
  if (!analysis) return;
  const last = new Map<number, { index: number; t: number }>();
  for (const stop of analysis.stops) {
    if (stop.synthetic || stop.index < 0 || stop.index >= events.length) continue;
    const t = events[stop.index].t;
    const known = last.get(lane[stop.index]);
    if (!known || t > known.t || (t === known.t && stop.index > known.index)) last.set(lane[stop.index], { index: stop.index, t });
  }
  for (const { index } of last.values()) {
    const own = marks.get(index);
    if (own && (own.has('turn-end') || own.has('phase-end'))) own.add('last-stop');
  }
}

/** The analysis findings (most severe first), each saying when its main event happened. */
function graphFindings(analysis: Analysis | undefined, events: readonly TraceEvent[], unit: TimeUnit): GraphFinding[] {
  return analysis ? findingsForGraph(analysis.findings, events, unit) : [];
}

/**
 * Per list of an analysis's findings, the graph's list made of it (and the time unit it was made
 * with). A list is read again for each trace as read after an append that carries that analysis
 * (its findings name the same records there: src/engine/snapshot.ts `appendedSnapshot`), and a list
 * of 300 findings over a million events took 100-150 ms to make (the overlap sets).
 */
const graphFindingLists = new WeakMap<Analysis['findings'], { unit: TimeUnit; list: GraphFinding[] }>();

/**
 * Findings as the graph's findings bar lists them, each saying when its main event happened. Made
 * once per findings list and unit: the same array is returned for the same list, so a later
 * overview that shows the same findings can say so instead of sending them again.
 * @param events the trace's events (file order; the findings' indices point into them, the same
 *   records for every call with one list); @param unit their time unit.
 */
export function findingsForGraph(findings: Analysis['findings'], events: readonly TraceEvent[], unit: TimeUnit): GraphFinding[] {
  const made = graphFindingLists.get(findings);
  if (made?.unit === unit) return made.list;
  const list = graphFindingsOf(findings, events, unit);
  graphFindingLists.set(findings, { unit, list });
  return list;
}

/** {@link findingsForGraph}, made. O(the findings' events). */
function graphFindingsOf(findings: Analysis['findings'], events: readonly TraceEvent[], unit: TimeUnit): GraphFinding[] {
  const overlapping = overlappingWaste(findings, events.length);
  return findings.map((f, k) => {
    const main = events[f.events[0]];
    const when = f.kind === 'stop' && main ? ` (${main.id} at ${formatAt(main.t, unit)})` : '';
    const tokens = f.tokens ?? 0; // what the message says was wasted, never another sum of the same events
    return {
      kind: f.kind,
      severity: f.severity,
      events: f.events,
      inline: plainLabel(f.inline),
      message: plainLabel(`${f.message}${when}`), // names agents and events: controls and bidi shown
      ...(f.mode ? { mode: f.mode } : {}),
      ...(tokens > 0 ? { tokens } : {}),
      ...(overlapping.has(k) ? { overlaps: true } : {}),
    };
  });
}

/**
 * The findings with waste whose events overlap those of a finding with more waste (taken in that
 * order): a 3-event sequence repeated inside a step restated three times would count its tokens
 * twice in the group's total. O(the findings' events), one byte per event of the trace (a Set of the
 * events counted took 50-200 ms per analysis at 1M events, on the host's path to the analysed graph).
 * @param eventCount the trace's number of events (the findings' indices are below it; any other is counted apart).
 */
function overlappingWaste(findings: Analysis['findings'], eventCount: number): Set<number> {
  // the flags of the events counted, in a scratch kept from call to call (made zero again below): a new one of a byte
  // per event at each analysis shown was 1 MB of external memory per append at 1M events
  if (wasteScratch.length < eventCount) wasteScratch = new Uint8Array(eventCount + (eventCount >> 2));
  const counted = wasteScratch;
  const countedApart = new Set<number>();
  const out = new Set<number>();
  const wasteful: number[] = [];
  for (let k = 0; k < findings.length; k++) if ((findings[k].tokens ?? 0) > 0) wasteful.push(k);
  wasteful.sort((a, b) => (findings[b].tokens ?? 0) - (findings[a].tokens ?? 0) || a - b);
  for (const k of wasteful) if (countEvents(findings[k].events, counted, eventCount, countedApart)) out.add(k);
  for (const k of wasteful) clearEvents(findings[k].events, counted, eventCount);
  return out;
}

/**
 * True when one of `events` is flagged in `counted` (an index outside [0, eventCount) in `apart`)
 * before this call; then flags them all (an event twice in one finding is no overlap). Plain
 * loops, not closures per finding: a followed trace's loops hold 100k+ events at 1M, and closures
 * V8 left unoptimized boxed each index read (6.6 MB of garbage per analysed answer).
 */
function countEvents(events: readonly number[], counted: Uint8Array, eventCount: number, apart: Set<number>): boolean {
  let met = false;
  for (let j = 0; j < events.length && !met; j++) {
    const i = events[j];
    met = i >>> 0 === i && i < eventCount ? counted[i] === 1 : apart.has(i);
  }
  for (let j = 0; j < events.length; j++) {
    const i = events[j];
    if (i >>> 0 === i && i < eventCount) counted[i] = 1;
    else apart.add(i);
  }
  return met;
}

/** Makes the flags {@link countEvents} set for `events` zero again. */
function clearEvents(events: readonly number[], counted: Uint8Array, eventCount: number): void {
  for (let j = 0; j < events.length; j++) {
    const i = events[j];
    if (i >>> 0 === i && i < eventCount) counted[i] = 0;
  }
}

/** {@link overlappingWaste}'s flags, all zero between calls. */
let wasteScratch = new Uint8Array(0);

/** What the analysis says a stop ended, from its marks: `turn`, `phase`, or undefined (a run's stop, or no stop). */
export function markedScope(marks: ReadonlySet<string> | undefined): 'turn' | 'phase' | undefined {
  return marks?.has('turn-end') ? 'turn' : marks?.has('phase-end') ? 'phase' : undefined;
}

/** A stop's label with what it ends: `turn ended: handed back`, `phase ended: max turns` (a run's stop keeps `stop: …`; words of src/shared/stop-words.ts). */
function scopedLabel(e: TraceEvent, label: string, marks: Set<string> | undefined): string {
  const scope = markedScope(marks);
  if (!scope || canonicalType(e.type) !== 'stop') return label;
  return plainLabel(`${ENDED_WORDS[scope]}: ${stopReasonWords(scope, e.reason ?? 'unknown')}`, LABEL_CHARS);
}

/**
 * A node's label with its content (src/engine/event-labels.ts): a tool bar is its tool and key
 * argument (`Bash: npm test`), a message its first words, a spawn names the lane it starts.
 * One line, controls and bidi shown as `⟨U+202E⟩`.
 */
export function nodeLabel(e: TraceEvent, bar: boolean, context?: LabelContext): string {
  return eventLabel(e, bar, context);
}

/** A node's `label` and, when it has a shorter one to fall back on where labels collide, its `short` (see shortLabel). */
function labels(label: string): { label: string; short?: string } {
  const plain = plainLabel(label);
  const short = shortLabel(plain);
  return short === undefined ? { label: plain } : { label: plain, short };
}

/** The node's cues (docs/model.md kinds and states), when it has any; a tool bar's also says its result failed (the result is drawn in the bar). */
function cuesOf(e: TraceEvent, result?: TraceEvent): { cues?: string[] } {
  const cues = eventCues(e);
  if (result && !cues.includes('failed') && recordsFailure(result)) cues.unshift('failed');
  return cues.length ? { cues } : {};
}

/**
 * The details pane's text of an event: up to 2,000 characters of its content as it is (the raw
 * content view; the webview shows it as text) and the whole length when cut, and its fields as
 * display strings with control and bidi characters shown as `⟨U+202E⟩`, each figure with its unit:
 * `t` in seconds (from a minute on as the player's clock says it, `41 min 48 s (2507.93 s)`), or `step` when `unit` is steps; `tokens` the event's own (`1 output`), `model call
 * tokens` its call's by kind; a stop's reason in words for what it ended (`scope`: the analysis's,
 * else the event's own `scope`).
 */
export function eventDetails(e: TraceEvent, unit: TimeUnit = 'seconds', scope?: string): { text?: string; textLength?: number; fields: [string, string][] } {
  return {
    text: e.content === undefined ? e.content_ref : truncate(e.content),
    ...(e.content !== undefined && e.content.length > TEXT_LIMIT ? { textLength: e.content.length } : {}),
    fields: nodeFields(e, unit, scope ?? (e as { scope?: string }).scope),
  };
}

function nodeFields(e: TraceEvent, unit: TimeUnit, scope: string | undefined): [string, string][] {
  const out: [string, string][] = [
    ['id', e.id],
    ['type', e.type],
    ...eventCues(e).map((c): [string, string] => ['kind', describeCue(c)]),
    ['agent', e.agent],
    // as the player's clock says it (`t = 41 min 48 s`), the recorded seconds beside it
    unit === 'steps' ? ['step', String(e.t)] : ['t', Math.abs(e.t) >= 60 && Math.abs(e.t) < 1e7 ? `${formatDuration(e.t)} (${e.t} s)` : `${e.t} s`],
  ];
  const add = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '') out.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
  };
  add('role', e.role);
  add('from', e.from);
  add('to', e.to);
  add('tool', e.tool);
  // in words, with the recorded value when they differ (a turn end's task_complete is a hand-back, not a claim)
  add('reason', e.reason === undefined ? undefined : reasonField(scope, e.reason));
  // a failure the trace records (a span's error status, is_error, an exit code): shown, not left to the content
  const failure = e as { error?: unknown; is_error?: unknown; exit_code?: unknown };
  add('error', failure.error === true ? 'yes' : failure.error);
  add('failed', failure.is_error === true && failure.error === undefined ? 'yes (is_error)' : undefined);
  add('exit code', typeof failure.exit_code === 'number' ? failure.exit_code : undefined);
  add('detail', e.detail);
  add('decided by', e.decided_by);
  add('value', e.value);
  add('channel', e.channel);
  add('target', e.target);
  add('clock skew', typeof e.clock_skew_s === 'number' ? `${Math.round(e.clock_skew_s * 1e4) / 10} ms (recorded at t=${e.recorded_t ?? '?'} s)` : undefined);
  add('trace', e.trace_id);
  const usage = usageOf(e);
  add('tokens', usage?.output !== undefined ? formatUsage({ output: usage.output, reasoning: usage.reasoning }) : e.tokens);
  add('model call tokens', usage ? formatUsage(usage) || undefined : undefined);
  add('cost', e.cost);
  add('duration', e.duration_s === undefined ? undefined : formatSpan(e.duration_s, unit));
  add('credit', e.credit);
  add('source', e.source ? `${e.source.path}${e.source.line ? `:${e.source.line}` : ''}` : undefined);
  return out.map(([k, v]) => [k, visibleControls(v)]);
}

function truncate(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}… (${text.length.toLocaleString('en-US')} characters: Show Whole Content shows all)` : text;
}
