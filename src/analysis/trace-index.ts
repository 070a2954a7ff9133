/**
 * TraceIndex: the trace as the analyses need it, built once in O(n log n) (the sort) + O(n + links).
 *
 * - time order: events sorted by `t`, ties kept in file order; every other array is indexed by
 *   this position;
 * - lanes: agent -> positions of its events;
 * - causal DAG: links u -> v (u before v) from, in this order,
 *   1. the trace's edges (any of the 8 types), 2. `parent`, 3. `causes[]`,
 *   4. tool_call -> tool_result (an explicit link, else the oldest unanswered call of the same tool),
 *   5. spawn -> first later event of the spawned agent (`to`), return/message/delegate -> next event
 *      of the receiving agent (`to`), 6. lane succession (an agent's previous event -> its next),
 *   7. for an event with no incoming link but its lane's: the previous event of the trace (a chat
 *      turn answers the turn before it). Links 4-7 are derived and carry less weight for credit.
 *   Links that would point backwards in time order are dropped (counted), so the graph is a DAG.
 *   index-links.ts makes them (for a followed trace's append, only the new events' when the old stand).
 * - fingerprints: agent + canonical type + target + hash of normalized content, each named by the
 *   position of its first event (so it tells where an event's content was first seen);
 *   events with neither content nor content_ref get a unique fingerprint (they cannot repeat).
 */
import { IdTable } from '../trace/id-table';
import { Arena } from './arena';
import type { LoadedTrace } from '../trace/model';
import { ObjectEventFields, type EventFields } from '../trace/event-fields';
import { NOT_AGENT_OUTPUT_KINDS, type CallStatus, type EdgeType, type EventKind, type EventType, type StopReason, type TraceEvent } from '../trace/schema';
import { recordsFailure } from '../shared/recorded-failure';
import { notAgentOutputOf } from './answer';
import { FingerprintTable } from './fingerprint-table';
import { edgeTypeOfCode, isExplicitCode, LINK_KINDS, rowsBySource, type LinkKind } from './link-table';
import { buildLinks, HANDOFF_TYPES, receiverOf, type LinkInputs, type ReceiverColumn } from './index-links';
import { COMMON, hashAndSalientIds, MAX_TEXT, normalizeContent, normalizedHash, salientTokens, stripLogNoise, type HashAndTokenIds } from './text';
import { TokenInterner } from './interner';
import { upperBound } from './sorted';
import { appendedOrder, timeOrder, timesOn } from './time-order';
import { grownTo, toolLanesKey, withRoom, type LaneCounts, type LaneLayout, type PrefixCarry, type TextMemos } from './prefix-carry';
import { PauseClock, withoutPauses, type Pause } from './pauses';

export type { LinkKind } from './link-table';

/** A causal link between two event positions (u before v in time order). */
export interface Link {
  u: number;
  v: number;
  kind: LinkKind;
  /** True for links the trace states (edges, parent, causes). */
  explicit: boolean;
  /** The edge's type, for links from the trace's edges. */
  edgeType?: EdgeType;
}

/** Agent names of code executors and terminals (AG2 `Computer_terminal`, Magentic-One `ComputerTerminal`). */
const TOOL_AGENT = /terminal|code_?executor|interpreter|sandbox|^tools?$/i;

/**
 * Bytes of typed-array memory reserved per event for the index and the analyses' scratch (arena.ts):
 * the index keeps about 100 per event, building it and the heaviest phase (credit) use about as
 * much again. Pages never written are never resident, so a generous reserve costs nothing.
 */
const ARENA_BYTES_PER_EVENT = 256;

/**
 * The fields beyond the schema that importers put on events and the analyses read: a stop's or
 * prompt's `scope`, a step's `phase`, a `synthetic` row, a stop's `background_running`, a local
 * command's `command_prompt`, a tool result's `exit_code` (the failure fields are read through {@link TraceIndex.failureRecorded}).
 */
export type ExtraField = 'phase' | 'scope' | 'synthetic' | 'background_running' | 'command_prompt' | 'exit_code';

