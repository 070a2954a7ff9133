/**
 * Orchestration metrics: parallelism (busy lane time / wall time), the critical path, spawn fan-out and depth,
 * protocol overhead, and tokens, cost and seconds per agent.
 *
 * - Work of an event: `duration_s`; for a tool call without one, the time until its result arrives
 *   (when the result has no `duration_s` of its own).
 *   When no event has any work, every event counts 1 (`work_basis: "events"`).
 * - Latency: in seconds, an event also worked from the end of its latest input to its own start
 *   (its agent was starting, thinking or calling), so total work counts every busy second.
 * - Critical path: the chain of inputs, waits included, that ends where the run ends (the latest
 *   finish): from the first event to the last, through the orchestrator's wait for its last return
 *   and the final aggregate. A link u -> v only orders work when v starts after u's work ends, so
 *   calls an agent issued in parallel stay parallel; an event that waited for none of its inputs goes
 *   on from the chain of the one it started beside, up to its own start.
 * - Parallelism = Σ over lanes of the lane's busy time / wall time (busy-time.ts): a lane's busy
 *   time is the union of its events' busy intervals (latency + work), nested or overlapping spans
 *   of one lane counted once and a span's time spent waiting on its children left out; wall time
 *   is the time anything ran. 1 = sequential. Without a clock (no event has work) each event counts
 *   1 and parallelism = events / the longest chain of events.
 *   Worked example (docs/analysis.md): two workers spawned at t=0 each search for 2 s from t=1,
 *   return at 3, the orchestrator aggregates for 1 s at t=4: lanes busy 3 + 3 + 2 = 8 s over 5 s
 *   of wall time, parallelism 1.6; critical path s1 -> c1 -> r1 -> g = 5 s.
 * - Spawn depth: spawner -> spawned agent (`to` of a spawn event); roots have depth 0.
 * - Protocol overhead: tokens of hand-offs between agents (message, delegate, return, spawn) / all
 *   tokens; character counts of content when the trace records no tokens.
 */
import { PauseClock, withoutPauses, type Pause } from './pauses';
import { busyTimeSteps, type BusyCarry, type BusyFollow, type BusyTime } from './busy-time';
import { isExplicitCode } from './link-table';
import { madeWhenRead } from './made-when-read';
import { countsSteps, type LoadedTrace } from '../trace/model';
import type { TraceIndex } from './trace-index';
import { carriedSweep, type Sweep } from './carried-sweep';
import { appendColumn, columnWithRoom } from '../shared/append-column';
import { grownTo, withRoom } from './prefix-carry';
import type { AgentCost, Metrics } from './types';
import { eventFieldsOf } from '../trace/event-fields';

/**
 * Computes the {@link Metrics} of an indexed trace in O(n + links). Each pass is a function of its
 * own: a function made of several long loops is compiled loop by loop and thrown back to the
 * interpreter at the start of each next loop, on every call.
 */
export function computeMetrics(index: TraceIndex): Metrics {
  return withoutPauses(metricSteps(index, new PauseClock(Infinity)));
}

