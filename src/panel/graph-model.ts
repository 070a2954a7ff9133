/**
 * Turns a loaded trace into the graph the webview draws: one entry per event (a tool call and its
 * result share one bar), the trace's edges plus derived spawn, message and return links, lanes in
 * spawn-tree order and a time axis with idle gaps compressed (src/panel/layout.ts). The webview
 * scales the axis to the panel; nothing here costs more than O(n log n) for n events.
 * Pure: imports nothing from `vscode`.
 */
import type { Analysis } from '../analysis';
import type { GraphEdge, GraphFinding, GraphLane, GraphModel, GraphNode } from '../protocol';
import type { LoadedTrace } from '../trace/model';
import { canonicalType, type TraceEvent } from '../trace/schema';
import { describeCue, eventCues } from './cues';
import { laneGroups, pairToolCalls, timeAxis, timeToAxis } from './layout';

const TEXT_LIMIT = 2000;

/**
 * Builds the {@link GraphModel} of a trace, drawing at most `maxEvents` events (the first in file order);
 * `options.details: false` leaves out each node's text and fields (the windowed graph asks for
 * them per event, see src/session/graph-window.ts).
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
  const details = options.details ?? true;
  const marks = analysisMarks(analysis);
  const edges = loaded.trace.edges ?? [];
  // Cytoscape stays interactive up to some ten thousand nodes: beyond the limit, draw the first events.
  const events = loaded.trace.events.length > maxEvents ? loaded.trace.events.slice(0, maxEvents) : loaded.trace.events;
  const key = new Map(events.map((e, i) => [e, nodeKey(i)]));
  // One lane group per trace when the file holds several: lanes keyed by trace and agent.
  const { lanes, keyOf, traces } = laneGroups(events, edges);
  const laneIndex = new Map(lanes.map((l, i) => [l.key, i]));
  const axis = timeAxis(events.map((e) => e.t));
  const order = new Array<number>(events.length);
  events
    .map((_, i) => i)
    .sort((a, b) => events[a].t - events[b].t || a - b)
    .forEach((i, rank) => (order[i] = rank));
  const bars = pairToolCalls(events, edges);
  const barOf = new Map<number, number>();
  for (const [call, result] of bars) barOf.set(result, call);

  const nodes: GraphNode[] = events.map((e, index) => {
    const end = bars.get(index);
    const bar = barOf.get(index);
    return {
      id: nodeKey(index),
      index,
      eventId: e.id,
      type: e.type,
      kind: canonicalType(e.type),
      agent: e.agent,
      ...(traces.length > 1 ? { trace: lanes[laneIndex.get(keyOf(e)) ?? 0].trace } : {}),
      lane: laneIndex.get(keyOf(e)) ?? 0,
      t: e.t,
      tx: timeToAxis(axis, e.t),
      order: order[index],
      ...(end === undefined ? {} : { txEnd: timeToAxis(axis, events[end].t), orderEnd: order[end], endIndex: end }),
      ...(bar === undefined ? {} : { bar: nodeKey(bar) }),
      label: nodeLabel(e, end !== undefined),
      ...cuesOf(e),
      ...(details ? eventDetails(e) : { fields: [] }),
      hasSource: e.source !== undefined,
      credit: analysis?.credit.by_index[index],
      marks: [...(marks.get(index) ?? [])],
    };
  });
  /** The node an event is drawn in: its own, or its call's bar. */
  const drawn = (e: TraceEvent) => {
    const i = nodes[Number(key.get(e)!.slice(1))];
    return i.bar ?? i.id;
  };

  const graphEdges: GraphEdge[] = [];
  const seen = new Set<string>();
  // Edges name event ids; a repeated id stands for its first event (of the first trace holding it).
  const byId = new Map<string, TraceEvent>();
  for (const e of events) if (!byId.has(e.id)) byId.set(e.id, e);
  edges.forEach((edge, i) => {
    const src = byId.get(edge.src);
    const dst = byId.get(edge.dst);
    if (!src || !dst) return;
    seen.add(`${key.get(src)}>lane:${keyOf(dst)}`);
    const [a, b] = [drawn(src), drawn(dst)];
    if (a === b || seen.has(`${a}>${b}`)) return;
    seen.add(`${a}>${b}`);
    graphEdges.push({ id: `edge${i}`, source: a, target: b, type: edge.type, derived: false });
  });
  const lanesByAgent = eventsByLane(events, keyOf);
  events.forEach((e) => {
    const kind = canonicalType(e.type);
    const linkType = kind === 'spawn' ? 'spawn' : kind === 'return' ? 'return' : kind === 'delegate' ? 'delegate' : kind === 'message' ? 'message' : undefined;
    const toLane = e.to === undefined ? undefined : keyOf({ ...e, agent: e.to });
    if (!linkType || !e.to || toLane === undefined || e.to === e.agent || seen.has(`${key.get(e)}>lane:${toLane}`)) return;
    const target = firstAtOrAfter(lanesByAgent.get(toLane), e.t, e);
    if (!target) return;
    const [a, b] = [drawn(e), drawn(target)];
    if (a === b || seen.has(`${a}>${b}`)) return;
    seen.add(`${a}>${b}`);
    graphEdges.push({ id: `link${graphEdges.length}`, source: a, target: b, type: linkType, derived: true });
  });

  const graphLanes: GraphLane[] = lanes.map((l) => ({ name: l.name, ...(l.parent ? { parent: l.parent } : {}), depth: l.depth, count: lanesByAgent.get(l.key)?.length ?? 0, ...(l.trace === undefined ? {} : { trace: l.trace }), ...(l.name === l.agent ? {} : { agent: l.agent }) }));
  return {
    title,
    format: loaded.format,
    totalEvents: loaded.trace.events.length,
    ...(traces.length > 1 ? { traces: traces.map((id) => ({ id, events: nodes.filter((n) => n.trace === id).length, lanes: graphLanes.filter((l) => l.trace === id).length })) } : {}),
    lanes: graphLanes,
    nodes,
    axis,
    edges: graphEdges,
    findings: graphFindings(analysis, events),
    problems: {
      errors: loaded.problems.filter((p) => p.severity === 'error').length,
      warnings: loaded.problems.filter((p) => p.severity === 'warning').length,
    },
  };
}