/** Read-only index of a loaded trace. Positions are time-order indices into {@link events}. */
export class TraceIndex {
  readonly loaded: LoadedTrace;
  /**
   * The memory of the index's per-event typed arrays, and scratch for the analyses' phases (each
   * phase takes a mark and releases it when done; arena.ts says why and the rules: nothing made
   * here may reach the results).
   */
  readonly arena: Arena;
  /** The events' fields by position, in time order (read through the accessors, {@link event} and the columns). */
  private readonly events: EventFields;
  /** Canonical type per position. */
  readonly types: EventType[];
  /**
   * Per position, the event's time as the time order reads it (time-order.ts `eventTime`: `t`, 0 when not a
   * finite number), at least {@link size} entries. Read here, not from the events: the events have many
   * shapes, and a read of a decimal field from an object of many shapes makes a new number each time
   * (V8 boxes it), 16 MB of garbage per pass over a million events.
   */
  readonly time: Float64Array;
  /** Position -> index of the event in `loaded.trace.events`, or undefined when that is the position itself (no column of 0, 1, 2, ...). */
  private readonly fileIndex: Int32Array | undefined;
  private identityIndex?: Int32Array;
  /** True when the time order is the file order (`rawIndex` is 0, 1, 2, ...). */
  readonly inFileOrder: boolean;
  /** Event id -> position (first event with that id when ids repeat). */
  readonly pos: Pick<IdTable, 'get' | 'has'>;
  /** Positions of every event carrying an id that several events carry, ascending. */
  private readonly repeats: Map<string, number[]>;
  /** Agent -> positions of its events, in time order (views of one column in the arena). */
  readonly lanes = new Map<string, Int32Array>();
  /**
   * The links as flat arrays, link k from `linkU[k]` to `linkV[k]`, of kind `LINK_KINDS[linkKind[k]]`
   * and, for the trace's edges, edge type `edgeTypeOfCode(linkEdgeType[k])` (link-table.ts).
   * {@link links}, {@link incoming} and {@link outgoing} give the same as objects and lists.
   * Set once, by the build's link passes ({@link linkSteps}); never changed after.
   */
  linkU!: Int32Array;
  linkKind!: Uint8Array;
  linkEdgeType!: Uint8Array;
  /** Incoming links of v: `inLinks[inStart[v] .. inStart[v + 1])`, in the order they were made ({@link outgoing} gives the outgoing ones). Set once, as the links. */
  inStart!: Int32Array;
  inLinks!: Int32Array;
  /** A tool call's result position, a tool result's call position, else -1: one column for both ({@link resultOf}, {@link callOf}). */
  private readonly pairs: Int32Array;
  /**
   * Fingerprint per position: the position of the first event with the same fingerprint (itself
   * when new), or a unique negative number for opaque events. Equal fingerprints, equal numbers.
   */
  readonly fingerprints: Int32Array;
  /**
   * The salient token ids of the contents read at the build with their fingerprints' hash, in one
   * pass (text.ts `hashAndSalientIds`), for credit's content links (credit.ts), which read them
   * instead of the texts again: see {@link SalientScan}.
   */
  readonly salientScan: SalientScan;
  /** Normalized content per position, computed when first asked (see {@link normalizedContent}). */
  private readonly normalized = new Map<number, string>();
  /** Per position, the position its `parent` names (as {@link resolve} finds it), -1 when it names none that an event carries or has no `parent`; set once, with the links. */
  private parentColumn!: Int32Array;
  /** Receiver per position: its lane number + 1, 0 for none (see {@link receiver}); 1 byte per event when there are fewer than 255 lanes. */
  private receivers!: ReceiverColumn;
  /** Per position, its lane number (one lane per agent, numbered in order of first appearance); at least {@link size} entries. */
  readonly laneOf: Int32Array;
  /** Agent of each lane, by lane number (numbered in order of first appearance; {@link laneNumbers}). */
  private readonly laneNames: string[];
  /** Agent -> its lane number. */
  private readonly laneNumbers: Map<string, number>;
  /** Count of links dropped because they pointed backwards or at unknown ids. */
  dropped = 0;
  /** Positions whose index columns came from a growing trace's carry (prefix-carry.ts), 0 for none; and whether a new event carries one of their ids. */
  private carriedFrom = 0;
  private repeatsOld = false;
  /**
   * Lanes that only answer tool calls: no tool call, delegation, spawn, aggregate or decision of
   * their own, and at least half tool results or a terminal/executor name (AG2 `Computer_terminal`).
   */
  readonly toolLanes = new Set<string>();
  /**
   * Number of events no agent wrote: rows the harness injected, synthetic rows and placeholders
   * (`kind` in NOT_AGENT_OUTPUT_KINDS). When 0, the analyses that leave them out need not look.
   */
  injected = 0;
  /**
   * Per position, the answers of text tests the analyses ask again and again, filled when first
   * asked: 0 = not asked yet, 1 = yes, 2 = no (answer.ts `isAgentOutput`, stops.ts).
   */
  readonly memo: TextMemos & { plainHead: Uint8Array };
  /**
   * The task statement's position the `ownWords` memo was filled for (answer-statement.ts: an
   * event restating the task is not the agent's own words); -2 while that memo is empty.
   */
  ownWordsTask = -2;