/** {@link computeMetrics} with a pause between its passes when `clock` says so (src/analysis/pauses.ts). */
export function* metricSteps(index: TraceIndex, clock: PauseClock): Generator<Pause, Metrics, void> {
  const n = index.size;
  // the per-event work and path arrays are scratch in the index's arena, given back here; a followed trace's are its carry's (below)
  const scratch = index.arena.mark();
  const carry = index.carry;
  const offered = carry?.metrics;
  if (carry) carry.metrics = undefined; // kept again below, for this analysis's positions
  let work: { total: number; critical: number; path: Int32Array; basis: Metrics['work_basis']; busy: BusyTime | undefined };
  let costs: AgentCosts;
  try {
    const multiAgent = hasSeveralAgents(index);
    const columns = carry ? carriedColumns(offered, n) : arenaColumns(index);
    // a followed trace's append: the work and chains of the old events go on from the carry (see MetricsCarry)
    const resumed = offered && resumes(index, offered, multiAgent) ? resumeWork(index, offered, columns, multiAgent) : undefined;
    let basis: Metrics['work_basis'];
    let from = 0;
    let recorded: number;
    if (resumed) ({ basis, costs, recorded, from } = resumed);
    else ({ basis, costs, recorded } = workAndCosts(index, columns.own, multiAgent));
    // a followed trace's busy time goes on from the last one's cuts: the intervals the pass below makes again, as they were
    const busyFollow: BusyFollow | undefined = carry ? { change: resumed && offered?.busy ? busyChange(offered.busy, columns, from) : undefined } : undefined;
    if (clock.due()) yield* clock.pause();
    const cp = yield* criticalPath(index, columns, basis, from, clock);
    if (clock.due()) yield* clock.pause();
    // busy time needs a clock: without durations every event counts 1 and the ratio stays total / critical
    let busy: BusyTime | undefined;
    if (basis !== 'events') busy = yield* busyTimeSteps(index, columns.start, columns.end, clock, busyFollow);
    work = { ...cp, basis, busy };
    if (carry) carry.metrics = { count: n, from, multiAgent, basis, recorded, costs: copyCosts(costs), columns, busy: busyFollow?.kept };
  } finally {
    index.arena.release(scratch);
  }
  const { total, critical, path, basis, busy } = work;
  if (clock.due()) yield* clock.pause();
  const { spawns, maxFanOut, depth } = spawnTree(index);
  const { tokens, chars } = costs;
  const overheadBasis: Metrics['overhead_basis'] = tokens > 0 ? 'tokens' : 'chars';
  const denom = tokens > 0 ? tokens : chars;
  const explicit = explicitLinks(index);
  const metrics: Metrics = {
    events: n,
    agents: index.lanes.size,
    parallelism: busy ? (busy.wall > 0 ? round(busy.lane / busy.wall) : 1) : critical > 0 ? round(total / critical) : 1,
    ...(busy ? { lane_time: round(busy.lane), wall_time: round(busy.wall) } : {}),
    total_work: round(total),
    critical_path: round(critical),
    critical_path_events: [], // made when read (pathWhenRead)
    work_basis: basis,
    spawns,
    max_fan_out: maxFanOut,
    spawn_depth: depth,
    protocol_overhead: denom > 0 ? round((tokens > 0 ? costs.protocolTokens : costs.protocolChars) / denom) : null,
    overhead_basis: overheadBasis,
    per_agent: Object.fromEntries(costs.perAgent) as Record<string, AgentCost>,
    tool_calls: costs.toolCalls,
    messages: costs.messages,
    links: { explicit, derived: index.linkCount - explicit, dropped: index.dropped },
  };
  pathWhenRead(metrics, path, index.loaded);
  return metrics;
}

/**
 * In one pass over the events (each read is a cache miss at a million events): the work of each
 * event into `own` (seconds): its `duration_s`, or for a tool call without one the time until its
 * result arrives (unless the result carries the run time); every event 1 when none has any work.
 * And the costs ({@link addCost}).
 * @param from the events before it are in `costs` and `recorded` (a followed trace's carry), and their work in `own`.
 * @returns the work's basis, the costs and the sum of the work the trace records (seconds or steps).
 */
function workAndCosts(index: TraceIndex, own: Float64Array, multiAgent: boolean, from = 0, costs: AgentCosts = noCosts(), recorded = 0): { basis: Metrics['work_basis']; costs: AgentCosts; recorded: number } {
  const n = index.size;
  for (let i = from; i < n; i++) {
    const w = workOf(index, i);
    own[i] = w;
    recorded += w;
    addCost(index, i, multiAgent, costs);
  }
  const basis = basisOf(index, recorded);
  if (basis === 'events') own.fill(1, from, n);
  return { basis, costs, recorded };
}

/** The work of the event at position `i` (see {@link workAndCosts}). */
function workOf(index: TraceIndex, i: number): number {
  const d = index.durationOf(i);
  const w = d !== undefined && Number.isFinite(d) ? d : 0;
  const r = index.resultOf(i);
  // a call without a duration runs until its result arrives (unless the result carries the run time)
  if (w === 0 && index.types[i] === 'tool_call' && r !== -1 && index.durationOf(r) === undefined) return Math.max(0, index.time[r] - index.time[i]);
  return w;
}

