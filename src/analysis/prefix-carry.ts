/**
 * What an analysis of a growing trace keeps for the next one: the per-event results that depend
 * only on the events up to that one in time order, so an append computes them for the new events
 * alone. All exact:
 *
 * - content hashes: per position the hash of its normalized content (text.ts `normalizedHash`) and
 *   whether the head of its text is plain (the `plainHead` memo);
 * - the fingerprints and the table that numbered them (fingerprint-table.ts), so the numbering
 *   goes on from the first new event;
 * - content links (credit.ts `contentLinks`): per position the earlier events that introduced the
 *   salient tokens it uses, and the tables that find them (the token interner, and per token the
 *   position that introduced it), so the scan goes on from the first new event;
 * - the tool calls' grouping by arguments (loops/tool-calls.ts) and the near-duplicate steps' scan
 *   (loops/similar-steps.ts, which says when it can go on);
 * - the loops finished (loops/finished-loops.ts: a loop found again with the same members, which
 *   says what else it compares);
 * - the hand-off streams (handoffs.ts: while the lanes are the same, as a new lane can be an old
 *   event's receiver);
 * - the text tests' memos ({@link TextMemos});
 * - the index's types, ids and lanes of the positions ({@link IndexCarry}), while the time order is the file order;
 * - the index's links into the positions and the columns made with them (index-links.ts `LinkCarry`,
 *   which says when they stand);
 * - the metrics' work, costs and critical-path chains of the positions (metrics.ts `MetricsCarry`);
 * - what the credit per event reads of each event (credit-per-event.ts `EventCreditFacts`), and the
 *   values it read and showed with its agents' sums (`CreditSumsCarry`);
 * - each position's parents in the credit's backward pass (credit-transitions.ts), while the index carries its links;
 * - the credit the rewards' seeds gave each position (credit-seeds.ts), while the seeds and those parents are the same;
 * - the state of the passes that read every event from the first (carried-sweep.ts: the state changes' positions, ...).
 *
 * Valid only while the first {@link PrefixCarry.count} positions hold the same events in the same
 * time order (src/analysis/follow.ts decides when; it drops the carry otherwise). Entries past
 * `count` are written by an analysis in progress and count only once it finished ({@link PrefixCarry.commit}).
 */
import type { IdTable } from '../trace/id-table';
import type { EventFields } from '../trace/event-fields';
import type { EventType } from '../trace/schema';
import { Arena } from './arena';
import type { CreditSumsCarry, EventCreditFacts } from './credit-per-event';
import type { CreditTransitions } from './credit-transitions';
import type { RewardCredit } from './credit-seeds';
import type { Sweep } from './carried-sweep';
import type { FingerprintTable } from './fingerprint-table';
import type { HandoffScan } from './handoffs';
import type { LinkCarry } from './index-links';
import type { MetricsCarry } from './metrics';
import type { TokenInterner } from './interner';
import type { StepScan } from './loops/similar-steps';
import type { ToolCallGrouping } from './loops/tool-calls';
import type { FinishedLoops } from './loops/finished-loops';

/**
 * Per-position answers of text tests the analyses ask again and again (0 = not asked yet, 1 = yes,
 * 2 = no): answer.ts `isAgentOutput`, stop-context.ts completion claims and impasses,
 * state-change.ts `isStateChange`, answer-statement.ts "own words" and whether an output states an
 * explicit answer (1: it may, the answer is read again; 2: it states none).
 */
export interface TextMemos {
  agentOutput: Uint8Array;
  completionClaim: Uint8Array;
  impasse: Uint8Array;
  stateChange: Uint8Array;
  ownWords: Uint8Array;
  explicitAnswer: Uint8Array;
}

/** The content links' scan state between analyses (see credit.ts `findContentLinks`). */
export interface LinkScan {
  tokens: TokenInterner;
  /** Token id -> position that introduced it (-1: not yet). */
  introducer: Int32Array;
  /** Token id -> last position that used it. */
  lastUse: Int32Array;
  /** Per position v (up to {@link PrefixCarry.count}), its links are `from[start[v] .. start[v + 1])` with their `count`. */
  start: Int32Array;
  from: Int32Array;
  count: Uint16Array;
}

/**
 * The index's per-position columns that depend only on each event (trace-index.ts), kept for an
 * index of the same events and more, while the time order is the file order: the next index reads
 * only the new events for them, and extends these (they are the next index's own).
 */
