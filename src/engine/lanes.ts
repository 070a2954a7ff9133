/**
 * The lanes of a trace graph, computed once in the engine: lanes ordered as a spawn tree
 * (sub-agents under their spawner) and tool calls paired with their results (one bar each). The
 * time axis they are drawn on is shared/axis.ts. Nothing here knows pixels.
 */
import { canonicalType } from '../trace/event-types';
import { IdTable } from '../trace/id-table';
import type { TraceEdge, TraceEvent } from '../trace/schema';

/** A lane in spawn-tree order: its agent, who spawned it (if another lane), and its depth. */
export interface LaneOrder {
  name: string;
  parent?: string;
  depth: number;
}

/**
 * Lanes ordered as a spawn tree: each agent's spawner is the agent of the first spawn (or, failing
 * that, delegate) event naming it in `to`, or the source of the first spawn edge into it; roots in
 * order of first appearance, each followed by the agents it spawned (depth first, in order of
 * their first appearance).
 */
export function laneTree(events: readonly TraceEvent[], edges: readonly TraceEdge[] = []): LaneOrder[] {
  const first = new Map<string, number>();
  events.forEach((e, i) => {
    if (!first.has(e.agent)) first.set(e.agent, i);
  });
  const parent = new Map<string, string>();
  /** Agents that are some agent's parent: only those can close a cycle (no walk up a 1M-deep chain per claim). */
  const parents = new Set<string>();
  const claim = (child: string | undefined, by: string) => {
    if (!child || child === by || !first.has(child) || parent.has(child)) return;
    if (parents.has(child) && isAncestor(parent, child, by)) return;
    parent.set(child, by);
    parents.add(by);
  };
  for (const e of events) if (canonicalType(e.type) === 'spawn') claim(e.to, e.agent);
  let byId: Map<string, TraceEvent> | undefined; // only for spawn edges (a large trace has many edges, few spawns)
  for (const edge of edges) {
    if (edge.type !== 'spawn') continue;
    if (!byId) {
      byId = new Map();
      for (const e of events) if (!byId.has(e.id)) byId.set(e.id, e);
    }
    const src = byId.get(edge.src);
    const dst = byId.get(edge.dst);
    if (src && dst) claim(dst.agent, src.agent);
  }
  for (const e of events) if (canonicalType(e.type) === 'delegate') claim(e.to, e.agent);
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const name of first.keys()) {
    const p = parent.get(name);
    if (p === undefined) roots.push(name);
    else {
      const list = children.get(p);
      if (list) list.push(name);
      else children.set(p, [name]);
    }
  }
  // depth first without recursion (a spawn chain can be a million agents deep)
  const out: LaneOrder[] = [];
  const stack: [string, number][] = [];
  for (let r = roots.length - 1; r >= 0; r--) stack.push([roots[r], 0]);
  while (stack.length) {
    const [name, depth] = stack.pop()!;
    out.push({ name, parent: parent.get(name), depth });
    const own = children.get(name);
    if (own) for (let c = own.length - 1; c >= 0; c--) stack.push([own[c], depth + 1]);
  }
  return out;
}

/** A lane of a file that may hold several traces: its agent, its trace (several only) and its unique key. */
export interface GroupedLane extends LaneOrder {
  /** Unique lane key: the agent's name, or `trace NUL agent` when the file holds several traces. */
  key: string;
  agent: string;
  trace?: string;
}

/**
 * Lanes of a file, one group per trace (docs/model.md "Several traces in one file"): events are
 * grouped by `trace_id` (events without one join the first trace); within a group lanes are a
 * {@link laneTree} of its events and the edges between them. A file with one trace gives exactly
 * `laneTree`'s lanes. `name` is the agent, with ` · <trace id, 8 characters>` added when the same
 * agent name is in several traces, so every lane's name is unique. `keyOf` gives an event's lane key.
 */
export function laneGroups(events: readonly TraceEvent[], edges: readonly TraceEdge[] = []): { lanes: GroupedLane[]; keyOf: (e: TraceEvent) => string; traces: string[] } {
  const traces: string[] = [];
  const byTrace = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (typeof e.trace_id !== 'string' || byTrace.has(e.trace_id)) continue;
    byTrace.set(e.trace_id, []);
    traces.push(e.trace_id);
  }
  if (traces.length < 2) return { lanes: laneTree(events, edges).map((l) => ({ name: l.name, parent: l.parent, depth: l.depth, key: l.name, agent: l.name })), keyOf: (e) => e.agent, traces: [] };
  const traceOf = (e: TraceEvent) => (typeof e.trace_id === 'string' ? e.trace_id : traces[0]);
  for (const e of events) byTrace.get(traceOf(e))!.push(e);
  const keyOf = (e: TraceEvent) => `${traceOf(e)}\u0000${e.agent}`;
  const groups = traces.map((trace) => {
    const own = byTrace.get(trace)!;
    const ids = new Set(own.map((e) => e.id));
    return { trace, lanes: laneTree(own, edges.filter((x) => ids.has(x.src) && ids.has(x.dst))) };
  });
  const tracesOfAgent = new Map<string, number>();
  for (const g of groups) for (const l of g.lanes) tracesOfAgent.set(l.name, (tracesOfAgent.get(l.name) ?? 0) + 1);
  const shown = (agent: string, trace: string) => ((tracesOfAgent.get(agent) ?? 0) > 1 ? `${agent} · ${trace.slice(0, 8)}` : agent);
  const lanes = groups.flatMap((g) =>
    g.lanes.map((l) => ({ name: shown(l.name, g.trace), ...(l.parent ? { parent: shown(l.parent, g.trace) } : {}), depth: l.depth, key: `${g.trace}\u0000${l.name}`, agent: l.name, trace: g.trace })),
  );
  return { lanes, keyOf, traces };
}

