/**
 * The receivers and causal links of a TraceIndex (trace-index.ts's module comment lists the links in
 * the order they are made), made whole, or for a followed trace's append from the links of the events
 * before it ({@link LinkCarry}, kept in prefix-carry.ts): the new events' links only, the old ones copied.
 *
 * Why the old links stand on an append (each a condition checked before anything is made):
 * - a link goes from an earlier to a later event, so an old event's incoming links come from old
 *   events; the passes that could reach one again are named here and fall back to a whole build:
 *   a new edge that pairs an old tool result otherwise (a new edge to an old event is mended into
 *   its row, link-mend.ts); a new event carrying an id an old one carries (it
 *   changes which event an old reference names, and the stated pairing's test of repeated ids);
 *   a new lane (an old hand-off's `to` may name it: its receiver changes); a new event carrying
 *   an id an old event's `parent` named and no event carried (it becomes that event's parent); a new tool result
 *   stated to answer an old call that was paired with an old result by a guess (a whole build pairs
 *   every stated result before it guesses, so that guess would go elsewhere);
 * - what old events can still reach is kept and read again: the edges whose target no event carried
 *   (a new event may carry it), the hand-offs whose receiver had no event after them (a new one is
 *   their delivery), the tool calls still waiting for a guessed result (the guess pass goes on from
 *   its state), and each lane's last event (its next one is new);
 * - a stated result of a new event that answers an old call unpaired, or paired by a stated link, is
 *   what a whole build does too (it never reaches an old result's pairing: such a call was no old
 *   result's guess, so leaving it out changes no old guess).
 * The new links are numbered after the old ones (a whole build numbers them pass by pass); each
 * event's incoming links are in the same order as a whole build's, which is what the analyses read
 * (the incoming rows; credit, metrics), and the counts are the same.
 */
import type { IdTable } from '../trace/id-table';
import type { LoadedTrace } from '../trace/model';
import type { EventFields } from '../trace/event-fields';
import type { EventType } from '../trace/schema';
import type { Arena } from './arena';
import { EDGE_TYPE_CODE, LINK_CODE, LinkTable } from './link-table';
import { closeHoles, mendRows, type JoinedColumns, type ReachingEdge } from './link-mend';
import type { Pause, PauseClock } from './pauses';
import { kept } from './prefix-carry';
import { upperBound } from './sorted';

/** The event types that hand off to another agent (message, delegate, return, spawn). */
export const HANDOFF_TYPES: ReadonlySet<EventType> = new Set<EventType>(['message', 'delegate', 'return', 'spawn']);

/** How many events around a hint are looked at for an id before the map (see {@link LinkBuild.linkEdges}). */
const NEAR = 8;

/** A receiver column: per position its receiving lane's number + 1, 0 for none, in the narrowest type the lanes fit. */
export type ReceiverColumn = Uint8Array | Uint16Array | Int32Array;

/** The agent a receiver column names for position `i` (another agent that has a lane), or undefined. */
export function receiverOf(receivers: ReceiverColumn, laneNames: readonly string[], i: number): string | undefined {
  const lane = receivers[i];
  return lane === 0 ? undefined : laneNames[lane - 1];
}

/** What the link passes read of the index being built (trace-index.ts), and the pairs column they fill. */
export interface LinkInputs {
  loaded: LoadedTrace;
  /** Events and canonical types in time order. */
  events: EventFields;
  types: readonly EventType[];
  arena: Arena;
  pos: Pick<IdTable, 'get'>;
  repeats: ReadonlyMap<string, number[]>;
  lanes: ReadonlyMap<string, Int32Array>;
  laneNames: readonly string[];
  laneNumbers: ReadonlyMap<string, number>;
  /** Per position the tool call's result or the result's call, -1 for none: n entries of -1, filled here. */
  pairs: Int32Array;
  /** The position an id names from a position (TraceIndex.resolve). */
  resolve(id: string, v: number): number | undefined;
  /** Position of `agent`'s first event after position `i`, or -1 (TraceIndex.nextInLane). */
  nextInLane(agent: string, i: number): number;
}