/** The Cytoscape key of the event at an index. */
export function nodeKey(index: number): string {
  return `n${index}`;
}

/** Event index -> marks from the analysis: loop members, the blamed event, stops with a failure mode. */
function analysisMarks(analysis: Analysis | undefined): Map<number, Set<string>> {
  const marks = new Map<number, Set<string>>();
  const mark = (i: number, m: string) => marks.set(i, (marks.get(i) ?? new Set()).add(m));
  if (!analysis) return marks;
  for (const loop of analysis.loops) for (const i of loop.indices) mark(i, 'loop');
  for (const stop of analysis.stops) mark(stop.index, stop.finding === 'ok' ? 'stop-ok' : 'stop-problem');
  if (analysis.blame) mark(analysis.blame.index, 'blame');
  return marks;
}


/** The analysis findings (most severe first), each saying when its main event happened. */
function graphFindings(analysis: Analysis | undefined, events: readonly TraceEvent[]): GraphFinding[] {
  if (!analysis) return [];
  return analysis.findings.map((f) => {
    const main = events[f.events[0]];
    const when = f.kind === 'stop' && main ? ` (${main.id} at t=${main.t} s)` : '';
    const tokens = f.events.reduce((sum, i) => sum + (typeof events[i]?.tokens === 'number' ? (events[i].tokens as number) : 0), 0);
    return {
      kind: f.kind,
      severity: f.severity,
      events: f.events,
      inline: f.inline,
      message: `${f.message}${when}`,
      ...(f.mode ? { mode: f.mode } : {}),
      ...(tokens > 0 ? { tokens } : {}),
    };
  });
}

/** Events of each lane (by lane key), in time order. */
function eventsByLane(events: readonly TraceEvent[], keyOf: (e: TraceEvent) => string): Map<string, TraceEvent[]> {
  const out = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const k = keyOf(e);
    const list = out.get(k) ?? [];
    list.push(e);
    out.set(k, list);
  }
  for (const list of out.values()) list.sort((a, b) => a.t - b.t);
  return out;
}

/** The first event of a time-sorted lane at or after `t` (by binary search), other than `self`. */
function firstAtOrAfter(lane: TraceEvent[] | undefined, t: number, self: TraceEvent): TraceEvent | undefined {
  if (!lane) return undefined;
  let lo = 0;
  let hi = lane.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lane[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  while (lo < lane.length && lane[lo] === self) lo++;
  return lane[lo];
}

/** A short label: a tool bar is its tool's name; arrows name their target lane. */
function nodeLabel(e: TraceEvent, bar: boolean): string {
  const kind = canonicalType(e.type);
  if (kind === 'stop') return `stop: ${e.reason ?? 'unknown'}`;
  if (kind === 'reward') return `reward ${e.value ?? ''}`.trim();
  if (bar && e.tool) return e.tool;
  if ((kind === 'tool_call' || kind === 'tool_result') && e.tool) return `${kind === 'tool_result' ? 'result' : 'call'} ${e.tool}`;
  if (kind === 'spawn' && e.to) return `spawn ${e.to}`;
  if (e.to) return `${e.type} → ${e.to}`;
  return e.type.replace(/_/g, ' ');
}

/** The node's cues (docs/model.md kinds and states), when it has any. */
function cuesOf(e: TraceEvent): { cues?: string[] } {
  const cues = eventCues(e);
  return cues.length ? { cues } : {};
}

/** The details pane's text of an event: up to 2,000 characters of its content (and the whole length when cut) and its fields as display strings. */
export function eventDetails(e: TraceEvent): { text?: string; textLength?: number; fields: [string, string][] } {
  return {
    text: e.content === undefined ? e.content_ref : truncate(e.content),
    ...(e.content !== undefined && e.content.length > TEXT_LIMIT ? { textLength: e.content.length } : {}),
    fields: nodeFields(e),
  };
}

function nodeFields(e: TraceEvent): [string, string][] {
  const out: [string, string][] = [
    ['id', e.id],
    ['type', e.type],
    ...eventCues(e).map((c): [string, string] => ['kind', describeCue(c)]),
    ['agent', e.agent],
    ['t', `${e.t} s`],
  ];
  const add = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '') out.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
  };
  add('role', e.role);
  add('from', e.from);
  add('to', e.to);
  add('tool', e.tool);
  add('reason', e.reason);
  add('detail', e.detail);
  add('decided by', e.decided_by);
  add('value', e.value);
  add('channel', e.channel);
  add('target', e.target);
  add('clock skew', typeof e.clock_skew_s === 'number' ? `${Math.round(e.clock_skew_s * 1e4) / 10} ms (recorded at t=${e.recorded_t ?? '?'} s)` : undefined);
  add('trace', e.trace_id);
  add('tokens', e.tokens);
  add('cost', e.cost);
  add('duration', e.duration_s === undefined ? undefined : `${e.duration_s} s`);
  add('credit', e.credit);
  add('source', e.source ? `${e.source.path}${e.source.line ? `:${e.source.line}` : ''}` : undefined);
  return out;
}

function truncate(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}… (${text.length.toLocaleString('en-US')} characters: Show Whole Content shows all)` : text;
}