/** The work's basis: `events` when the trace records no work, else its clock's unit. */
function basisOf(index: TraceIndex, recorded: number): Metrics['work_basis'] {
  return recorded === 0 ? 'events' : countsSteps(index.loaded) ? 'steps' : 'seconds';
}

function noCosts(): AgentCosts {
  return { perAgent: new Map(), tokens: 0, chars: 0, protocolTokens: 0, protocolChars: 0, toolCalls: 0, messages: 0 };
}

/** A copy of `costs` the results share nothing with (the metrics' `per_agent` holds the objects of the one it was made of). */
function copyCosts(costs: AgentCosts): AgentCosts {
  return { ...costs, perAgent: new Map([...costs.perAgent].map(([agent, cost]) => [agent, { ...cost }])) };
}

/**
 * What the metrics of a followed trace's first {@link count} positions leave for the next analysis
 * (prefix-carry.ts), while the old events' receivers and tool pairs stand (index-links.ts
 * `BuiltLinks.stand` > 0) and no old event's work changed but the old tool calls a new event answers: the costs and the
 * recorded work of the old events, and the per-event columns of the work and the chains (arrays of
 * the carry's own with room to grow, not the arena's: about 52 bytes per event kept between updates).
 * The critical path's pass goes on from the first new event, or from the first old call a new result
 * answers (its work changed), or the first old event whose links changed (`stand`): its sums from the
 * last mark before it (`ChainColumns.totals`), its path followed back only to where it meets the last
 * one. Busy time goes on from the cuts it kept (busy-time.ts BusyCarry).
 */
export interface MetricsCarry {
  count: number;
  /** Where the pass that made it went on from: the first position made again (0: all made). */
  from: number;
  multiAgent: boolean;
  basis: Metrics['work_basis'];
  recorded: number;
  costs: AgentCosts;
  columns: MetricColumns;
  /** Busy time's cuts (busy-time.ts), when the work has a clock. */
  busy?: BusyCarry;
}

/** Old intervals past this many positions back: busy time is made whole (their copy would be as long). */
const MAX_BUSY_CHANGE = 1 << 16;

/** What busy time needs of an append (busy-time.ts BusyChange): the intervals of positions [from, count) before the pass makes them again. */
function busyChange(offered: BusyCarry, columns: MetricColumns, from: number): BusyFollow['change'] {
  if (offered.count - from > MAX_BUSY_CHANGE) return undefined;
  return { offered, from, oldStart: columns.start.slice(from, offered.count), oldEnd: columns.end.slice(from, offered.count) };
}

/** The per-event columns of the metrics (positions in time order): work, busy start and end, and the chains' when they are kept. */
interface MetricColumns {
  own: Float64Array;
  start: Float64Array;
  end: Float64Array;
  /** The critical path's pass's columns: kept in a carry; else made in the arena for the pass and given back after it. */
  chains?: ChainColumns;
}

/** The critical path's per-event columns ({@link Chains}). */
interface ChainColumns {
  finish: Float64Array;
  cp: Float64Array;
  /** Each event's share of the total work (its work and latency). */
  part: Float64Array;
  via: Int32Array;
  /** Per {@link MARK_EVERY} positions, the pass's total and latest-finishing event before the first of them (a pass that goes on starts from the last one before it). */
  totals: Float64Array;
  ends: Int32Array;
  /** The positions of the last critical path, in time order (a carry's: the next path ends with it up to where it meets it). */
  path?: Int32Array;
}

/** Positions between two of the critical path pass's marks ({@link ChainColumns} `totals`), a power of two. */
const MARK_EVERY = 1 << 12;
const MARK_SHIFT = 12;

/** The columns in the index's arena (a trace analysed once; the chains' made by the pass). */
function arenaColumns(index: TraceIndex): MetricColumns {
  const n = index.size;
  const { arena } = index;
  return { own: arena.float64(n), start: arena.float64(n), end: arena.float64(n) };
}