/** The links and the columns made with them (TraceIndex's fields of the same names). */
export interface BuiltLinks {
  receivers: ReceiverColumn;
  parentColumn: Int32Array;
  handoffsName: boolean;
  linkU: Int32Array;
  linkKind: Uint8Array;
  linkEdgeType: Uint8Array;
  inStart: Int32Array;
  inLinks: Int32Array;
  dropped: number;
  /** `appended`: the old links were copied and only the new events' made; `whole` otherwise, and why. */
  how: 'whole' | 'appended';
  reason: string;
  /** The old tool calls a new event answers (their result changed: metrics.ts reads their work again); empty when {@link stand} is 0. */
  answeredOld: number[];
  /**
   * How many first positions keep the incoming links the carry held (the same sources, kinds and
   * edge types in the same order), every old position keeping its receiver, parent and tool pair
   * but the {@link answeredOld} calls: what the credit's parents and the metrics' chains carried of
   * them stands (credit-transitions.ts, metrics.ts). Appended: the old positions before the first a
   * new edge ends at (its row mended: link-mend.ts); whole: 0, or the positions before the first
   * whose links differ when a carry of the same positions was offered (a new lane, an id repeated).
   */
  stand: number;
}

/**
 * What the links of a trace's first {@link count} positions leave for the next build of the same
 * events and more (see the module's comment). Its arrays are its own (the index's are in an arena
 * the next index reuses), kept from one build to the next with room to grow: a copy made anew at
 * each append of a 1M-event trace was 33 MB of new memory, which made the collector run (a full
 * collection per two appends). Only their first entries count (`count` positions, `links` links).
 * The guess pass's queues are handed on and changed by the next build: a build that does not finish
 * leaves the carry unusable, which is why the follow drops it then.
 */
export interface LinkCarry {
  /** Positions, links and edges read. */
  count: number;
  links: number;
  edges: number;
  /** Lanes there were. */
  lanes: number;
  /** Per link (its first `links` entries). */
  linkU: Int32Array;
  linkKind: Uint8Array;
  linkEdgeType: Uint8Array;
  /** The incoming rows: count + 1 starts, `links` link numbers. */
  inStart: Int32Array;
  inLinks: Int32Array;
  /** Per position (its first `count` entries). */
  parentColumn: Int32Array;
  pairs: Int32Array;
  receivers: ReceiverColumn;
  dropped: number;
  handoffsName: boolean;
  /** Edges (indices into the trace's edges) whose target id no event carried: counted dropped. */
  unresolvedEdges: number[];
  /** Ids that events' `parent` named and no event carried (a new event carrying one is that old event's parent now: a whole build). */
  waitingParents: Set<string>;
  /** Hand-offs with a receiver that had no event after them. */
  undelivered: number[];
  /** The guess pass's unanswered calls, by tool and in order (see LinkBuild.pairToolResults). */
  pending: Map<string, number[]>;
  pendingAny: number[];
}

/**
 * The links of `inputs`' events, a pause between two passes when `clock` says so.
 * @param carried the links of the first positions when they are the same events in the same order
 *   (`from`: how many; prefix-carry.ts decides) and `repeatsOld` whether a new event carries an old
 *   event's id; undefined for a whole build.
 * @param keep true to return what the next build can carry (`carry`): a followed trace in file order.
 */
export function* buildLinks(
  inputs: LinkInputs,
  clock: PauseClock,
  carried: { links: LinkCarry; from: number; repeatsOld: boolean } | undefined,
  keep: boolean,
): Generator<Pause, { built: BuiltLinks; carry?: LinkCarry }, void> {
  const why = carried ? whyWhole(inputs, carried.links, carried.from, carried.repeatsOld) : 'nothing carried';
  let appended: LinkBuild | undefined;
  if (why === undefined) {
    appended = new LinkBuild(inputs, carried!.links);
    const built = yield* appended.appended(clock);
    if (built) return { built, ...(keep ? { carry: appended.carry(built, carried!.links) } : {}) };
  }
  const build = new LinkBuild(inputs, undefined);
  const built = yield* build.whole(clock, why ?? appended?.whyNot ?? 'a new tool result is stated to answer an old call an old result was paired with by a guess');
  // (read before the carry below reuses the old arrays)
  if (carried && carried.links.count === carried.from && inputs.events.length >= carried.from) Object.assign(built, standing(carried.links, built, inputs));
  return { built, ...(keep ? { carry: build.carry(built, carried?.links) } : {}) };
}