export interface IndexCarry {
  /** Canonical type per position. */
  types: EventType[];
  /** Time per position (its first entries; room to grow): TraceIndex `time`. */
  time: Float64Array;
  /** Event id -> first position; it reads the ids from `source.events` (the list of the index that uses it). */
  ids: IdTable;
  source: { events: EventFields };
  /** Positions of every event carrying an id that several events carry, ascending. */
  repeats: Map<string, number[]>;
  /** Agent of each lane by lane number (in order of first appearance), and the reverse. */
  laneNames: string[];
  laneNumbers: Map<string, number>;
  /** Lane number per position (its first entries; room to grow). */
  laneOf: Int32Array;
  /** Per lane number, its tool results and its acts (calls, delegations, spawns, aggregates, decisions): what makes a tool lane (trace-index.ts `findToolLanes`); set once the index found them. */
  laneCounts?: LaneCounts;
  /** Each lane's positions, laid out with room (trace-index.ts `indexLanes`). */
  lanes?: LaneLayout;
}

/**
 * Each lane's positions one lane after the other in one column, each lane with room to grow: an
 * append writes its new positions after their lane's, and lays all out again only when a lane is
 * full or a new one comes (a pass over every position at each append at 1M events was 10-13 ms).
 */
export interface LaneLayout {
  /** Positions laid out: [0, count). */
  count: number;
  column: Int32Array;
  /** Per lane number: where its positions start in {@link column}, how many there are, and room for how many. */
  start: Int32Array;
  size: Int32Array;
  room: Int32Array;
}

/** Per lane number, counts of its events of two kinds (trace-index.ts `findToolLanes`), with room to grow. */
export interface LaneCounts {
  results: Int32Array;
  acts: Int32Array;
}

/** The per-position results kept between analyses of a growing trace (see the module's comment). */
export class PrefixCarry {
  /** Positions whose entries are valid (0: nothing carried yet). */
  count = 0;
  /** Per position, `normalizedHash` of its content (0 for an event without content). */
  hash = new Int32Array(0);
  /** Per position, the `plainHead` memo that hash set (trace-index.ts). */
  plain = new Uint8Array(0);
  /** The content links' scan, once a credit analysis made them. */
  links?: LinkScan;
  /**
   * The index's text-test memos of the positions (trace-index.ts `memo`: 0 not asked, 1 yes, 2 no):
   * completion claims, impasses, state changes and explicit answers depend on an event's own fields
   * alone; agent output also on which lanes are tool lanes, so it is carried only while those are the
   * same (`toolLanes`, sorted and joined); "own words" on the task statement's position
   * (`ownWordsTask`, the first event with content: it stays while events are only appended).
   */
  memos?: TextMemos & { toolLanes: string; ownWordsTask: number };
  /** The arrays of the memos while an analysis writes them (taken: {@link takeMemos}), for the next commit to keep them in. */
  private memoRoom?: TextMemos;
  /** The fingerprints of the positions and the table that numbered them (trace-index.ts), once an analysis made them. */
  fingerprints?: FingerprintTable;
  /**
   * The near-duplicate steps' scan (loops/similar-steps.ts), with the tool lanes (joined as
   * {@link toolLanesKey} does) and the number of lanes it read: it goes on only while they are the same.
   */
  steps?: { scan: StepScan; toolLanes: string; lanes: number };
  /** The tool calls grouped by arguments (loops/tool-calls.ts), once an analysis made them. */
  toolCalls?: ToolCallGrouping;
  /** The index's columns of the positions (see {@link IndexCarry}), once an index in file order made them. */
  index?: IndexCarry;
  /** The index's links of the positions (index-links.ts), once an index in file order made them. */
  indexLinks?: LinkCarry;
  /** The metrics' work, costs and chains of the positions (metrics.ts `MetricsCarry`), once an analysis made them. */
  metrics?: MetricsCarry;
  /** What the credit per event reads of each event (credit-per-event.ts), once an analysis made it. */
  credit?: EventCreditFacts;
  /** What the credit per event's pass read and showed, and its agents' sums (credit-per-event.ts), once an analysis made them. */
  creditSums?: CreditSumsCarry;
  /** Each position's parents in the credit's backward pass (credit-transitions.ts), once an analysis gathered them. */
  transitions?: CreditTransitions;
  /** The values the rewards' seeds gave in credit's backward pass (credit-seeds.ts), once an analysis of a trace with rewards passed them back. */
  rewardCredit?: RewardCredit;
  /** The positions the outcome's mass reached (and left some of its credit at) in credit's last backward pass (credit.ts). */
  outcomeReach?: Int32Array;
  /** The outcome's backward pass's scratch (a mass per position, with room), all zeros between passes (credit.ts). */
  outcomeMass?: Float64Array;
  /** The loops the last analysis finished (loops/finished-loops.ts), once one finished its loops. */
  loops?: FinishedLoops;
  /** The hand-off streams' scans (handoffs.ts), by kind of stream, once an analysis made them. */
  handoffs?: Map<string, HandoffScan>;
  /** The sweeps of the passes that read every event from the first (carried-sweep.ts), by name. */
  readonly sweeps = new Map<string, Sweep>();

  /**
   * The memory of the index of each analysis of the trace (arena.ts), kept from one to the next: a
   * followed trace is analysed again at each append, and giving a 1M-event index's pages back to
   * the system and taking them again cost 0.1-0.2 s per append. {@link free} gives it back.
   */
  private arena: Arena | undefined;