/** The chains' columns in the index's arena. */
function arenaChains(index: TraceIndex): ChainColumns {
  const n = index.size;
  const { arena } = index;
  const marks = (n >> MARK_SHIFT) + 1;
  return { finish: arena.float64(n), cp: arena.float64(n), part: arena.float64(n), via: arena.int32(n), totals: arena.float64(marks), ends: arena.int32(marks) };
}

/** The carry's columns, holding at least `n` positions (those of `offered` kept; grown by a quarter again when they must grow). */
function carriedColumns(offered: MetricsCarry | undefined, n: number): Required<MetricColumns> {
  const c = offered?.columns.chains && { ...offered.columns, ...offered.columns.chains };
  const keep = offered?.count ?? 0;
  const room = <T extends Float64Array | Int32Array>(a: T | undefined, make: (size: number) => T): T => {
    if (a && a.length >= n) return a;
    const out = make(withRoom(n));
    if (a) out.set(a.subarray(0, keep));
    return out;
  };
  const f64 = (a: Float64Array | undefined) => room(a, (size) => new Float64Array(size));
  const via = room(c?.via, (size) => new Int32Array(size));
  // the marks: one per MARK_EVERY positions of the room
  const marks = (via.length >> MARK_SHIFT) + 1;
  const totals = grownTo(c?.totals ?? new Float64Array(0), marks, c?.totals.length ?? 0, (size) => new Float64Array(size));
  const ends = grownTo(c?.ends ?? new Int32Array(0), marks, c?.ends.length ?? 0, (size) => new Int32Array(size));
  return { own: f64(c?.own), start: f64(c?.start), end: f64(c?.end), chains: { finish: f64(c?.finish), cp: f64(c?.cp), part: f64(c?.part), via, totals, ends, path: c?.path } };
}

/** True when the old events' metrics can go on (see {@link MetricsCarry}). */
function resumes(index: TraceIndex, offered: MetricsCarry, multiAgent: boolean): boolean {
  return index.linksMade.stand > 0 && offered.count === index.carry?.count && offered.count <= index.size && offered.multiAgent === multiAgent && offered.basis !== 'events';
}

/**
 * The work and costs of a followed trace's new events, and the old calls a new event answers, from
 * the carry; undefined when the work's basis changed (then all is made again).
 * @returns also `from`, the first position whose chain must be made again.
 */
function resumeWork(index: TraceIndex, offered: MetricsCarry, columns: MetricColumns, multiAgent: boolean): { basis: Metrics['work_basis']; costs: AgentCosts; recorded: number; from: number } | undefined {
  const m = offered.count;
  let recorded = offered.recorded;
  // (the chains of the positions whose links changed are made again: an edge that ends at an old event)
  let from = Math.min(m, index.linksMade.stand);
  for (const u of index.linksMade.answeredOld) {
    const w = workOf(index, u);
    recorded += w - columns.own[u];
    columns.own[u] = w;
    from = Math.min(from, u);
  }
  const made = workAndCosts(index, columns.own, multiAgent, m, offered.costs, recorded);
  return made.basis === offered.basis ? { ...made, from } : undefined;
}

/**
 * Total work and the critical path, in one pass in time order; `start` gets each event's busy start
 * (the end of its latest input when it waited for one, else its `t`), `end` its `t` + work. In seconds, an event's work is its
 * own duration plus its latency: the time from its latest input's end to its start (its agent was
 * busy producing it). The critical path to v is the heaviest chain of inputs it waited for, waits
 * included, so it spans the run.
 */
function* criticalPath(index: TraceIndex, columns: MetricColumns, basis: Metrics['work_basis'], from: number, clock: PauseClock): Generator<Pause, { total: number; critical: number; path: Int32Array }, void> {
  const n = index.size;
  // (the arena's chains are given back before busy time takes its own: the metrics' arena high-water is the larger of the two, not their sum)
  const scratch = index.arena.mark();
  try {
    return yield* chainsFrom(index, columns.own, columns.start, columns.end, columns.chains ?? arenaChains(index), basis, from, n, clock);
  } finally {
    index.arena.release(scratch);
  }
}