/**
 * What of a carry of the same first `old.count` positions a whole build kept ({@link BuiltLinks.stand}):
 * the positions before the first whose incoming row differs, when every old position's receiver and
 * parent are the carried ones and its tool pair too, but for an old call unanswered then and
 * answered by a new result now (`answeredOld`); else nothing stands. One pass over the old rows
 * (4 links an event at 1M: 20-40 ms, against a second or more of credit and metrics made again).
 */
function standing(old: LinkCarry, built: BuiltLinks, inputs: LinkInputs): Pick<BuiltLinks, 'stand' | 'answeredOld'> {
  const m = old.count;
  const { pairs, types } = inputs;
  const none = { stand: 0, answeredOld: [] };
  const answeredOld: number[] = [];
  for (let u = 0; u < m; u++) {
    if (built.receivers[u] !== old.receivers[u] || built.parentColumn[u] !== old.parentColumn[u]) return none;
    if (pairs[u] === old.pairs[u]) continue;
    if (old.pairs[u] !== -1 || pairs[u] < m || types[u] !== 'tool_call') return none;
    answeredOld.push(u);
  }
  const { inStart, inLinks, linkU, linkKind, linkEdgeType } = built;
  for (let v = 0; v < m; v++) {
    const q0 = inStart[v];
    const o0 = old.inStart[v];
    const size = inStart[v + 1] - q0;
    if (size !== old.inStart[v + 1] - o0) return { stand: v, answeredOld };
    for (let j = 0; j < size; j++) {
      const k = inLinks[q0 + j];
      const o = old.inLinks[o0 + j];
      if (linkU[k] !== old.linkU[o] || linkKind[k] !== old.linkKind[o] || linkEdgeType[k] !== old.linkEdgeType[o]) return { stand: v, answeredOld };
    }
  }
  return { stand: m, answeredOld };
}

/** Why the old links cannot be carried (a whole build), or undefined when they can (see the module's comment). */
function whyWhole(inputs: LinkInputs, old: LinkCarry, from: number, repeatsOld: boolean): string | undefined {
  const n = inputs.events.length;
  if (old.count !== from || from === 0 || n < from) return 'the carried links are of other positions';
  if (inputs.laneNames.length !== old.lanes) return 'a new lane (an old hand-off may name it)';
  if (repeatsOld) return 'a new event carries an old event\'s id';
  // (a whole build makes it that old event's parent: its parent column changes, which the metrics read; a cause naming it
  // stays dropped either way, as it points back in time)
  if (old.waitingParents.size > 0) for (let v = from; v < n; v++) if (old.waitingParents.has(inputs.events.id(v))) return 'a new event carries the id an old event\'s parent named';
  if (inputs.loaded.trace.edges.length < old.edges) return 'edges went away';
  return undefined;
}

/** One build of the links (see {@link buildLinks}). */
class LinkBuild {
  private readonly n: number;
  /** First position whose incoming links are made here (0 for a whole build). */
  private readonly base: number;
  private table!: LinkTable;
  private receivers!: ReceiverColumn;
  private parentColumn!: Int32Array;
  private dropped: number;
  private unresolvedEdges: number[] = [];
  private readonly waitingParents: Set<string>;
  private undelivered: number[] = [];
  private pending = new Map<string, number[]>();
  private pendingAny: number[] = [];
  /** Old tool calls (before {@link base}) given a new result by this build. */
  private answeredOld: number[] = [];
  /** Appended: the new edges that end at an old event, in the order read (their rows are mended: link-mend.ts). */
  private reaching: ReachingEdge[] = [];
  /** Appended: why the old links cannot stand after all (then the build is whole), once found. */
  whyNot: string | undefined;

  constructor(
    private readonly in_: LinkInputs,
    private readonly old: LinkCarry | undefined,
  ) {
    this.n = in_.events.length;
    this.base = old ? old.count : 0;
    this.dropped = old ? old.dropped : 0;
    this.waitingParents = old ? old.waitingParents : new Set();
  }

