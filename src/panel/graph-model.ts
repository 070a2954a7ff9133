/**
 * Turns a loaded trace into the graph the webview draws: one node per event, the trace's edges plus
 * derived spawn, message and return links, and a swimlane layout (x = time order, y = agent lane)
 * computed directly, without a force layout, so it costs O(n log n) for n events.
 * Pure: imports nothing from `vscode`.
 */
import type { Analysis } from '../analysis';
import type { GraphEdge, GraphFinding, GraphLane, GraphModel, GraphNode } from '../protocol';
import type { LoadedTrace } from '../trace/model';
import { canonicalType, type TraceEvent } from '../trace/schema';

/** Horizontal distance between successive distinct times, and vertical distance between lanes (graph units). */
export const X_STEP = 90;
export const LANE_HEIGHT = 90;
const TEXT_LIMIT = 2000;

/**
 * Builds the {@link GraphModel} of a trace, drawing at most `maxEvents` events (the first in file order).
 * Lanes are agents in order of first appearance. x is the rank of the event's time among the
 * trace's distinct times (so long idle gaps do not stretch the picture), y the lane's position.
 * Derived links (only when the trace has no edge from that event into the target agent's lane):
 * - spawn: a spawn event -> the first event of the spawned agent (`to`) at or after it;
 * - message: a delegate/message with `to` -> the next event of that agent at or after it;
 * - return: a return with `to` -> the next event of that agent at or after it.
 */
export function buildGraph(loaded: LoadedTrace, title: string, maxEvents = Infinity, analysis?: Analysis): GraphModel {
  const marks = analysisMarks(analysis);
  const { edges } = loaded.trace;
  // Cytoscape stays interactive up to some ten thousand nodes: beyond the limit, draw the first events.
  const events = loaded.trace.events.length > maxEvents ? loaded.trace.events.slice(0, maxEvents) : loaded.trace.events;
  const key = new Map(events.map((e, i) => [e, nodeKey(i)]));
  const laneIndex = new Map<string, number>();
  for (const e of events) if (!laneIndex.has(e.agent)) laneIndex.set(e.agent, laneIndex.size);
  const times = [...new Set(events.map((e) => e.t))].sort((a, b) => a - b);
  const timeRank = new Map(times.map((t, i) => [t, i]));

  // Several events at the same time in one lane would overlap: stack them slightly.
  const occupied = new Map<string, number>();
  const nodes: GraphNode[] = events.map((e, index) => {
    const lane = laneIndex.get(e.agent)!;
    const slot = `${lane}:${e.t}`;
    const k = occupied.get(slot) ?? 0;
    occupied.set(slot, k + 1);
    return {
      id: nodeKey(index),
      index,
      eventId: e.id,
      type: e.type,
      kind: canonicalType(e.type),
      agent: e.agent,
      t: e.t,
      x: timeRank.get(e.t)! * X_STEP + k * 12,
      y: lane * LANE_HEIGHT + k * 14,
      label: nodeLabel(e),
      text: e.content === undefined ? e.content_ref : truncate(e.content),
      fields: nodeFields(e),
      hasSource: e.source !== undefined,
      credit: analysis?.credit.by_index[index],
      marks: [...(marks.get(index) ?? [])],
    };
  });

  const graphEdges: GraphEdge[] = [];
  const seen = new Set<string>();
  // Edges name event ids; a repeated id stands for its first event.
  const byId = new Map<string, TraceEvent>();
  for (const e of events) if (!byId.has(e.id)) byId.set(e.id, e);
  edges.forEach((edge, i) => {
    const src = byId.get(edge.src);
    const dst = byId.get(edge.dst);
    if (!src || !dst) return;
    seen.add(`${key.get(src)}>${key.get(dst)}`);
    seen.add(`${key.get(src)}>lane:${dst.agent}`);
    graphEdges.push({ id: `edge${i}`, source: key.get(src)!, target: key.get(dst)!, type: edge.type, derived: false });
  });
  const lanesByAgent = eventsByAgent(events);
  events.forEach((e) => {
    const kind = canonicalType(e.type);
    const linkType = kind === 'spawn' ? 'spawn' : kind === 'return' ? 'return' : kind === 'delegate' || kind === 'message' ? 'message' : undefined;
    if (!linkType || !e.to || e.to === e.agent || seen.has(`${key.get(e)}>lane:${e.to}`)) return;
    const target = firstAtOrAfter(lanesByAgent.get(e.to), e.t, e);
    if (!target || seen.has(`${key.get(e)}>${key.get(target)}`)) return;
    seen.add(`${key.get(e)}>${key.get(target)}`);
    graphEdges.push({ id: `link${graphEdges.length}`, source: key.get(e)!, target: key.get(target)!, type: linkType, derived: true });
  });

  const lanes: GraphLane[] = [...laneIndex].map(([name, i]) => ({ name, y: i * LANE_HEIGHT, count: lanesByAgent.get(name)?.length ?? 0 }));
  return {
    title,
    format: loaded.format,
    totalEvents: loaded.trace.events.length,
    lanes,
    nodes,
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
  for (const stop of analysis.stops) if (stop.finding !== 'ok') mark(stop.index, 'stop-problem');
  if (analysis.blame) mark(analysis.blame.index, 'blame');
  return marks;
}


/** The analysis findings (most severe first), each saying when its main event happened. */
function graphFindings(analysis: Analysis | undefined, events: readonly TraceEvent[]): GraphFinding[] {
  if (!analysis) return [];
  return analysis.findings.map((f) => {
    const main = events[f.events[0]];
    const when = f.kind === 'stop' && main ? ` (${main.id} at t=${main.t} s)` : '';
    return { kind: f.kind, severity: f.severity, events: f.events, inline: f.inline, message: `${f.message}${when}` };
  });
}

function eventsByAgent(events: readonly TraceEvent[]): Map<string, TraceEvent[]> {
  const out = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const list = out.get(e.agent) ?? [];
    list.push(e);
    out.set(e.agent, list);
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

function nodeLabel(e: TraceEvent): string {
  const kind = canonicalType(e.type);
  if (kind === 'stop') return `stop: ${e.reason ?? 'unknown'}`;
  if (kind === 'reward') return `reward ${e.value ?? ''}`.trim();
  if ((kind === 'tool_call' || kind === 'tool_result') && e.tool) return `${e.type} ${e.tool}`;
  if (e.to) return `${e.type} → ${e.to}`;
  return e.type;
}

function nodeFields(e: TraceEvent): [string, string][] {
  const out: [string, string][] = [
    ['id', e.id],
    ['type', e.type],
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
  add('tokens', e.tokens);
  add('cost', e.cost);
  add('duration', e.duration_s === undefined ? undefined : `${e.duration_s} s`);
  add('credit', e.credit);
  add('source', e.source ? `${e.source.path}${e.source.line ? `:${e.source.line}` : ''}` : undefined);
  return out;
}

function truncate(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}… (${text.length} characters)` : text;
}