  /**
   * @param carry per-position results of an earlier analysis of the same events (a growing trace:
   *   prefix-carry.ts), read for its first `carry.count` positions and written for the others.
   * @param links `now`: the index is whole when made; `later`: its receivers and links are made by
   *   {@link linkSteps}, which must run before the index is read ({@link TraceIndex.build}).
   */
  constructor(
    loaded: LoadedTrace,
    readonly carry?: PrefixCarry,
    links: 'now' | 'later' = 'now',
  ) {
    this.loaded = loaded;
    const raw = loaded.eventFields ?? new ObjectEventFields(loaded.trace.events);
    const n = raw.length;
    const reserve = ARENA_BYTES_PER_EVENT * n + 16 * loaded.trace.edges.length;
    const arena = (this.arena = carry ? carry.arenaFor(reserve) : new Arena(reserve));
    // a growing trace's index columns of the positions carried (prefix-carry.ts), when its time order goes on in file order
    const offered = carry?.index && carry.index.types.length === carry.count && carry.count <= n ? carry.index : undefined;
    if (carry) carry.index = undefined; // made again below for this index's positions
    // the time order first (its scratch given back): in file order, no column of file indices is kept
    const appended = offered && appendedOrder(raw, offered.types);
    const sorted = appended ? undefined : timeOrder(raw, arena, carry !== undefined);
    const order = appended || sorted!;
    const carried = appended ? offered : undefined;
    const from = carried ? carry!.count : 0;
    this.time = carried ? timesOn(carried.time, raw, from) : sorted!.time;
    this.carriedFrom = from;
    // The columns the index keeps come first in the arena; each build step's scratch after them, given back when done.
    this.fileIndex = order.inFileOrder ? undefined : arena.int32(n);
    this.fileIndex?.set(order.order!);
    this.pairs = arena.int32(n, -1);
    // a followed trace's fingerprints go on in its table's own column when it has room (the old ones stay as they
    // are: the table counts the new ones once the analysis is kept), else in the arena, the old ones copied (4 MB at 1M)
    const table = this.fingerprintTable(n);
    this.fingerprints = table.column.length >= n ? table.column.subarray(0, n).fill(0, table.scanned) : arena.int32(n);
    // (a followed trace's lanes are laid out in its carry's column)
    const follows = carry !== undefined && order.inFileOrder;
    const laneColumn = follows ? undefined : arena.int32(n);
    // a growing trace's lane numbers of the positions carried, the new ones' written below
    this.laneOf = carried ? grownTo(carried.laneOf, n, from, (size) => new Int32Array(size)) : arena.int32(n);
    // plainHead: 1 when the head of the content (or content_ref) is ASCII without a date, 2 when not; set with the fingerprints
    // the text tests' memos of the positions the carry holds go on from its (prefix-carry.ts says which are valid when):
    // in the carry's own arrays when they have room, the rest zeroed (the carry holds none of them until this analysis is
    // kept: one ended early leaves no memos), else copied into the arena (6 MB at each append at 1M)
    const memos = carry?.memos && carry.count > 0 ? carry.memos : undefined;
    if (carry && memos) carry.takeMemos();
    const known = memos ? Math.min(carry!.count, n) : 0;
    const memoFrom = (column: (m: TextMemos) => Uint8Array) => {
      const kept = memos && column(memos);
      return !kept ? arena.uint8(n) : kept.length >= n ? kept.subarray(0, n).fill(0, known) : arena.grownUint8(kept.subarray(0, known), n);
    };
    this.memo = {
      agentOutput: memoFrom((m) => m.agentOutput),
      completionClaim: memoFrom((m) => m.completionClaim),
      impasse: memoFrom((m) => m.impasse),
      stateChange: memoFrom((m) => m.stateChange),
      ownWords: memoFrom((m) => m.ownWords),
      explicitAnswer: memoFrom((m) => m.explicitAnswer),
      plainHead: arena.uint8(n),
    };
    this.salientScan = salientScanOf(arena, carry, n);
    const scratch = arena.mark();
    // Each pass below is a method of its own: a function made of several long loops is compiled
    // loop by loop and thrown back to the interpreter at the start of each next loop, on every call.
    ({ events: this.events, types: this.types, inFileOrder: this.inFileOrder } = order);

    const source = carried?.source ?? { events: this.events };
    source.events = this.events;
    this.repeats = carried?.repeats ?? new Map();
    const ids = this.indexIds(carried?.ids ?? new IdTable(n, (i) => source.events.id(i)), from);
    this.pos = ids;
    this.laneNames = carried?.laneNames ?? [];
    this.laneNumbers = carried?.laneNumbers ?? new Map();
    const laneOf = this.laneOf;
    const lanes = this.indexLanes(laneOf, laneColumn, from, carried?.lanes);
    this.indexFingerprints(laneOf, table);
    if (follows) {
      // kept for the next index of the same events and more (the laneOf of a first index is scratch: copied, with room)
      const keptLaneOf = carried ? laneOf : grownTo(laneOf, Math.ceil(n * 1.25) + 1, n, (size) => new Int32Array(size));
      const keptTime = carried ? this.time : grownTo(this.time, Math.ceil(n * 1.25) + 1, n, (size) => new Float64Array(size));
      carry.index = { types: this.types, time: keptTime, ids, source, repeats: this.repeats, laneNames: this.laneNames, laneNumbers: this.laneNumbers, laneOf: keptLaneOf, lanes };
    }
    const counts = this.findToolLanes(laneOf, from, carried?.laneCounts);
    if (carry?.index) carry.index.laneCounts = counts;
    arena.release(scratch);
    this.carryMemos(memos);
    if (links === 'now') withoutPauses(this.linkSteps(new PauseClock(Infinity)));
  }

  /**
   * The index of `loaded` (as `new TraceIndex(loaded, carry)`), made in steps: it yields `pause`
   * between its link passes when `clock` says so (pauses.ts), so the engine's worker answers the
   * graph while a followed trace's index is made (its links were one block of 250-400 ms at 1M
   * events). Ended early (`return()`), it frees what it made.
   */
  static *build(loaded: LoadedTrace, carry: PrefixCarry | undefined, clock: PauseClock): Generator<Pause, TraceIndex, void> {
    const index = new TraceIndex(loaded, carry, 'later');
    let built = false;
    try {
      if (clock.due()) yield* clock.pause();
      yield* index.linkSteps(clock);
      built = true;
      return index;
    } finally {
      if (!built) index.free();
    }
  }

  /**
   * The receivers and the causal links of the events, in the order of the module comment (index-links.ts):
   * the last part of the build, a pause between two passes when `clock` says so. A followed trace's
   * links of the events the carry holds are carried when they stand (index-links.ts says when).
   */
  private *linkSteps(clock: PauseClock): Generator<Pause, void, void> {
    const carry = this.carry;
    const offered = carry?.indexLinks;
    if (carry) carry.indexLinks = undefined; // made again below for this index's positions
    const inputs: LinkInputs = {
      loaded: this.loaded,
      events: this.events,
      types: this.types,
      arena: this.arena,
      pos: this.pos,
      repeats: this.repeats,
      lanes: this.lanes,
      laneNames: this.laneNames,
      laneNumbers: this.laneNumbers,
      pairs: this.pairs,
      resolve: (id, v) => this.resolve(id, v),
      nextInLane: (agent, i) => this.nextInLane(agent, i),
    };
    const carried = offered && this.carriedFrom > 0 ? { links: offered, from: this.carriedFrom, repeatsOld: this.repeatsOld } : undefined;
    const { built, carry: next } = yield* buildLinks(inputs, clock, carried, carry !== undefined && this.inFileOrder);
    if (carry && next) carry.indexLinks = next;
    ({ receivers: this.receivers, parentColumn: this.parentColumn, handoffsName: this.handoffsName, dropped: this.dropped } = built);
    ({ linkU: this.linkU, linkKind: this.linkKind, linkEdgeType: this.linkEdgeType, inStart: this.inStart, inLinks: this.inLinks } = built);
    this.linksMade = { how: built.how, reason: built.reason, answeredOld: built.answeredOld, stand: built.stand };
  }