/** {@link criticalPath}'s pass from position `from` on (the columns before it hold what the pass made of them). */
function* chainsFrom(index: TraceIndex, own: Float64Array, start: Float64Array, end: Float64Array, columns: ChainColumns, basis: Metrics['work_basis'], from: number, n: number, clock: PauseClock): Generator<Pause, { total: number; critical: number; path: Int32Array }, void> {
  const { finish, cp, via, part, totals, ends } = columns;
  via.fill(-1, from, n);
  // the sums up to `from` as the pass made them, from its last mark before `from` (the same additions in the same order: the same figures)
  const mark = from > 0 ? (from - 1) >> MARK_SHIFT : 0;
  let total = from > 0 ? totals[mark] : 0;
  let cpEnd = from > 0 ? ends[mark] : -1;
  for (let v = mark << MARK_SHIFT; v < from; v++) {
    total += part[v];
    if (cpEnd === -1 || finish[v] >= finish[cpEnd]) cpEnd = v;
  }
  const chains: Chains = { own, start, end, ...columns, seconds: basis !== 'events', total, cpEnd };
  // in parts, a pause between two when `clock` says so (one pass over 1M events was a block of 150-190 ms)
  for (let at = from; at < n; at += CHAIN_PART) {
    if (at > from && clock.due()) yield* clock.pause();
    chainsOf(index, chains, at, Math.min(n, at + CHAIN_PART));
  }
  // (a followed trace's chains are its carry's: its path is made with room for the next one to go on in place)
  const path = pathTo(via, chains.cpEnd, from, columns.path, index.carry !== undefined);
  columns.path = path;
  return { total: chains.total, critical: chains.cpEnd === -1 ? 0 : cp[chains.cpEnd], path: index.inFileOrder ? path : path.map((v) => index.at(v)) };
}

/** Events per part of {@link criticalPath}'s pass. */
const CHAIN_PART = 1 << 16;

/** The state of {@link criticalPath}'s pass from one part to the next: the per-event columns, the sums so far. */
interface Chains extends ChainColumns {
  own: Float64Array;
  start: Float64Array;
  end: Float64Array;
  seconds: boolean;
  total: number;
  cpEnd: number;
}

/** {@link criticalPath}'s pass over the events [from, to), in time order, carrying on from the parts before. */
function chainsOf(index: TraceIndex, chains: Chains, from: number, to: number): void {
  const { own, start, end, finish, cp, via, part, seconds, totals, ends } = chains;
  let { total, cpEnd } = chains;
  for (let v = from; v < to; v++) {
    if ((v & (MARK_EVERY - 1)) === 0) {
      totals[v >> MARK_SHIFT] = total;
      ends[v >> MARK_SHIFT] = cpEnd;
    }
    const t = index.time[v];
    let latest = -Infinity;
    let best = 0;
    // an input still running when v started (a call issued beside it): its chain up to v's start, used only when v waited for none
    let open = -1;
    let openReach = 0;
    for (let q = index.inStart[v]; q < index.inStart[v + 1]; q++) {
      const u = index.linkU[index.inLinks[q]];
      // v did not wait for u to finish: u's work is not on v's chain (parallel calls, temporal order)
      if (seconds && t < finish[u] - 1e-9) {
        // the chain to u's start and on to v's (cp[u] - own[u] + t - t_u): a second call issued while
        // the first runs does not start a chain of its own (a one-lane run's path spans the run)
        const reach = cp[u] + t - finish[u];
        if (open === -1 || reach > openReach) {
          open = u;
          openReach = reach;
        }
        continue;
      }
      // the critical input is the one v waited for last (latest finish; the heavier chain on ties)
      const reach = cp[u] + (seconds ? t - finish[u] : 0);
      const later = seconds ? finish[u] > latest + 1e-9 : reach > best;
      const tie = seconds && Math.abs(finish[u] - latest) <= 1e-9 && reach > best;
      if (via[v] === -1 || later || tie) {
        best = reach;
        via[v] = u;
      }
      latest = Math.max(latest, finish[u]);
    }
    if (via[v] === -1 && open !== -1) {
      best = Math.max(0, openReach);
      via[v] = open;
    }
    const share = own[v] + (seconds && latest > -Infinity ? Math.max(0, t - latest) : 0);
    part[v] = share;
    total += share;
    start[v] = seconds && latest > -Infinity && latest < t ? latest : t;
    end[v] = t + own[v];
    finish[v] = seconds ? end[v] : v;
    cp[v] = best + own[v];
    // the path ends where the run ends: the latest finish (the later event on ties)
    if (cpEnd === -1 || finish[v] >= finish[cpEnd]) cpEnd = v;
  }
  chains.total = total;
  chains.cpEnd = cpEnd;
}