  /**
   * The arena for an index that reserves `bytes`: the one kept when it is large enough (emptied:
   * its views are handed out again), else a new one with a quarter to spare for the appends to come.
   */
  arenaFor(bytes: number): Arena {
    if (this.arena && this.arena.reserved >= bytes) {
      this.arena.release({ chunk: 0, offset: 0 });
      return this.arena;
    }
    this.arena?.free();
    return (this.arena = new Arena(Math.ceil(bytes * 1.25)));
  }

  /** True when `arena` is the one this carry keeps (an index made with it gives it back here, not to the system). */
  owns(arena: Arena): boolean {
    return arena === this.arena;
  }

  /** Gives the kept arena's memory back to the system (the carry is no longer used). */
  free(): void {
    this.arena?.free();
    this.arena = undefined;
  }

  /** Makes room for `n` positions' hashes (keeps the ones there). */
  reserveHashes(n: number): void {
    if (this.hash.length >= n) return;
    const size = Math.max(withRoom(n), Math.ceil(this.hash.length * 1.5));
    const hash = new Int32Array(size);
    hash.set(this.hash);
    const plain = new Uint8Array(size);
    plain.set(this.plain);
    this.hash = hash;
    this.plain = plain;
  }

  /**
   * Takes the memos for an index to write in place: the carry holds none until the next {@link commit}
   * (an analysis ended early leaves memos that may not stand), and keeps their arrays for it.
   */
  takeMemos(): void {
    this.memoRoom = this.memos;
    this.memos = undefined;
  }

  /**
   * Marks the first `n` positions valid: the analysis that wrote them finished.
   * @param memos the index's memos after that analysis (kept as they are when the index wrote them in the carry's own
   *   arrays, else their first `n` entries copied into arrays with room), and its tool lanes.
   */
  commit(n: number, memos: TextMemos, toolLanes: ReadonlySet<string>, ownWordsTask: number): void {
    this.count = n;
    // into the last commit's arrays when they have room (six new arrays of n bytes at each append were garbage for the
    // collector), nothing copied when the index wrote them there (trace-index.ts)
    const last = this.memos ?? this.memoRoom;
    this.memoRoom = undefined;
    const copy = (into: Uint8Array | undefined, from: Uint8Array) => (into !== undefined && from.buffer === into.buffer && from.byteOffset === into.byteOffset ? into : kept(into, from.subarray(0, n)));
    this.memos = {
      completionClaim: copy(last?.completionClaim, memos.completionClaim),
      impasse: copy(last?.impasse, memos.impasse),
      agentOutput: copy(last?.agentOutput, memos.agentOutput),
      stateChange: copy(last?.stateChange, memos.stateChange),
      ownWords: copy(last?.ownWords, memos.ownWords),
      explicitAnswer: copy(last?.explicitAnswer, memos.explicitAnswer),
      toolLanes: toolLanesKey(toolLanes),
      ownWordsTask,
    };
  }
}

/** The tool lanes as one string (sorted, joined by a character no agent name holds in practice: U+0000). */
export function toolLanesKey(toolLanes: ReadonlySet<string>): string {
  return [...toolLanes].sort().join('\u0000');
}

/**
 * Entries to make for `n` of a followed trace's (positions, groups, names): a quarter more and 16,
 * so the appends to come fit without a copy (at 1M events about 3,000 appends of 100 lines). A
 * table made to the exact size was copied at the first append: at 1M, 100 MB of typed arrays at
 * once, whose backing stores count as external memory, so the collector started a full collection
 * of the whole heap ("external memory pressure", every 64 MB) in the first appends.
 */
export function withRoom(n: number): number {
  return Math.ceil(n * 1.25) + 16;
}

/** A typed array of at least `n` entries holding `from`'s first `keep` (made with room, {@link withRoom}, when it must grow). */
export function grownTo<T extends Int32Array | Uint16Array | Uint8Array | Float64Array>(from: T, n: number, keep: number, make: (size: number) => T): T {
  if (from.length >= n) return from;
  const to = make(Math.max(withRoom(n), Math.ceil(from.length * 1.5)));
  to.set(from.subarray(0, keep));
  return to;
}

/**
 * `from`'s entries at the start of `into` when it is of the same type and has room (those before
 * `same` are there already: copied from `into` when `from` was made), else of a new array of the
 * same type with room ({@link withRoom}: for the appends to come).
 */
export function kept<T extends Int32Array | Uint16Array | Uint8Array>(into: T | undefined, from: T, same = 0): T {
  if (into && into.constructor === from.constructor && into.length >= from.length) {
    into.set(same > 0 ? from.subarray(same) : from, same);
    return into;
  }
  const out = new (from.constructor as new (length: number) => T)(withRoom(from.length));
  out.set(from);
  return out;
}