  /**
   * How the links were made: whole, or the old events' carried and the new ones' made (index-links.ts),
   * and why; `answeredOld` the old tool calls a new event answers, `stand` how many first positions
   * keep the links the carry held (index-links.ts BuiltLinks: 0 when nothing was carried).
   */
  linksMade: { how: 'whole' | 'appended'; reason: string; answeredOld: readonly number[]; stand: number } = { how: 'whole', reason: 'not made yet', answeredOld: [], stand: 0 };

  /** Position of the first event with the fingerprint of the event at `i` (itself when new or opaque). */
  firstSeen(i: number): number {
    const fp = this.fingerprints[i];
    return fp < 0 ? i : fp;
  }

  /**
   * Fills {@link toolLanes}: a lane of tool results (at least half its events) that never acts, or
   * named as a tool. Counted per lane from the positions (`laneOf`), from `from` on over the counts
   * of the positions before (a growing trace's carry: an append counts its new events alone).
   * @returns the counts per lane number (its own arrays with room, to keep for the next index).
   */
  private findToolLanes(laneOf: Int32Array, from: number, counted: LaneCounts | undefined): LaneCounts {
    const lanes = this.laneNames.length;
    const room = (size: number) => new Int32Array(withRoom(size));
    const results = counted ? grownTo(counted.results, lanes, counted.results.length, room) : room(lanes);
    const acts = counted ? grownTo(counted.acts, lanes, counted.acts.length, room) : room(lanes);
    for (let i = counted ? from : 0, n = this.size; i < n; i++) {
      const type = this.types[i];
      if (type === 'tool_result') results[laneOf[i]]++;
      else if (type === 'tool_call' || type === 'delegate' || type === 'spawn' || type === 'aggregate' || type === 'orchestrator_decision') acts[laneOf[i]]++;
    }
    for (const [agent, lane] of this.lanes) {
      const no = this.laneNumbers.get(agent)!;
      if (acts[no] === 0 && ((results[no] > 0 && results[no] * 2 >= lane.length) || TOOL_AGENT.test(agent))) this.toolLanes.add(agent);
    }
    return { results, acts };
  }

  /**
   * id -> first position: set from the last event back, one table operation per event (a set that
   * finds the id is an id carried again); then the positions of each repeated id.
   * @param pos the table to fill (it reads the ids from this index's events: no list of a million id strings).
   * @param from positions before it are in `pos` and {@link repeats} already (a growing trace's carry): only the others are added.
   */
  private indexIds(pos: IdTable, from: number): IdTable {
    const n = this.events.length;
    if (from > 0) {
      for (let i = from; i < n; i++) {
        const id = this.events.id(i);
        if (pos.add(id, i)) continue;
        if (pos.get(id)! < from) this.repeatsOld = true;
        const list = this.repeats.get(id);
        if (list) list.push(i);
        else this.repeats.set(id, [pos.get(id)!, i]);
      }
      return pos;
    }
    let repeated: Set<string> | undefined;
    for (let i = n - 1; i >= 0; i--) {
      const id = this.events.id(i);
      if (!pos.set(id, i)) (repeated ??= new Set()).add(id);
    }
    if (!repeated) return pos;
    for (let i = 0; i < n; i++) {
      const id = this.events.id(i);
      if (!repeated.has(id)) continue;
      const list = this.repeats.get(id);
      if (list) list.push(i);
      else this.repeats.set(id, [i]);
    }
    return pos;
  }

  /**
   * Lanes: each agent's positions as a view of one column (lanes one after the other, in order of
   * first appearance); `laneOf` gets each position's lane number (from `from` on: the positions
   * before hold theirs, and their lanes are numbered, from a growing trace's carry). A followed
   * trace's column is its carry's (prefix-carry.ts `LaneLayout`): the new positions go after their
   * lane's while it has room and no lane is new; else all are laid out again, with room. Counted
   * first, then filled: no list grows.
   * @param column a trace analysed once lays its lanes out here (n entries, no room), a followed
   *   one has none; @param kept a followed trace's layout, laid out up to `from`.
   * @returns the layout of a followed trace (to keep).
   */
  private indexLanes(laneOf: Int32Array, column: Int32Array | undefined, from: number, kept: LaneLayout | undefined): LaneLayout | undefined {
    const n = this.events.length;
    for (let i = from; i < n; i++) {
      const agent = this.events.agent(i);
      let no = this.laneNumbers.get(agent);
      if (no === undefined) {
        this.laneNumbers.set(agent, (no = this.laneNames.length));
        this.laneNames.push(agent);
      }
      laneOf[i] = no;
    }
    const lanes = this.laneNames.length;
    const layout = (kept && kept.count === from && kept.start.length === lanes && layOn(kept, laneOf, from, n)) || layOut(laneOf, n, lanes, column);
    for (let no = 0; no < lanes; no++) this.lanes.set(this.laneNames[no], layout.column.subarray(layout.start[no], layout.start[no] + layout.size[no]));
    return column ? undefined : layout;
  }

