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
  const laneIndex = new Map<string, number>();
  for (const e of events) if (!laneIndex.has(e.agent)) laneIndex.set(e.agent, laneIndex.size);
  const times = [...new Set(events.map((e) => e.t))].sort((a, b) => a - b);
  const timeRank = new Map(times.map((t, i) => [t, i]));

  // Several events at the same time in one lane would overlap: stack them slightly.
  const occupied = new Map<string, number>();
  const nodes: GraphNode[] = events.map((e) => {
    const lane = laneIndex.get(e.agent)!;
    const slot = `${lane}:${e.t}`;
    const k = occupied.get(slot) ?? 0;
    occupied.set(slot, k + 1);
    return {
      id: e.id,
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
      credit: analysis?.credit.events[e.id],
      marks: [...(marks.get(e.id) ?? [])],
    };
  });

  const graphEdges: GraphEdge[] = [];
  const seen = new Set<string>();
  const agentOf = new Map(events.map((e) => [e.id, e.agent]));
  edges.forEach((edge, i) => {
    if (!agentOf.has(edge.src) || !agentOf.has(edge.dst)) return;
    seen.add(`${edge.src}>${edge.dst}`);
    seen.add(`${edge.src}>lane:${agentOf.get(edge.dst)}`);
    graphEdges.push({ id: `edge${i}`, source: edge.src, target: edge.dst, type: edge.type, derived: false });
  });
  const lanesByAgent = eventsByAgent(events);
  events.forEach((e) => {
    const kind = canonicalType(e.type);
    const linkType = kind === 'spawn' ? 'spawn' : kind === 'return' ? 'return' : kind === 'delegate' || kind === 'message' ? 'message' : undefined;
    if (!linkType || !e.to || e.to === e.agent || seen.has(`${e.id}>lane:${e.to}`)) return;
    const target = firstAtOrAfter(lanesByAgent.get(e.to), e.t, e.id);
    if (!target || seen.has(`${e.id}>${target.id}`)) return;
    seen.add(`${e.id}>${target.id}`);
    graphEdges.push({ id: `link${graphEdges.length}`, source: e.id, target: target.id, type: linkType, derived: true });
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

/** Event id -> marks from the analysis: loop members, the blamed event, stops with a failure mode. */
function analysisMarks(analysis: Analysis | undefined): Map<string, Set<string>> {
  const marks = new Map<string, Set<string>>();
  const mark = (id: string, m: string) => marks.set(id, (marks.get(id) ?? new Set()).add(m));
  if (!analysis) return marks;
  for (const loop of analysis.loops) for (const id of loop.events) mark(id, 'loop');
  for (const stop of analysis.stops) if (stop.finding !== 'ok') mark(stop.event, 'stop-problem');
  if (analysis.blame) mark(analysis.blame.event, 'blame');
  return marks;
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** The analysis findings, most severe first. */
function graphFindings(analysis: Analysis | undefined, events: readonly TraceEvent[]): GraphFinding[] {
  if (!analysis) return [];
  const listed = new Set(analysis.findings.filter((f) => f.kind === 'stop').map((f) => f.events[0]));
  // Every stop is listed, also a sound one: "when and why did it stop" is the first question.
  const soundStops: GraphFinding[] = analysis.stops
    .filter((s) => !listed.has(s.event))
    .map((s) => ({ kind: 'stop', severity: 'info', events: [s.event], message: s.message }));
  const at = new Map(events.map((e) => [e.id, e.t]));
  // Say when: "why did it stop" comes with "when".
  const when = (f: GraphFinding): GraphFinding =>
    f.kind === 'stop' && at.has(f.events[0]) ? { ...f, message: `${f.message} (${f.events[0]} at t=${at.get(f.events[0])} s)` } : f;
  return [...analysis.findings.map((f) => ({ kind: f.kind, severity: f.severity, events: f.events, message: f.message })), ...soundStops].map(when).sort(
    (a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity],
  );
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
function firstAtOrAfter(lane: TraceEvent[] | undefined, t: number, self: string): TraceEvent | undefined {
  if (!lane) return undefined;
  let lo = 0;
  let hi = lane.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lane[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  while (lo < lane.length && lane[lo].id === self) lo++;
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