/** True when `a` is `b` or one of `b`'s ancestors (so making `b` the parent of `a` would close a cycle). */
function isAncestor(parent: Map<string, string>, a: string, b: string): boolean {
  for (let x: string | undefined = b, n = 0; x !== undefined && n < 10_000; x = parent.get(x), n++) if (x === a) return true;
  return false;
}

/**
 * Tool call -> its result (indices), for drawing a call and its result as one bar: a
 * `tool_dependency` edge from the call to a result, else a result whose `parent` or `causes` names
 * the call, else the next unpaired result of the same tool in the same lane (before the lane's
 * next call of that tool). A result pairs with one call at most, and only at or after it in time.
 * Pairs in the order they were found (see {@link toolCallPairs}).
 */
export function pairToolCalls(events: readonly TraceEvent[], edges: readonly TraceEdge[] = []): Map<number, number> {
  const { end, found } = toolCallPairs(events, edges);
  return new Map(Array.from(found, (call) => [call, end[call]]));
}

/**
 * {@link pairToolCalls} in typed arrays, for traces of any size: per event the index of its
 * result when it is a paired tool call (else -1), and the calls in the order they were paired.
 * @param known what the caller already has: each id's first index ({@link firstIndexOfIds}) and
 *   the time order ({@link byTimeOrder}), so a large trace builds them once.
 * `open`: per lane and tool (`agent NUL tool`), the call still waiting for the next result after
 * the last event in time order (what pairing appended events goes on from).
 */
export function toolCallPairs(events: readonly TraceEvent[], edges: readonly TraceEdge[] = [], known: { firstIndex?: IdTable; byTime?: Int32Array } = {}): { end: Int32Array; found: Int32Array; open: Map<string, number> } {
  const n = events.length;
  const end = new Int32Array(n).fill(-1);
  const taken = new Uint8Array(n);
  const found: number[] = [];
  const firstIndex = known.firstIndex ?? firstIndexOfIds(events);
  const kind = (i: number) => canonicalType(events[i].type);
  const pair = (call: number | undefined, result: number | undefined) => {
    if (call === undefined || result === undefined || end[call] >= 0 || taken[result]) return;
    if (kind(call) !== 'tool_call' || kind(result) !== 'tool_result' || events[result].t < events[call].t) return;
    end[call] = result;
    taken[result] = 1;
    found.push(call);
  };
  for (const edge of edges) if (edge.type === 'tool_dependency') pair(firstIndex.get(edge.src), firstIndex.get(edge.dst));
  events.forEach((e, i) => {
    if (kind(i) !== 'tool_result') return;
    if (e.parent !== undefined) pair(firstIndex.get(e.parent), i);
    for (const ref of e.causes ?? []) if (ref !== undefined) pair(firstIndex.get(ref), i);
  });
  // Same lane, same tool, the next result in time order.
  const open = new Map<string, number>();
  const order = known.byTime ?? byTimeOrder(events);
  for (const i of order) {
    const e = events[i];
    const k = kind(i);
    if (k !== 'tool_call' && (k !== 'tool_result' || taken[i])) continue;
    const key = `${e.agent}\u0000${e.tool ?? ''}`;
    if (k === 'tool_call') {
      if (end[i] < 0) open.set(key, i);
      else open.delete(key);
    } else {
      const call = open.get(key);
      if (call !== undefined) {
        pair(call, i);
        open.delete(key);
      }
    }
  }
  return { end, found: Int32Array.from(found), open };
}

/** Each id's first event index (file order), in a compact table (no entry object per event). */
export function firstIndexOfIds(events: readonly TraceEvent[]): IdTable {
  // the ids are read from the events: no list of them (8 MB at 1M events, and its copies as it grew)
  const table = new IdTable(events.length, (i) => events[i].id);
  for (let i = 0; i < events.length; i++) table.add(events[i].id, i);
  return table;
}

/** Event indices in time order (ties in file order). */
export function byTimeOrder(events: readonly TraceEvent[]): Int32Array {
  const order = Int32Array.from({ length: events.length }, (_, i) => i);
  // most traces are written in time order: no sort then (sorting a typed array with a comparator copies it twice on the heap)
  return inTimeOrder(events) ? order : order.sort((a, b) => events[a].t - events[b].t || a - b);
}

/** True when every event's time is a finite number, none before the one above it (the time order is then the file order). */
function inTimeOrder(events: readonly TraceEvent[]): boolean {
  for (let i = 0; i < events.length; i++) {
    const t = events[i].t;
    if (typeof t !== 'number' || !Number.isFinite(t) || (i > 0 && t < events[i - 1].t)) return false;
  }
  return true;
}