/**
 * The positions of the chain that ends at `end`, following `via` back, in time order. A followed
 * trace's `last` path (its via unchanged before `from`) gives the chain's start: followed back to a
 * position before `from` that is on it, the rest is its (a chain's positions only go down: found by
 * halves). Counted first, then filled from the back.
 * @param room true for a followed trace: the path is made with room after it, and a path that goes
 *   on from the whole of `last` is a longer view of its memory (src/shared/append-column.ts: `last`
 *   stays as it was handed out). At 1M events a new path of 4 MB at each append was external memory
 *   that brought the collector's full collections sooner.
 */
function pathTo(via: Int32Array, end: number, from: number, last: Int32Array | undefined, room: boolean): Int32Array {
  let length = 0;
  let v = end;
  for (; v >= from; v = via[v]) length++;
  const met = last && v !== -1 ? positionIn(last, v) : -1;
  if (met === -1) for (; v !== -1; v = via[v]) length++;
  else length += met + 1;
  const goesOn = room && met !== -1 && met === last!.length - 1;
  const path = goesOn ? appendColumn(last!, length) : room ? columnWithRoom(Int32Array, length) : new Int32Array(length);
  let k = length - 1;
  for (v = end; v >= from; v = via[v]) path[k--] = v;
  if (met !== -1 && !goesOn) path.set(last!.subarray(0, met + 1));
  else if (met === -1) for (; v !== -1; v = via[v]) path[k--] = v;
  return path;
}

