/**
 * The lanes of a trace graph, computed once in the engine: lanes ordered as a spawn tree
 * (sub-agents under their spawner) and tool calls paired with their results (one bar each). The
 * time axis they are drawn on is shared/axis.ts. Nothing here knows pixels.
 */
import { IdTable } from '../trace/id-table';
import { agentColumn, type AgentColumn } from './agent-column';
import { KIND, kindColumn } from './kind-column';
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
  const agents = agentColumn(events);
  const { order, depth, parent } = laneTreeColumns(events, edges, agents);
  const out: LaneOrder[] = new Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const a = order[k];
    out[k] = { name: agents.name(a), parent: parent[a] < 0 ? undefined : agents.name(parent[a]), depth: depth[k] };
  }
  return out;
}

/**
 * {@link laneTree} in columns over the events' agent numbers ({@link agentColumn}): no string key,
 * Map entry or object per agent beyond the column's own.
 * @returns `order`: per lane (tree order) its agent's number; `depth`: per lane its depth;
 *   `parent`: per agent number its spawner's number, -1 for a root.
 */
export function laneTreeColumns(events: readonly TraceEvent[], edges: readonly TraceEdge[], agents: AgentColumn): { order: Int32Array; depth: Int32Array; parent: Int32Array } {
  const count = agents.count;
  const parent = new Int32Array(count).fill(-1);
  /** Agents that are some agent's parent: only those can close a cycle (no walk up a 1M-deep chain per claim). */
  const parents = new Uint8Array(count);
  const claim = (child: number, by: number) => {
    if (child < 0 || child === by || !agents.name(child) || parent[child] >= 0) return;
    if (parents[child] && isAncestorOf(parent, child, by)) return;
    parent[child] = by;
    parents[by] = 1;
  };
  const to = (e: TraceEvent) => (e.to ? (agents.numberOf(e.to) ?? -1) : -1);
  // spawns claim first, then spawn edges, then delegations: the delegations are listed on the way
  const delegations: number[] = [];
  const kinds = kindColumn(events);
  for (let i = 0; i < events.length; i++) {
    const type = kinds[i];
    if (type === KIND.spawn) claim(to(events[i]), agents.of[i]);
    else if (type === KIND.delegate) delegations.push(i);
  }
  let byId: Map<string, number> | undefined; // only for spawn edges (a large trace has many edges, few spawns)
  for (const edge of edges) {
    if (edge.type !== 'spawn') continue;
    if (!byId) {
      byId = new Map();
      for (let i = 0; i < events.length; i++) if (!byId.has(events[i].id)) byId.set(events[i].id, i);
    }
    const src = byId.get(edge.src);
    const dst = byId.get(edge.dst);
    if (src !== undefined && dst !== undefined) claim(agents.of[dst], agents.of[src]);
  }
  for (const i of delegations) claim(to(events[i]), agents.of[i]);
  // children of each agent in order of first appearance: counted, then filled (one column)
  const start = new Int32Array(count + 2);
  for (let a = 0; a < count; a++) start[parent[a] + 2]++;
  for (let k = 0; k <= count; k++) start[k + 1] += start[k];
  const fill = start.slice(0, count + 1);
  const list = new Int32Array(count);
  for (let a = 0; a < count; a++) list[fill[parent[a] + 1]++] = a;
  /** The agents under `p` (-1: the roots), in order of first appearance. */
  const from = (p: number) => start[p + 1];
  const until = (p: number) => start[p + 2];
  // depth first without recursion (a spawn chain can be a million agents deep)
  const order = new Int32Array(count);
  const depth = new Int32Array(count);
  const stack = new Int32Array(count);
  const stackDepth = new Int32Array(count);
  let top = 0;
  for (let r = until(-1) - 1; r >= from(-1); r--) {
    stack[top] = list[r];
    stackDepth[top++] = 0;
  }
  let k = 0;
  while (top > 0) {
    const a = stack[--top];
    const d = stackDepth[top];
    order[k] = a;
    depth[k++] = d;
    for (let c = until(a) - 1; c >= from(a); c--) {
      stack[top] = list[c];
      stackDepth[top++] = d + 1;
    }
  }
  // agents on a spawn cycle longer than the ancestor walk reach no root: they have no lane, as before
  return k === count ? { order, depth, parent } : { order: order.slice(0, k), depth: depth.slice(0, k), parent };
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

/**
 * Lanes read one at a time, what folding them needs (src/engine/lane-folds.ts): a {@link LaneTable}
 * or a list of lanes ({@link lanesOfList}). `k` is a lane's index (tree order, traces together).
 */
export interface LaneList {
  readonly length: number;
  /** Lane k as an object (made when asked: a caller asks for the few lanes it shows). */
  at(k: number): GroupedLane;
  agent(k: number): string;
  trace(k: number): string | undefined;
  depth(k: number): number;
  /** The lane of lane k's spawner (in its trace), -1 when it has none. */
  parentLane(k: number): number;
}

/** A list of lane objects as a {@link LaneList}: a lane's spawner found by its trace and shown name. */
export function lanesOfList(lanes: readonly GroupedLane[]): LaneList {
  let byName: Map<string, number> | undefined;
  return {
    length: lanes.length,
    at: (k) => lanes[k],
    agent: (k) => lanes[k].agent,
    trace: (k) => lanes[k].trace,
    depth: (k) => lanes[k].depth,
    parentLane: (k) => {
      const l = lanes[k];
      if (l.parent === undefined) return -1;
      if (!byName) {
        byName = new Map();
        for (let i = 0; i < lanes.length; i++) if (lanes[i].parent !== undefined || (i + 1 < lanes.length && lanes[i + 1].depth > lanes[i].depth)) byName.set(`${lanes[i].trace ?? ''}\u0000${lanes[i].name}`, i);
      }
      return byName.get(`${l.trace ?? ''}\u0000${l.parent}`) ?? -1;
    },
  };
}

/**
 * The lanes of a file as {@link laneGroups} orders and names them, and each event's lane. A file
 * of one trace keeps them in columns over the agents' numbers ({@link agentColumn}): a lane's
 * object is made only when asked ({@link LaneTable.at}), so 1M agents make no 1M lane objects or
 * lane-key Map (issue #30). A file of several traces keeps {@link laneGroups}' objects.
 */
export class LaneTable implements LaneList {
  readonly length: number;
  /** Per event (file order): the index of its lane (0 for an agent without one: on a spawn cycle too long to walk). */
  readonly laneOfEvent: Int32Array;
  /** The trace ids, when the file holds several (one lane group each); else empty. */
  readonly traces: string[];
  /** The lane key of an event (its agent's name; `trace NUL agent` in a file of several traces). */
  readonly keyOf: (e: TraceEvent) => string;
  /** One trace: the agents, their tree order and depth (per lane), their spawners and lanes (per agent). */
  private readonly cols?: { agents: AgentColumn; order: Int32Array; depth: Int32Array; parent: Int32Array; laneOfAgent: Int32Array };
  /** Several traces: the lanes as objects, by key. */
  private readonly objects?: { lanes: GroupedLane[]; list: LaneList; index: Map<string, number> };

  /** O(n + edges) for n events; a file of several traces as {@link laneGroups}. */
  constructor(events: readonly TraceEvent[], edges: readonly TraceEdge[] = []) {
    const n = events.length;
    this.laneOfEvent = new Int32Array(n);
    if (!severalTraces(events)) {
      const agents = agentColumn(events);
      const { order, depth, parent } = laneTreeColumns(events, edges, agents);
      const laneOfAgent = new Int32Array(agents.count).fill(-1);
      for (let k = 0; k < order.length; k++) laneOfAgent[order[k]] = k;
      for (let i = 0; i < n; i++) this.laneOfEvent[i] = Math.max(0, laneOfAgent[agents.of[i]]);
      this.cols = { agents, order, depth, parent, laneOfAgent };
      this.length = order.length;
      this.traces = [];
      this.keyOf = (e) => e.agent;
      return;
    }
    const { lanes, keyOf, traces } = laneGroups(events, edges);
    const index = new Map(lanes.map((l, i) => [l.key, i]));
    for (let i = 0; i < n; i++) this.laneOfEvent[i] = index.get(keyOf(events[i])) ?? 0;
    this.objects = { lanes, list: lanesOfList(lanes), index };
    this.length = lanes.length;
    this.traces = traces;
    this.keyOf = keyOf;
  }

  /** The lane key of agent `agent` in the trace of event `e` (the key of `{ ...e, agent }`, without making it). */
  keyOfAgent(e: TraceEvent, agent: string): string {
    return this.cols ? agent : this.keyOf({ ...e, agent });
  }

  /** The index of the lane of a lane key, undefined when no lane has it. */
  indexOf(key: string): number | undefined {
    if (this.objects) return this.objects.index.get(key);
    const a = this.cols!.agents.numberOf(key);
    const k = a === undefined ? -1 : this.cols!.laneOfAgent[a];
    return k < 0 ? undefined : k;
  }

  at(k: number): GroupedLane {
    if (this.objects) return this.objects.lanes[k];
    const { agents, order, depth, parent } = this.cols!;
    const a = order[k];
    const name = agents.name(a);
    return { name, parent: parent[a] < 0 ? undefined : agents.name(parent[a]), depth: depth[k], key: name, agent: name };
  }

  /** Every lane as an object (for a graph that shows them all: at most a thousand). */
  all(): GroupedLane[] {
    return this.objects ? this.objects.lanes : Array.from({ length: this.length }, (_, k) => this.at(k));
  }

  agent(k: number): string {
    return this.objects ? this.objects.lanes[k].agent : this.cols!.agents.name(this.cols!.order[k]);
  }

  trace(k: number): string | undefined {
    return this.objects?.lanes[k].trace;
  }

  depth(k: number): number {
    return this.objects ? this.objects.lanes[k].depth : this.cols!.depth[k];
  }

  parentLane(k: number): number {
    if (this.objects) return this.objects.list.parentLane(k);
    const p = this.cols!.parent[this.cols!.order[k]];
    return p < 0 ? -1 : this.cols!.laneOfAgent[p];
  }
}

/** True when the events name two trace ids or more ({@link laneGroups} then makes a lane group per trace). */
function severalTraces(events: readonly TraceEvent[]): boolean {
  let first: string | undefined;
  for (const e of events) {
    if (typeof e.trace_id !== 'string') continue;
    if (first === undefined) first = e.trace_id;
    else if (e.trace_id !== first) return true;
  }
  return false;
}

/** True when agent `a` is agent `b` or one of `b`'s ancestors (so making `b` the parent of `a` would close a cycle); looks 10,000 spawners up at most. */
function isAncestorOf(parent: Int32Array, a: number, b: number): boolean {
  for (let x = b, n = 0; x >= 0 && n < 10_000; x = parent[x], n++) if (x === a) return true;
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
 * `open`: per lane and tool, the call still waiting for the next result after the last event in
 * time order (what pairing appended events goes on from): keyed `agent NUL tool`, or with the
 * agents numbered `tool number · agents + agent`, keys ascending.
 */
export function toolCallPairs(events: readonly TraceEvent[], edges: readonly TraceEdge[] = [], known: { firstIndex?: IdTable; byTime?: Int32Array; agents?: AgentColumn } = {}): { end: Int32Array; found: Int32Array; open: Map<string, number> | Map<number, number> } {
  const n = events.length;
  const end = new Int32Array(n).fill(-1);
  const taken = new Uint8Array(n);
  const found: number[] = [];
  const firstIndex = known.firstIndex ?? firstIndexOfIds(events);
  const kinds = kindColumn(events);
  const kind = (i: number) => (kinds[i] === KIND.tool_call ? 'tool_call' : kinds[i] === KIND.tool_result ? 'tool_result' : '');
  const pair = (call: number | undefined, result: number | undefined) => {
    if (call === undefined || result === undefined || end[call] >= 0 || taken[result]) return;
    if (kinds[call] !== KIND.tool_call || kinds[result] !== KIND.tool_result || events[result].t < events[call].t) return;
    end[call] = result;
    taken[result] = 1;
    found.push(call);
  };
  for (const edge of edges) if (edge.type === 'tool_dependency') pair(firstIndex.get(edge.src), firstIndex.get(edge.dst));
  for (let i = 0; i < n; i++) {
    if (kinds[i] !== KIND.tool_result) continue;
    const e = events[i];
    if (e.parent !== undefined) pair(firstIndex.get(e.parent), i);
    for (const ref of e.causes ?? []) if (ref !== undefined) pair(firstIndex.get(ref), i);
  }
  // Same lane, same tool, the next result in time order. With the agents numbered, a lane and
  // tool are one number (tool · agents + agent): no string made per call and result.
  const agents = known.agents;
  const byTime = known.byTime ?? byTimeOrder(events);
  const isTaken = (i: number) => taken[i] === 1;
  if (!agents) {
    const open = new Map<string, number>();
    pairOpenCalls(byTime, kind, (i) => laneToolKey(events[i]), open, end, isTaken, pair);
    return { end, found: Int32Array.from(found), open };
  }
  const toolNumber = new Map<string, number>();
  // the last tool's number: a trace's tool events mostly name a few tools (no lookup per event then)
  let lastTool: string | undefined;
  let lastNumber = 0;
  const keyOf = (i: number) => {
    const tool = `${events[i].tool ?? ''}`;
    if (tool !== lastTool) {
      lastTool = tool;
      lastNumber = numberOf(toolNumber, tool);
    }
    return lastNumber * agents.count + agents.of[i];
  };
  // open calls by number in an integer table (no Map entry per open call: 1M agents left 1/3M open)
  const open = new NumberedOpenCalls(OPEN_TABLE_KEYS);
  pairOpenCalls(byTime, kind, keyOf, open, end, isTaken, pair);
  // made when asked: only what a followed trace's growth goes on from reads it (1M agents left 1/3M calls open: a Map of them, 90 ms)
  return {
    end,
    found: Int32Array.from(found),
    get open() {
      return open.toMap();
    },
  };
}

/** What {@link pairOpenCalls} reads and writes of the calls still open, by key (a Map is one). */
export interface OpenCalls<K> {
  get(key: K): number | undefined;
  set(key: K, call: number): unknown;
  delete(key: K): unknown;
}

/** Keys (tool number · agents + agent) kept in {@link NumberedOpenCalls}'s integer table at most (16 MB); keys past it go to a Map. */
const OPEN_TABLE_KEYS = 1 << 22;

/**
 * Open calls by a non-negative integer key: keys below `limit` in an Int32Array (the call + 1; 0
 * for none) grown as keys come, keys from `limit` on in a Map.
 */
export class NumberedOpenCalls implements OpenCalls<number> {
  /** Never longer than `limit`: a key below its length is the table's, any other the Map's. */
  private table: Int32Array;
  private readonly more = new Map<number, number>();

  constructor(private readonly limit: number) {
    this.table = new Int32Array(Math.min(1024, limit));
  }

  get(key: number): number | undefined {
    if (key < this.table.length) {
      const v = this.table[key];
      return v === 0 ? undefined : v - 1;
    }
    return this.more.get(key);
  }

  set(key: number, call: number): void {
    if (key >= this.limit) {
      this.more.set(key, call);
      return;
    }
    if (key >= this.table.length) {
      const table = new Int32Array(Math.min(this.limit, Math.max(2 * this.table.length, key + 1)));
      table.set(this.table);
      this.table = table;
    }
    this.table[key] = call + 1;
  }

  delete(key: number): void {
    if (key < this.table.length) this.table[key] = 0;
    else this.more.delete(key);
  }

  /** The open calls as a Map, keys ascending. */
  toMap(): Map<number, number> {
    const out = new Map<number, number>();
    for (let key = 0; key < this.table.length; key++) if (this.table[key] !== 0) out.set(key, this.table[key] - 1);
    for (const key of [...this.more.keys()].sort((a, b) => a - b)) out.set(key, this.more.get(key)!);
    return out;
  }
}

/** The lane and tool of a tool call or result as one key, `agent NUL tool` (the key of {@link toolCallPairs}'s `open` when the agents are not numbered). */
export function laneToolKey(e: TraceEvent): string {
  return `${e.agent}\u0000${e.tool ?? ''}`;
}

/**
 * The last way {@link toolCallPairs} pairs: walking `order` (time order), a result not yet taken
 * takes the call still open in its lane and tool (`keyOf`); a call opens its key, or closes it when
 * it is paired already. `open` holds the calls still open, before and after: an append's events go
 * on from a whole build's (src/engine/structure-growth.ts), so both pair by this one rule.
 */
export function pairOpenCalls<K>(order: Iterable<number>, kind: (i: number) => string, keyOf: (i: number) => K, open: OpenCalls<K>, end: Int32Array, taken: (i: number) => boolean, pair: (call: number, result: number) => void): void {
  for (const i of order) {
    const k = kind(i);
    if (k !== 'tool_call' && (k !== 'tool_result' || taken(i))) continue;
    const key = keyOf(i);
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
}

/** The number of `key` in `numbers` (numbered in order of first use). */
function numberOf(numbers: Map<string, number>, key: string): number {
  let k = numbers.get(key);
  if (k === undefined) numbers.set(key, (k = numbers.size));
  return k;
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
  return byTimeOrderOf(Float64Array.from(events, (e) => e.t));
}

/**
 * {@link byTimeOrder} from the events' times in a column (`times[i]`: event i's `t`, seconds), as a
 * layout holds them: the order without reading the events again (a pass over a million objects).
 */
export function byTimeOrderOf(times: Float64Array): Int32Array {
  const order = new Int32Array(times.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  // most traces are written in time order: no sort then (sorting a typed array with a comparator copies it twice on the heap)
  return inTimeOrder(times) ? order : order.sort((a, b) => times[a] - times[b] || a - b);
}

/** True when every time is finite, none below the one before it (the time order is then the file order). */
function inTimeOrder(times: Float64Array): boolean {
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    if (!Number.isFinite(t) || (i > 0 && t < times[i - 1])) return false;
  }
  return true;
}