  /** A whole build, as the module comment of trace-index.ts orders the passes. */
  *whole(clock: PauseClock, reason: string): Generator<Pause, BuiltLinks, void> {
    const { arena } = this.in_;
    this.receivers = this.receiversFrom(this.receiverColumn(), 0);
    this.parentColumn = arena.int32(this.n, -1);
    const handoffsName = this.handoffNamesReceiver(0);
    // most traces have one to two links per event, plus their edges
    const table = (this.table = new LinkTable(this.n, 2 * this.n + this.in_.loaded.trace.edges.length, arena));
    const passes = [
      () => this.linkEdges(0),
      () => this.linkReferences(),
      () => this.pairToolResults(this.pairStatedToolResults()),
      () => this.linkHandoffs(),
      () => this.linkLanes(),
      () => this.linkImplicit(),
    ];
    for (const pass of passes) {
      if (clock.due()) yield* clock.pause();
      pass();
    }
    if (clock.due()) yield* clock.pause();
    const count = table.count;
    // the rows first: they move the link columns (arena.ts `compact`)
    const { inStart, inLinks } = table.rows();
    return { receivers: this.receivers, parentColumn: this.parentColumn, handoffsName, linkU: table.u.subarray(0, count), linkKind: table.kind.subarray(0, count), linkEdgeType: table.edgeType.subarray(0, count), inStart, inLinks, dropped: this.dropped, how: 'whole', reason, answeredOld: [], stand: 0 };
  }

  /**
   * The new events' links after the old ones (see the module's comment); undefined, with nothing of
   * the index changed and the arena as it was, when a new result is stated to answer an old guessed call.
   */
  *appended(clock: PauseClock): Generator<Pause, BuiltLinks | undefined, void> {
    const old = this.old!;
    const { arena, pairs } = this.in_;
    const { n, base: m } = this;
    const mark = arena.mark();
    // the new positions' receivers and parents go on in the carry's own columns when they have room (its old
    // entries stay as they are, as a whole build compares them: `standing`), else in the arena, the old ones copied
    if (old.receivers instanceof receiverKind(this.in_.laneNames.length) && old.receivers.length >= n) this.receivers = old.receivers.subarray(0, n).fill(0, m);
    else (this.receivers = this.receiverColumn()).set(old.receivers.subarray(0, m));
    this.receiversFrom(this.receivers, m);
    if (old.parentColumn.length >= n) this.parentColumn = old.parentColumn.subarray(0, n).fill(-1, m);
    else (this.parentColumn = arena.int32(n, -1)).set(old.parentColumn.subarray(0, m));
    const handoffsName = old.handoffsName || this.handoffNamesReceiver(m);
    this.table = new LinkTable(n - m, 2 * (n - m) + 16);
    this.linkEdges(old.edges);
    this.linkReferences();
    if (this.whyNot !== undefined || this.answersGuessedOldCall()) {
      arena.release(mark);
      return undefined;
    }
    pairs.set(old.pairs.subarray(0, m));
    this.pending = old.pending;
    this.pendingAny = old.pendingAny;
    if (clock.due()) yield* clock.pause();
    this.pairToolResults(this.pairStatedToolResults());
    this.linkHandoffs();
    this.linkLanes();
    this.linkImplicit();
    return { ...this.joined(), receivers: this.receivers, parentColumn: this.parentColumn, handoffsName, dropped: this.dropped, how: 'appended', reason: `the links of ${m} events carried; ${n - m} new events linked${this.reaching.length ? `; ${this.reaching.length} new edges end at old events (their rows mended)` : ''}`, answeredOld: this.answeredOld, stand: this.mendedFrom() };
  }