/** Where position `v` is in the ascending `list`, or -1. */
function positionIn(list: Int32Array, v: number): number {
  let low = 0;
  let high = list.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (list[mid] === v) return mid;
    if (list[mid] < v) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/**
 * Makes `metrics.critical_path_events` (the ids of the critical path's events, up to one per event:
 * 1M strings at 1M events, which nothing in the editor reads) when first read, from the indices.
 * @param path indices into `loaded.trace.events`, in time order.
 */
function pathWhenRead(metrics: Metrics, path: Int32Array, loaded: LoadedTrace): void {
  const idOf = eventFieldsOf(loaded).idReader();
  madeWhenRead(metrics, 'critical_path_events', () => Array.from(path, idOf));
}

/** The spawns read so far ({@link spawnTree}), as a sweep (carried-sweep.ts): each spawn adds to them on its own. */
interface SpawnSweep extends Sweep {
  spawns: number;
  /** Spawner -> its spawns. */
  fanOut: Map<string, number>;
  /** Spawned agent -> its first spawner. */
  spawner: Map<string, string>;
}

/**
 * Spawns, the largest fan-out of one spawner, and the depth of the spawn tree (spawner -> spawned
 * agent; roots have depth 0). The spawns are read by a sweep a followed trace keeps (a pass over
 * the events was 4 ms per append at 1M).
 */
function spawnTree(index: TraceIndex): { spawns: number; maxFanOut: number; depth: number } {
  const sweep = carriedSweep<SpawnSweep>(index, 'spawns', '', () => ({ swept: 0, key: '', carryable: true, spawns: 0, fanOut: new Map(), spawner: new Map() }));
  const { fanOut, spawner } = sweep;
  for (let i = sweep.swept, n = index.size; i < n; i++) {
    if (index.types[i] !== 'spawn') continue;
    sweep.spawns++;
    const agent = index.agentOf(i);
    const to = index.toOf(i);
    fanOut.set(agent, (fanOut.get(agent) ?? 0) + 1);
    if (to !== undefined && to !== agent && !spawner.has(to)) spawner.set(to, agent);
  }
  sweep.swept = Math.max(sweep.swept, index.size);
  let depth = 0;
  for (const agent of spawner.keys()) {
    let d = 0;
    const seen = new Set<string>();
    for (let a: string | undefined = agent; a !== undefined && spawner.has(a) && !seen.has(a); a = spawner.get(a)) {
      seen.add(a);
      d++;
    }
    depth = Math.max(depth, d);
  }
  return { spawns: sweep.spawns, maxFanOut: [...fanOut.values()].reduce((a, b) => Math.max(a, b), 0), depth };
}

/** True when at least two agents have output other than tool results. */
function hasSeveralAgents(index: TraceIndex): boolean {
  let first: string | undefined;
  for (let i = 0; i < index.size; i++) {
    if (index.types[i] === 'tool_result') continue;
    const agent = index.agentOf(i);
    if (first === undefined) first = agent;
    else if (agent !== first) return true; // a second one: no need to read the rest
  }
  return false;
}

/** Tokens, characters, counts and per-agent costs; what hand-offs between agents carry (protocol overhead). */
export interface AgentCosts {
  // Agent names are trace text: a Map, never a plain object's keys (an agent named "__proto__" would reach Object.prototype).
  perAgent: Map<string, AgentCost>;
  tokens: number;
  chars: number;
  protocolTokens: number;
  protocolChars: number;
  toolCalls: number;
  messages: number;
}

/** Adds event `i` to the costs, events taken in time order. */
function addCost(index: TraceIndex, i: number, multiAgent: boolean, costs: AgentCosts): void {
  const t = index.tokens(i);
  const c = index.content(i).length;
  costs.tokens += t;
  costs.chars += c;
  const type = index.types[i];
  if (type === 'tool_call') costs.toolCalls++;
  if (type === 'message') costs.messages++;
  const between = index.isHandoff(i) && (index.receiver(i) !== undefined || (index.toOf(i) === undefined && multiAgent));
  if (between) {
    costs.protocolTokens += t;
    costs.protocolChars += c;
  }
  const agent = index.agentOf(i);
  let a = costs.perAgent.get(agent);
  if (!a) costs.perAgent.set(agent, (a = { events: 0, tokens: 0, cost: 0, seconds: 0 }));
  a.events++;
  a.tokens += t;
  const cost = index.costOf(i);
  if (cost !== undefined && Number.isFinite(cost)) a.cost = round(a.cost + cost);
  const d = index.durationOf(i);
  if (d !== undefined && Number.isFinite(d)) a.seconds = round(a.seconds + d);
}

/** The explicit links of the rows read so far ({@link explicitLinks}): per row v, how many the rows before it hold. */
interface ExplicitSweep extends Sweep {
  /** [0, swept]: explicit links of the rows before each (with room to grow). */
  before: Int32Array;
}

/**
 * Number of links the trace states (edges, parent, causes: explicit, not derived). A followed trace's
 * are counted row by row (a link is its target's: TraceIndex `inStart`/`inLinks`), and the counts of
 * the rows that stand are kept (index-links.ts `BuiltLinks.stand`: their links are the last
 * analysis's), so that an append counts its new and mended rows only (a pass over every link was 8 ms
 * per append at 1M).
 */
function explicitLinks(index: TraceIndex): number {
  const n = index.size;
  if (!index.carry) {
    let explicit = 0;
    for (let k = 0; k < index.linkCount; k++) if (isExplicitCode(index.linkKind[k])) explicit++;
    return explicit;
  }
  const sweep = carriedSweep<ExplicitSweep>(index, 'explicitLinks', '', () => ({ swept: 0, key: '', carryable: true, before: new Int32Array(withRoom(n)) }));
  const from = Math.min(sweep.swept, index.linksMade.stand);
  const before = (sweep.before = grownTo(sweep.before, n + 1, from + 1, (size) => new Int32Array(size)));
  const { inStart, inLinks, linkKind } = index;
  let count = before[from];
  for (let v = from; v < n; v++) {
    for (let q = inStart[v]; q < inStart[v + 1]; q++) if (isExplicitCode(linkKind[inLinks[q]])) count++;
    before[v + 1] = count;
  }
  sweep.swept = n;
  return count;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