  /**
   * Fingerprints (fingerprint-table.ts: each the position of the first event with the same agent,
   * canonical type, target and hash of the normalized content), and the count of {@link injected}
   * events (one pass). A growing trace's carry (prefix-carry.ts) holds the table that numbered the
   * positions it holds: their fingerprints are copied and only the new positions are scanned.
   * @param laneOf each position's lane number.
   */
  private indexFingerprints(laneOf: Int32Array, table: FingerprintTable): void {
    const n = this.events.length;
    const carry = this.carry;
    const from = table.scanned;
    if (this.fingerprints.buffer !== table.column.buffer) this.fingerprints.set(table.column.subarray(0, from));
    this.injected = table.injected;
    carry?.reserveHashes(n);
    if (carry && from > 0) this.memo.plainHead.set(carry.plain.subarray(0, from));
    const scan = this.salientScan;
    // the ids are written in place (room for each text's is made sure of first: the list is never grown)
    const read: HashAndTokenIds = { ids: scan.ids, hash: 0 };
    // each event's prefix and content hash first, its fingerprint in a loop of its own (the table's misses overlap there)
    const keys = this.arena.int32(2 * (n - from));
    const events = this.events;
    for (let i = from; i < n; i++) {
      // counted here, where the event is read anyway (a pass of its own reads a million events again)
      const kind = events.kind(i);
      if (kind !== undefined && NOT_AGENT_OUTPUT_KINDS.has(kind)) this.injected++;
      const content = events.content(i);
      const text = typeof content === 'string' ? content : this.contentRef(i);
      if (text === undefined) {
        this.fingerprints[i] = -1 - i;
        continue;
      }
      const hash = typeof content === 'string' && i >= scan.from ? this.hashAndSalient(content, i, read) : undefined;
      const k = 2 * (i - from);
      keys[k] = table.prefix(laneOf[i], this.types[i], events.to(i) ?? events.tool(i) ?? '');
      keys[k + 1] = hash ?? this.contentHash(text, i);
      this.fingerprints[i] = 0; // (not negative: numbered below; an event without content keeps its -1 - i)
    }
    for (let i = from; i < n; i++) {
      const k = 2 * (i - from);
      if (this.fingerprints[i] >= 0) this.fingerprints[i] = table.first(i, keys[k], keys[k + 1]);
    }
    if (carry) {
      // kept for the next analysis; counts once it commits (a table that scanned further than the carry's count is made again)
      table.injected = this.injected;
      table.keep(this.fingerprints, n);
    }
  }

  /** The fingerprint table of {@link indexFingerprints}: a followed trace's carry's (made again when it does not hold the carry's positions), else one in the arena. */
  private fingerprintTable(n: number): FingerprintTable {
    const carry = this.carry;
    if (!carry) return new FingerprintTable(n, this.arena);
    const table = carry.fingerprints;
    if (table && table.scanned === carry.count && carry.count <= n) return table;
    return (carry.fingerprints = new FingerprintTable(n));
  }

  /**
   * The content hash of position `i` (at or past the salient scan's `from`, not held by the carry),
   * with its salient token ids kept in {@link salientScan} when the text is read in one pass and
   * they fit; undefined when it is not (the caller hashes it alone: its ids are found by credit).
   */
  private hashAndSalient(content: string, i: number, read: HashAndTokenIds): number | undefined {
    const scan = this.salientScan;
    // at most one token per two characters: room for all of them, in the ids and in an interner that must not grow
    const most = (Math.min(content.length, MAX_TEXT) >> 1) + 1;
    if (scan.used + most > scan.ids.length || (scan.bounded && scan.tokens.size + most > scan.tokens.capacity)) return undefined;
    const count = hashAndSalientIds(content, scan.tokens, read, scan.used);
    if (count < 0) return undefined;
    const k = i - scan.from;
    scan.start[k] = scan.used;
    scan.used += count;
    scan.count[k] = count + 1;
    this.memo.plainHead[i] = 1;
    const hash = read.hash | 0;
    const carry = this.carry;
    if (carry) {
      carry.hash[i] = hash;
      carry.plain[i] = 1;
    }
    return hash;
  }

  /** Fills the text-test memos of the positions the carry holds (prefix-carry.ts says which are valid when). */
  private carryMemos(memos: PrefixCarry['memos']): void {
    const carry = this.carry;
    if (!carry || !memos || carry.count === 0) return;
    const n = Math.min(carry.count, this.size);
    // (the memos were made holding the carry's: see the constructor; agent output stands while the tool lanes do)
    this.ownWordsTask = memos.ownWordsTask;
    if (memos.toolLanes !== toolLanesKey(this.toolLanes)) this.memo.agentOutput.fill(0, 0, n);
  }

  /** `normalizedHash` of the content at position `i` (setting its `plainHead` memo): from the carry when it holds it, else made (and written to the carry). */
  private contentHash(text: string, i: number): number {
    const carry = this.carry;
    if (carry === undefined) return normalizedHash(text, this.memo.plainHead, i) | 0;
    if (i < carry.count) {
      this.memo.plainHead[i] = carry.plain[i];
      return carry.hash[i];
    }
    const hash = normalizedHash(text, this.memo.plainHead, i) | 0;
    carry.hash[i] = hash;
    carry.plain[i] = this.memo.plainHead[i];
    return hash;
  }