  /**
   * The old links and rows, then the new ones (numbered after them), in the arena; the rows of old
   * events a new edge ends at mended as a whole build makes them (link-mend.ts).
   */
  private joined(): Pick<BuiltLinks, 'linkU' | 'linkKind' | 'linkEdgeType' | 'inStart' | 'inLinks'> {
    const old = this.old!;
    const { arena } = this.in_;
    const { n, base: m, table, reaching } = this;
    const k0 = old.links;
    const count = table.count;
    const rows = table.rows();
    const room = k0 + count + reaching.length;
    const first = this.mendedFrom();
    // with no old row mended, the new entries go after the old ones in the carry's own columns when they have room
    // (its old entries stay as they are; the carry counts the new ones once the analysis is kept: index-links `carry`);
    // else each column is made in the arena holding the old entries (copied: 25 MB per append at 1M, 3-4 ms)
    const inPlace = reaching.length === 0 && old.linkU.length >= room && old.linkKind.length >= room && old.linkEdgeType.length >= room && old.inStart.length >= n + 1 && old.inLinks.length >= room;
    const out: JoinedColumns = inPlace
      ? {
          // (what lies past the old entries is an earlier analysis's: zeroed)
          linkU: old.linkU.subarray(0, room).fill(0, k0),
          linkKind: old.linkKind.subarray(0, room).fill(0, k0),
          linkEdgeType: old.linkEdgeType.subarray(0, room).fill(0, k0),
          inStart: old.inStart.subarray(0, n + 1).fill(0, first + 1),
          inLinks: old.inLinks.subarray(0, room).fill(0, old.inStart[first]),
        }
      : {
          // each column made holding the old entries (the rest zeroed, not the whole zeroed first: 3 ms per append at 1M)
          linkU: arena.grownInt32(old.linkU.subarray(0, k0), room),
          linkKind: arena.grownUint8(old.linkKind.subarray(0, k0), room),
          linkEdgeType: arena.grownUint8(old.linkEdgeType.subarray(0, k0), room),
          inStart: arena.grownInt32(old.inStart.subarray(0, first + 1), n + 1),
          inLinks: arena.grownInt32(old.inLinks.subarray(0, old.inStart[first]), room),
        };
    out.linkU.set(table.u.subarray(0, count), k0);
    out.linkKind.set(table.kind.subarray(0, count), k0);
    out.linkEdgeType.set(table.edgeType.subarray(0, count), k0);
    const mended = mendRows(old, out, reaching, first, m, old.inStart[first], k0 + count);
    const at = mended.at;
    for (let v = m + 1; v <= n; v++) out.inStart[v] = at + rows.inStart[v - m];
    for (let q = 0; q < count; q++) out.inLinks[at + q] = k0 + rows.inLinks[q];
    const slots = at + count;
    const total = closeHoles(out, mended.holes, mended.next, slots);
    return { linkU: out.linkU.subarray(0, total), linkKind: out.linkKind.subarray(0, total), linkEdgeType: out.linkEdgeType.subarray(0, total), inStart: out.inStart, inLinks: out.inLinks.subarray(0, total) };
  }

  /** The first old position a new edge ends at (the old positions' count when none). */
  private mendedFrom(): number {
    let first = this.base;
    for (const r of this.reaching) first = Math.min(first, r.v);
    return first;
  }

  /**
   * What the next build of these events and more carries: copies (the arena is reused), into the
   * arrays of `last` (the carry this build was offered, read already) where they have room.
   */
  carry(built: BuiltLinks, last: LinkCarry | undefined): LinkCarry {
    // an append's old entries are in `last` as they are in `built` (copied from it): only the rest is copied back, unless
    // rows were mended (their links taken over, an implicit link's number given to another) or an old call got a result
    const tail = built.how === 'appended' && last !== undefined && this.reaching.length === 0;
    const m = tail ? this.base : 0;
    const links = tail ? last.links : 0;
    let pairsFrom = m;
    for (const u of this.answeredOld) pairsFrom = Math.min(pairsFrom, u);
    return {
      count: this.n,
      links: built.linkU.length,
      edges: this.in_.loaded.trace.edges.length,
      lanes: this.in_.laneNames.length,
      linkU: kept(last?.linkU, built.linkU, links),
      linkKind: kept(last?.linkKind, built.linkKind, links),
      linkEdgeType: kept(last?.linkEdgeType, built.linkEdgeType, links),
      inStart: kept(last?.inStart, built.inStart, m),
      inLinks: kept(last?.inLinks, built.inLinks, links),
      parentColumn: kept(last?.parentColumn, built.parentColumn, m),
      pairs: kept(last?.pairs, this.in_.pairs, pairsFrom),
      receivers: kept(last?.receivers, built.receivers, m),
      dropped: built.dropped,
      handoffsName: built.handoffsName,
      unresolvedEdges: this.unresolvedEdges,
      waitingParents: this.waitingParents,
      undelivered: this.undelivered,
      pending: this.pending,
      pendingAny: this.pendingAny,
    };
  }