  /**
   * Gives the memory of the index's typed arrays back to the system at once (arena.ts), for an
   * index made for one analysis; or to the carry of a followed trace, which keeps it for the next
   * analysis (prefix-carry.ts). The index must not be used after it.
   */
  free(): void {
    // a carry's arena is emptied when it hands it to the next index (PrefixCarry.arenaFor)
    if (!this.carry?.owns(this.arena)) this.arena.free();
  }

  /** The position of the result of the tool call at `i`, or -1 (not a tool call, or unanswered). */
  resultOf(i: number): number {
    return this.types[i] === 'tool_call' ? this.pairs[i] : -1;
  }

  /** The position of the call the tool result at `i` answers, or -1 (not a tool result, or unpaired). */
  callOf(i: number): number {
    return this.types[i] === 'tool_result' ? this.pairs[i] : -1;
  }

  /** Number of links. */
  get linkCount(): number {
    return this.linkU.length;
  }

  private linkTargets?: Int32Array;

  /** Link k's target position, `linkV[k]` (made when first asked from the incoming rows: the analyses walk the rows). */
  get linkV(): Int32Array {
    if (this.linkTargets) return this.linkTargets;
    const targets = new Int32Array(this.linkU.length);
    for (let v = 0; v < this.size; v++) for (let q = this.inStart[v]; q < this.inStart[v + 1]; q++) targets[this.inLinks[q]] = v;
    return (this.linkTargets = targets);
  }

  private linkObjects?: Link[];
  private incomingLists?: number[][];
  private outgoingLists?: number[][];

  /** The links as objects (made when first asked; the analyses read the flat arrays). */
  get links(): Link[] {
    return (this.linkObjects ??= Array.from(this.linkU, (u, k) => {
      const kind = LINK_KINDS[this.linkKind[k]];
      const explicit = isExplicitCode(this.linkKind[k]);
      const edgeType = edgeTypeOfCode(this.linkEdgeType[k]);
      return edgeType ? { u, v: this.linkV[k], kind, explicit, edgeType } : { u, v: this.linkV[k], kind, explicit };
    }));
  }

  /** Position -> indices into {@link links} of its incoming links (made when first asked). */
  get incoming(): number[][] {
    return (this.incomingLists ??= rowLists(this.inStart, this.inLinks));
  }

  /** Position -> indices into {@link links} of its outgoing links (made when first asked). */
  get outgoing(): number[][] {
    if (this.outgoingLists) return this.outgoingLists;
    const { outStart, outLinks } = rowsBySource(this.linkU, this.size);
    return (this.outgoingLists = rowLists(outStart, outLinks));
  }

  get size(): number {
    return this.events.length;
  }

  /** Position -> index of the event in `loaded.trace.events` (file order), the key the editor and graph use ({@link at} reads one). */
  get rawIndex(): Int32Array {
    if (this.fileIndex) return this.fileIndex;
    return (this.identityIndex ??= identity(new Int32Array(this.size)));
  }

  /** The index in `loaded.trace.events` (file order) of the event at a position. */
  at(i: number): number {
    return this.fileIndex === undefined ? i : this.fileIndex[i];
  }

  /**
   * The whole event at a position (time order, 0 to {@link size} - 1), as the reader gave it: for
   * the fields no column holds, at a few positions (a pass over every event reads the columns:
   * {@link agentOf}, {@link types}, {@link time}, {@link tokens}).
   */
  event(i: number): TraceEvent {
    return this.events.event(i);
  }

  /** The agent of the event at a position (its lane's name). */
  agentOf(i: number): string {
    return this.laneNames[this.laneOf[i]];
  }

  /** The type of the event at a position as recorded (an alias kept: `communicate`; {@link types} holds the canonical ones). */
  recordedTypeOf(i: number): TraceEvent['type'] {
    return this.events.type(i);
  }

  /** The raw `t` of the event at a position (seconds, as recorded; {@link time} holds it as the time order reads it). */
  tOf(i: number): number {
    return this.events.t(i);
  }

  /** The `tool` of the event at a position, when it names one. */
  toolOf(i: number): string | undefined {
    return this.events.tool(i);
  }

  /** The `from` (the sender a record names) of the event at a position. */
  fromOf(i: number): string | undefined {
    return this.events.from(i);
  }

  /** The `to` (the receiver a record names, lane or not: {@link receiver} gives a lane's) of the event at a position. */
  toOf(i: number): string | undefined {
    return this.events.to(i);
  }

  /** The `role` of the event at a position. */
  roleOf(i: number): string | undefined {
    return this.events.role(i);
  }

  /** The `kind` of the event at a position (a harness row, a placeholder...: schema.ts EVENT_KINDS). */
  kindOf(i: number): EventKind | undefined {
    return this.events.kind(i);
  }

  /** The recorded `cost` of the event at a position, when it is a number. */
  costOf(i: number): number | undefined {
    const c = this.events.cost(i);
    return typeof c === 'number' ? c : undefined;
  }

  /** The `reason` of the stop at a position. */
  reasonOf(i: number): StopReason | undefined {
    return this.events.reason(i);
  }

  /** The credit a producer gave the event at a position (`credit`, a finite number), shown as given (credit.ts). */
  givenCreditOf(i: number): number | undefined {
    const c = this.events.credit(i);
    return typeof c === 'number' && Number.isFinite(c) ? c : undefined;
  }

  /** The `call_status` of the tool call at a position. */
  callStatusOf(i: number): CallStatus | undefined {
    return this.events.callStatus(i);
  }