  /** A receiver column of the trace's size, as narrow as the lanes allow (in the arena). */
  private receiverColumn(): ReceiverColumn {
    const kind = receiverKind(this.in_.laneNames.length);
    const { arena } = this.in_;
    return kind === Uint8Array ? arena.uint8(this.n) : kind === Uint16Array ? arena.uint16(this.n) : arena.int32(this.n);
  }

  /** Fills `receivers` from position `from` on: the `to` of an event when it names another agent that has a lane. */
  private receiversFrom(receivers: ReceiverColumn, from: number): ReceiverColumn {
    const { events, laneNumbers } = this.in_;
    for (let i = from; i < this.n; i++) {
      const to = events.to(i);
      if (to !== undefined && to !== events.agent(i)) receivers[i] = (laneNumbers.get(to) ?? -1) + 1;
    }
    return receivers;
  }

  /** True when some hand-off from position `from` on names a receiver that has a lane. */
  private handoffNamesReceiver(from: number): boolean {
    const { types, laneNames } = this.in_;
    for (let i = from; i < this.n; i++) if (this.receivers[i] !== 0 && laneNames[this.receivers[i] - 1] && HANDOFF_TYPES.has(types[i])) return true;
    return false;
  }

  /** The agent position `i` hands off to, when it names another one that has a lane. */
  private receiver(i: number): string | undefined {
    return receiverOf(this.receivers, this.in_.laneNames, i);
  }

  /** Adds the link u -> v unless it is there; counts it dropped when u is unknown or not before v. */
  private link(u: number | undefined, v: number, kind: number, edgeType = 0): void {
    if (u === undefined) {
      this.dropped++;
      return;
    }
    const at = v - this.base;
    if (at < 0) {
      // only an edge reaches an old event on an append (whyWhole keeps the other passes from it: a bug otherwise, said, not a corrupt table)
      if (kind !== LINK_CODE.edge) throw new Error(`a link into event ${v}, read before the append the links were carried over`);
      this.reachBack(u, v, edgeType);
      return;
    }
    if (this.table.has(u, at)) return; // already linked
    if (u < 0 || u >= v) {
      this.dropped++;
      return;
    }
    this.table.add(u, at, kind, edgeType);
  }

  /**
   * A new edge u -> v to an old event v: its row is mended when the links are joined (link-mend.ts),
   * unless it would pair an old tool result otherwise than it is (a whole build's stated pass reads
   * the edge first): then {@link whyNot} says so.
   */
  private reachBack(u: number, v: number, edgeType: number): void {
    if (u < 0 || u >= v) {
      this.dropped++;
      return;
    }
    const { types, events } = this.in_;
    if (types[v] === 'tool_result' && this.old!.pairs[v] !== u && (types[u] === 'tool_call' || types[u] === 'delegate')) {
      this.whyNot ??= `a new edge states that ${events.id(u)} answers an old result (${events.id(v)}) paired otherwise`;
      return;
    }
    this.reaching.push({ u, v, edgeType });
  }

  /**
   * The trace's edges from the `first` on (and, appended, the old ones whose target was unknown).
   * Ids named by edges and references are first looked for among the events near where the last
   * one was found (edges come in event order, a cause is most often a recent event), when no id
   * repeats (then a match is the one event that carries it); else, and when not near, in `pos`.
   */
  private linkEdges(first: number): void {
    const edges = this.in_.loaded.trace.edges;
    const again = this.old?.unresolvedEdges ?? [];
    this.dropped -= again.length; // counted again below, or linked
    for (const k of again) this.linkEdge(k);
    for (let k = first; k < edges.length; k++) this.linkEdge(k);
  }

  private hint = 0;

  /** Edge `k` (see {@link linkEdges}). */
  private linkEdge(k: number): void {
    const edge = this.in_.loaded.trace.edges[k];
    if (edge.type === 'link') return; // a span link relates two events; it is not a cause
    const unique = this.in_.repeats.size === 0;
    const v = unique ? this.near(edge.dst, this.hint, this.hint + NEAR) : -1;
    const dst = v !== -1 ? v : this.in_.pos.get(edge.dst);
    if (dst === undefined) {
      this.dropped++;
      this.unresolvedEdges.push(k);
      return;
    }
    this.hint = dst;
    const near = unique ? this.near(edge.src, dst - NEAR, dst - 1) : -1;
    this.link(near !== -1 ? near : this.in_.pos.get(edge.src), dst, LINK_CODE.edge, EDGE_TYPE_CODE.get(edge.type));
  }

  /** `parent` and `causes[]` of the positions from {@link base} on (see {@link linkEdges} for how ids are looked for). */
  private linkReferences(): void {
    const { events } = this.in_;
    for (let v = this.base, n = this.n; v < n; v++) {
      const parent = events.parent(v);
      if (typeof parent === 'string') {
        const p = this.resolveNear(parent, v);
        if (p !== undefined) this.parentColumn[v] = p;
        else this.waitingParents.add(parent);
        this.link(p, v, LINK_CODE.parent);
      }
      const causes = events.causes(v);
      if (Array.isArray(causes)) for (const c of causes) if (typeof c === 'string') this.link(this.resolveNear(c, v), v, LINK_CODE.causes);
    }
  }

  /** The position `id` names from `v`: among the events just before v when no id repeats, else {@link LinkInputs.resolve}. */
  private resolveNear(id: string, v: number): number | undefined {
    const p = this.in_.repeats.size === 0 ? this.near(id, v - NEAR, v - 1) : -1;
    return p !== -1 ? p : this.in_.resolve(id, v);
  }

  /**
   * True when a new tool result's stated links name an old call that an old result was paired with
   * by a guess (a `tool_result` link, which only the guess pass makes): a whole build would pair
   * the stated result first and guess the old result elsewhere.
   */
  private answersGuessedOldCall(): boolean {
    const old = this.old!;
    const { types } = this.in_;
    const { table, base: m } = this;
    for (let v = m; v < this.n; v++) {
      if (types[v] !== 'tool_result') continue;
      for (let k = table.firstIn(v - m); k !== -1; k = table.nextIn(k)) {
        const u = table.u[k];
        if (u >= m || types[u] !== 'tool_call') continue;
        const w = old.pairs[u];
        if (w < 0) continue;
        for (let q = old.inStart[w]; q < old.inStart[w + 1]; q++) if (old.linkU[old.inLinks[q]] === u && old.linkKind[old.inLinks[q]] === LINK_CODE.tool_result) return true;
      }
    }
    return false;
  }

  /**
   * tool_call -> tool_result pairs the trace states: a result's first incoming link from an unanswered
   * call. A result whose only stated calls are answered already is a later result of its call (a run in
   * the background: its launch, then the notification of its outcome): the call is answered by its
   * last result, and every one of them names the call (not when the call's id repeats: the link may
   * be meant for another event with that id). A result stated to answer a delegation (a
   * sub-agent's launch or report) is never paired with a tool call by guess.
   * @returns per position from {@link base} on, 1 for the results whose call the trace states, for {@link pairToolResults} to leave alone.
   */
  private pairStatedToolResults(): Uint8Array {
    const { types, events, repeats, pairs } = this.in_;
    const { table, base: m } = this;
    const stated = new Uint8Array(this.n - m);
    for (let v = m, n = this.n; v < n; v++) {
      if (types[v] !== 'tool_result') continue;
      let answered = -1;
      for (let k = table.firstIn(v - m); k !== -1; k = table.nextIn(k)) {
        const u = table.u[k];
        const type = types[u];
        if (type === 'tool_call' && pairs[u] === -1) {
          pairs[u] = v;
          pairs[v] = u;
          if (u < m) this.answeredOld.push(u);
          answered = -1;
          stated[v - m] = 1;
          break;
        }
        // (a call whose id repeats is no stated call: the link may name another event with its id)
        if (type === 'tool_call' && answered === -1 && !repeats.has(events.id(u))) answered = u;
        if (type === 'delegate') stated[v - m] = 1;
      }
      if (answered !== -1 && pairs[v] === -1) {
        pairs[answered] = v;
        if (answered < m) this.answeredOld.push(answered);
        pairs[v] = answered;
        stated[v - m] = 1;
      }
    }
    return stated;
  }