  /** The recorded `duration_s` of the event at a position (seconds), when it is a number. */
  durationOf(i: number): number | undefined {
    const d = this.events.duration(i);
    return typeof d === 'number' ? d : undefined;
  }

  /** The id the `parent` of the event at a position names ({@link parentOf} gives its position). */
  parentIdOf(i: number): string | undefined {
    return this.events.parent(i);
  }

  /** The ids the `causes` of the event at a position name. */
  causesOf(i: number): readonly string[] | undefined {
    return this.events.causes(i);
  }

  /** A field beyond the schema that an importer put on the event at a position ({@link ExtraField}). */
  extraOf(i: number, key: ExtraField): unknown {
    return this.beyondFields(i)?.[key];
  }

  /** True when the event at a position is no agent's output: a user, harness or placeholder row (answer.ts `isNotAgentOutput`). */
  notAgentOutput(i: number): boolean {
    const events = this.events;
    return notAgentOutputOf(events.kind(i), events.type(i), events.from(i), this.beyondFields(i)?.synthetic);
  }

  /** True when the event at a position says it was still open when the trace was written (`open: true`: a span not ended). */
  isOpen(i: number): boolean {
    return this.beyondFields(i)?.open === true;
  }

  /** True when the event at a position records a failure in its fields (an error, `is_error`, a non-zero exit code: recorded-failure.ts). */
  failureRecorded(i: number): boolean {
    const event = this.beyondFields(i);
    return event !== undefined && recordsFailure(event);
  }

  /**
   * The whole event at a position when it may hold fields no accessor gives (importers' fields,
   * `open`, `value`...), else undefined: a column reader then reads no record (EventFields.hasMore).
   */
  private beyondFields(i: number): Record<string, unknown> | undefined {
    return this.events.hasMore(i) ? (this.events.event(i) as unknown as Record<string, unknown>) : undefined;
  }

  /** The id of the event at a position. */
  id(i: number): string {
    return this.events.id(i);
  }

  /** Source record (0-based index in its source's list) of the event at a position, or -1 (read from its origin: no column of them). */
  record(i: number): number {
    return this.loaded.eventOrigins.record(this.at(i)) ?? -1;
  }

  /** Tokens of the event at a position (0 when not recorded). */
  tokens(i: number): number {
    const v = this.events.tokens(i);
    return typeof v === 'number' && Number.isFinite(v) ? v : 0;
  }

  /** End time of the event at a position: `t + duration_s` (seconds). */
  end(i: number): number {
    const d = this.events.duration(i);
    return this.time[i] + (typeof d === 'number' ? d : 0);
  }

  private salientCache: (Set<string> | undefined)[] = [];

  /** Salient tokens of an event's content without log noise (cached; see text.ts). */
  salient(i: number): Set<string> {
    return (this.salientCache[i] ??= this.salientOnce(i));
  }

  /** Salient tokens of an event, from the cache when there, else made and not kept (a single pass over every event must not hold a set per event). */
  salientOnce(i: number): Set<string> {
    return this.salientCache[i] ?? salientTokens(stripLogNoise(this.content(i)));
  }

  /**
   * {@link normalizedContent} from the cache when there, else made and not kept: for a pass that
   * reads each event's once (at 1M events the cache of every agent output's text held about 25 MB
   * through the later phases of the analysis).
   */
  normalizedOnce(i: number): string {
    const s = this.normalized.get(i);
    if (s !== undefined) return s;
    const text = this.rawContent(i);
    return text === undefined ? '' : normalizeContent(text);
  }

  /** The normalized content or content_ref of an event (text.ts `normalizeContent`; '' when it has neither). Cached. */
  normalizedContent(i: number): string {
    let s = this.normalized.get(i);
    if (s === undefined) {
      const text = this.rawContent(i);
      this.normalized.set(i, (s = text === undefined ? '' : normalizeContent(text)));
    }
    return s;
  }

  /** The content of an event, else its content_ref (what fingerprints and normalized content are made of); undefined when it has neither. */
  rawContent(i: number): string | undefined {
    const content = this.events.content(i);
    return typeof content === 'string' ? content : this.contentRef(i);
  }

  /** The `content_ref` of the event at a position, when it is a string. */
  private contentRef(i: number): string | undefined {
    const ref = this.events.contentRef(i);
    return typeof ref === 'string' ? ref : undefined;
  }

  /** Content text of an event ('' when none). */
  content(i: number): string {
    const c = this.events.content(i);
    return typeof c === 'string' ? c : '';
  }

  /** True when the event is a hand-off between agents (message, delegate, return, spawn). */
  isHandoff(i: number): boolean {
    return HANDOFF_TYPES.has(this.types[i]);
  }

  /** The agent an event is addressed to, when it names one that has a lane (another than its own). */
  receiver(i: number): string | undefined {
    return receiverOf(this.receivers, this.laneNames, i);
  }

  /** True when some hand-off names a receiver that has a lane (else a chat's receiver is the next speaker). Set once, as the links. */
  handoffsName!: boolean;

  /**
   * The position an id names from position `v`: the event carrying it, or when several do, the
   * nearest one before `v` (else the first). Undefined when no event carries it.
   */
  resolve(id: string, v: number): number | undefined {
    const list = this.repeats.size === 0 ? undefined : this.repeats.get(id);
    if (!list) return this.pos.get(id);
    let best = list[0];
    for (const p of list) if (p < v) best = p;
    return best;
  }

  /** The position the `parent` of the event at `v` names (the nearest event before `v` carrying that id when several do, else the one that does), or -1 when it has none or no event carries it. */
  parentOf(v: number): number {
    return this.parentColumn[v];
  }