  /** The other results: the oldest unanswered call of the same tool, else (no tool name) of the same agent, else of any agent. */
  private pairToolResults(stated: Uint8Array): void {
    const { types, events, pairs } = this.in_;
    const { pending, pendingAny, base: m } = this;
    for (let i = m, n = this.n; i < n; i++) {
      const type = types[i];
      if (type === 'tool_call' && pairs[i] === -1) {
        const key = events.tool(i) ?? '';
        let q = pending.get(key);
        if (!q) pending.set(key, (q = []));
        q.push(i);
        pendingAny.push(i);
      } else if (type === 'tool_result' && pairs[i] === -1 && stated[i - m] === 0) {
        const tool = events.tool(i);
        let u: number | undefined;
        if (tool !== undefined) {
          const q = pending.get(tool);
          while (q && q.length && pairs[q[0]] !== -1) q.shift();
          u = q?.shift();
        }
        if (u === undefined) u = this.oldestUnanswered(events.agent(i), tool);
        if (u !== undefined) {
          pairs[u] = i;
          pairs[i] = u;
          if (u < m) this.answeredOld.push(u);
          this.link(u, i, LINK_CODE.tool_result);
        }
        while (pendingAny.length && pairs[pendingAny[0]] !== -1) pendingAny.shift();
      }
    }
  }

  /** The oldest unanswered call in the pending list of `agent`, else of any agent (of `tool` when it has one). */
  private oldestUnanswered(agent: string, tool: string | undefined): number | undefined {
    const { events, pairs } = this.in_;
    const pendingAny = this.pendingAny;
    let k = pendingAny.findIndex((c) => pairs[c] === -1 && events.agent(c) === agent);
    if (k === -1) k = pendingAny.findIndex((c) => pairs[c] === -1 && (tool === undefined || events.tool(c) === tool));
    return k === -1 ? undefined : pendingAny[k];
  }

  /** spawn / return / message delivery -> the receiving agent's next event (appended: the old hand-offs not delivered yet first). */
  private linkHandoffs(): void {
    for (const i of this.old?.undelivered ?? []) this.linkHandoff(i);
    for (let i = this.base, n = this.n; i < n; i++) if (HANDOFF_TYPES.has(this.in_.types[i])) this.linkHandoff(i);
  }

  /** Hand-off `i` (see {@link linkHandoffs}). */
  private linkHandoff(i: number): void {
    const to = this.receiver(i);
    if (!to) return;
    const next = this.in_.nextInLane(to, i);
    if (next === -1) this.undelivered.push(i);
    else {
      const type = this.in_.types[i];
      this.link(i, next, type === 'spawn' ? LINK_CODE.spawn : type === 'return' ? LINK_CODE.return : LINK_CODE.delivery);
    }
  }

  /** Lane succession into the positions from {@link base} on: each agent's previous event -> its next. */
  private linkLanes(): void {
    const m = this.base;
    for (const lane of this.in_.lanes.values()) {
      // a lane's positions ascend: its first one at or after the base (after m - 1), by binary search when appended
      let k = m === 0 ? 1 : Math.max(1, upperBound(lane, m - 1));
      for (; k < lane.length; k++) this.link(lane[k - 1], lane[k], LINK_CODE.lane);
    }
  }

  /** An event with no cause but its own lane's previous event answers the previous event of the trace. */
  private linkImplicit(): void {
    const { events } = this.in_;
    const { table, base: m } = this;
    for (let v = Math.max(1, m), n = this.n; v < n; v++) {
      let onlyLane = true;
      for (let k = table.firstIn(v - m); k !== -1 && onlyLane; k = table.nextIn(k)) onlyLane = table.kind[k] === LINK_CODE.lane;
      if (onlyLane && events.agent(v - 1) !== events.agent(v)) this.link(v - 1, v, LINK_CODE.implicit);
    }
  }

  /** The position in [from, to] (clipped to the trace) of an event carrying `id`, nearest `to` first, or -1. */
  private near(id: string, from: number, to: number): number {
    const { events } = this.in_;
    for (let p = Math.min(to, events.length - 1); p >= Math.max(from, 0); p--) if (events.id(p) === id) return p;
    return -1;
  }
}

/** The typed array a receiver column of `lanes` lanes is made of: as narrow as its lane numbers + 1 allow. */
function receiverKind(lanes: number): typeof Uint8Array | typeof Uint16Array | typeof Int32Array {
  return lanes < 0xff ? Uint8Array : lanes < 0xffff ? Uint16Array : Int32Array;
}