  /** True when some id is carried by several events. */
  get hasRepeatedIds(): boolean {
    return this.repeats.size > 0;
  }

  /** Parent positions of an event (any link kind), in the order its links were made. */
  parents(i: number): number[] {
    const out: number[] = [];
    for (let q = this.inStart[i]; q < this.inStart[i + 1]; q++) out.push(this.linkU[this.inLinks[q]]);
    return out;
  }

  /** Position of the first event of `agent` after position `i` (binary search in its lane), or -1. */
  nextInLane(agent: string, i: number): number {
    const lane = this.lanes.get(agent);
    if (!lane) return -1;
    const k = upperBound(lane, i);
    return k < lane.length ? lane[k] : -1;
  }

  /**
   * How many events of `agent` lie at or before position `i`: the place in its lane of its first
   * event after `i` (binary search; 0 for an agent without a lane). No column of lane places is kept.
   */
  laneCountTo(agent: string, i: number): number {
    const lane = this.lanes.get(agent);
    return lane ? upperBound(lane, i) : 0;
  }
}

/** Fills `out` with 0, 1, ..., n - 1; @returns it. */
function identity(out: Int32Array): Int32Array {
  for (let i = 0; i < out.length; i++) out[i] = i;
  return out;
}

/** Per row, the list of its entries from compressed rows. */
function rowLists(start: Int32Array, entries: Int32Array): number[][] {
  const out: number[][] = [];
  for (let i = 0; i + 1 < start.length; i++) out.push(Array.from(entries.subarray(start[i], start[i + 1])));
  return out;
}

/** Lanes up to which each lane of a followed trace gets room for at least 16 more positions. */
const ROOMY_LANES = 4096;

/**
 * The positions [from, n) written after their lanes' in `layout` (trace-index.ts `indexLanes`), when
 * every lane has room for them. @returns the layout, or undefined when a lane is full (then laid out again).
 */
function layOn(layout: LaneLayout, laneOf: Int32Array, from: number, n: number): LaneLayout | undefined {
  const { column, start, size, room } = layout;
  for (let i = from; i < n; i++) {
    const no = laneOf[i];
    if (size[no] === room[no]) return undefined;
    column[start[no] + size[no]++] = i;
  }
  layout.count = n;
  return layout;
}

/**
 * The lanes of positions [0, n) laid out, each lane's after the one before: into `column` with no
 * room (a trace analysed once), else into a column of its own with room for an eighth more in each
 * lane (at least 16 while the lanes are few: a trace of a million agents gets no room for nothing).
 */
function layOut(laneOf: Int32Array, n: number, lanes: number, column: Int32Array | undefined): LaneLayout {
  const size = new Int32Array(lanes);
  for (let i = 0; i < n; i++) size[laneOf[i]]++;
  const least = lanes <= ROOMY_LANES ? 16 : 0;
  const room = column ? size.slice() : size.map((k) => k + Math.max(least, k >> 3));
  const start = new Int32Array(lanes);
  let offset = 0;
  for (let no = 0; no < lanes; no++) {
    start[no] = offset;
    offset += room[no];
  }
  const out = column ?? new Int32Array(offset);
  const filled = start.slice();
  for (let i = 0; i < n; i++) out[filled[laneOf[i]]++] = i;
  return { count: n, column: out, start, size, room };
}

/**
 * Salient token ids read at an index's build (TraceIndex.salientScan): position `i` (at or past
 * `from`) has them when `count[i - from]` is not 0: `ids[start[i - from] .. + count[i - from] - 1)`,
 * ids of `tokens`, the interner credit's content links use (credit.ts: the index's own for an
 * analysis made whole; a followed trace's, the one its carry keeps when the links' scan goes on from
 * the carry's positions, else a new one that scan takes). In the arena's kept columns: {@link bounded}
 * says the interner was made there too and must not grow (ids are then read only while it has room).
 */
export interface SalientScan {
  tokens: TokenInterner;
  bounded: boolean;
  from: number;
  start: Int32Array;
  /** Per position from `from`: its ids' count + 1, or 0 when its text was not read here. */
  count: Uint16Array;
  ids: Int32Array;
  /** Ids written. */
  used: number;
  /** True once a content-link scan took the interner (a second scan of the same index takes one of its own: the first grew this one in its scratch). */
  taken: boolean;
}

/** Ids reserved per event read at the build (the 1M bench trace's contents have 4.7): past them the texts are left to credit's scan. */
const SALIENT_IDS_PER_EVENT = 8;

/**
 * The salient scan of an index of `n` events (see {@link SalientScan}), in its arena's kept columns:
 * from the carry's positions with the interner of the links' scan it keeps, when it keeps one that goes
 * on from there (credit.ts carriedContentLinks), else from the first position with a new interner.
 */
function salientScanOf(arena: Arena, carry: PrefixCarry | undefined, n: number): SalientScan {
  const kept = carry && carry.count > 0 && carry.count <= n ? carry.links : undefined;
  const from = kept ? carry!.count : carry ? Math.min(carry.count, n) : 0;
  const events = n - from;
  // (an interner outside the arena for a followed trace: its links' scan keeps it from one analysis to the next)
  const tokens = kept ? kept.tokens : carry ? new TokenInterner(COMMON, undefined, events) : new TokenInterner(COMMON, arena, n);
  return { tokens, bounded: !carry, from, start: arena.int32(events + 1), count: arena.uint16(events), ids: arena.int32(SALIENT_IDS_PER_EVENT * events + 64), used: 0, taken: false };
}
