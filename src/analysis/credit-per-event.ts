/**
 * Credit per event and per agent from the propagated values (credit.ts): each event's shown value
 * (rows no agent wrote take none, a producer's `credit` is shown as given), the agents' sums and the
 * events whose value the trace gives.
 *
 * What this reads of each event's own fields (its type, kind, sender, given credit, agent, whether
 * it is the first event of its id, its source record) does not change when events are appended: a
 * followed trace keeps it per position in its carry ({@link EventCreditFacts}, prefix-carry.ts) and
 * reads only the new events' fields (at 1M events the pass over the event objects was 130-150 ms of
 * each append; the pass over the columns is a few ms).
 */
import { CreditColumn } from './credit-column';
import { grownTo } from './prefix-carry';
import type { Pause, PauseClock } from './pauses';
import type { TraceIndex } from './trace-index';

/** A row no agent wrote (a harness or user row, a synthetic one): it takes no credit. */
const NOT_AGENT_ROW = 1;
/** A kind the harness injects (local command, placeholder, missing parent): no credit once the trace holds injected rows. */
const INJECTED_KIND = 2;
/** The event gives its own credit (`credit`, a finite number). */
const GIVEN = 4;
/** The first event (in time order) of its id: only it counts toward its agent's sum when ids repeat. */
const FIRST_OF_ID = 8;

const INJECTED_KINDS = new Set(['local_command', 'placeholder', 'missing_parent']);

/**
 * What {@link creditPerEventSteps} reads of each event, per position (time order) for the first `count`
 * positions: a followed trace's carry keeps it from one analysis to the next (valid while the carry
 * holds those positions: prefix-carry.ts).
 */
export interface EventCreditFacts {
  /** Positions filled. */
  count: number;
  /** Per position, the bits above. */
  flags: Uint8Array;
  /** Per position, its agent's number (agents numbered in order of first appearance). */
  agent: Int32Array;
  /** Agent names by number. */
  agents: string[];
  agentNo: Map<string, number>;
  /** Position -> the credit the event gives (the events with {@link GIVEN}). */
  given: Map<number, number>;
  /** Per position, its source record (TraceIndex.record), filled once ids repeat (only then read). */
  record?: Int32Array;
}

/** Per-event results of {@link creditPerEventSteps}. */
export interface EventCredit {
  /** Each event's shown value, by file index, as a list: made by a whole pass (a followed trace's mended pass makes none: {@link column}). */
  byIndex: number[] | undefined;
  /** The same values as a column (credit-column.ts): over `byIndex`, or sharing chunks with the last analysis's. */
  column: CreditColumn;
  /** When ids repeat, per position the source record its value adds to, or -1 (not the first event of its id); else undefined (every event's record counts). */
  stepOf: Int32Array | undefined;
  /** Agent -> sum of its events' values, in order of each agent's first counted event. */
  agents: Map<string, number>;
  /** Ids of the counted events whose value the trace gives, in time order. */
  given: string[];
}

/** Positions summed between two looks at the pause clock (at 1M events the pass was one block of 40-60 ms). */
const SUM_PART = 1 << 18;

/**
 * Each event's shown value (file order), the agents' sums, the events whose value the trace gives,
 * and, when ids repeat, per position (time order) the source record its value adds to, or -1 (no
 * record, or not the first event of its id: an id counts once); else every event's record counts.
 * A followed trace's carry (index.carry) gives the facts of the positions it holds and keeps them all.
 * A pause between two parts of {@link SUM_PART} positions when `clock` says so (pauses.ts).
 * @param values per position, the propagated value (credit.ts).
 * @param changed for a followed trace, lists of the positions whose values may differ from its last analysis's (credit.ts `CreditValues`): the last values are mended there.
 */
export function* creditPerEventSteps(index: TraceIndex, values: Float64Array, clock: PauseClock, changed?: readonly Int32Array[]): Generator<Pause, EventCredit, void> {
  const n = index.size;
  const repeats = index.hasRepeatedIds; // else no id is met twice
  const facts = factsOf(index, repeats);
  const carry = index.carry;
  const last = carry?.creditSums;
  if (carry) carry.creditSums = undefined; // kept again once this pass is done
  // a followed trace in file order whose events give no credit of their own and whose ids do not repeat
  const carries = carry !== undefined && index.inFileOrder && !repeats && facts.given.size === 0;
  // (whether the trace holds injected rows changes no old value: an old row of an injected kind made it so already)
  const on = carries && changed && last && last.count === carry.count && carry.count <= n ? last : undefined;
  if (on) {
    const { credit, carry: next } = mended(index, facts, values, changed!, on);
    carry!.creditSums = next;
    return credit;
  }
  // Agent names are trace text: summed by number, never under a plain object's keys ("__proto__", "constructor")
  const sums: CreditSums = { sums: new Float64Array(facts.agents.length), started: new Uint8Array(facts.agents.length), order: [], given: [] };
  // a followed trace's values go into a column grown from the last one's, its chunks copied only where a value
  // changes (a whole pass comes after an append that adds a reward: a list of every value was 8 MB of new memory at 1M)
  const byIndex = carries ? undefined : zeroDoubles(n);
  const out = byIndex ?? (last && last.column.length <= n ? last.column : CreditColumn.of([])).grown(n);
  const stepOf = repeats ? new Int32Array(n).fill(-1) : undefined; // kept with the results: not in the arena
  // a column's values are written a part at a time, compared with the last ones in one loop (credit-column.ts putAll)
  const mark = index.arena.mark();
  const shown = byIndex ? undefined : index.arena.float64(Math.min(n, SUM_PART));
  try {
    for (let from = 0; from < n; from += SUM_PART) {
      if (from > 0 && clock.due()) yield* clock.pause();
      const to = Math.min(n, from + SUM_PART);
      sumPart(index, facts, values, sums, byIndex ?? shown!, stepOf, from, to);
      if (shown) (out as CreditColumn).putAll(from, shown, to - from);
    }
  } finally {
    index.arena.release(mark);
  }
  const agents = new Map<string, number>();
  for (const a of sums.order) agents.set(facts.agents[a], sums.sums[a]);
  const column = byIndex ? CreditColumn.of(byIndex) : (out as CreditColumn).seal();
  if (carries) {
    // each sum is a whole number of millionths (every value added was rounded so, and each sum after it)
    const millionths = Float64Array.from(sums.sums, (x) => Math.round(x * 1e6));
    carry.creditSums = { count: n, column, millionths, order: sums.order, started: sums.started, whole: true };
  }
  return { byIndex, column, stepOf, agents, given: sums.given };
}

/**
 * What the per-event pass of a followed trace (in file order, no event giving its own credit, ids
 * not repeated) leaves for the next: the values it showed, and each agent's sum as a whole number
 * of millionths. The values an append changes are few (credit.ts: the rewards' values are kept, the
 * outcome's reach a few thousand events) but reach back to the first events, so the sums are not
 * summed on from a place: each changed value's difference is added to its agent's sum.
 * The same figures as summing in order with each sum rounded (sumPart): every value is a whole
 * number of millionths, and so is each rounded sum; adding them is exact while every sum stays
 * below a billion in size (credit.ts gives the changed positions only then: EXACT_SUMS).
 */
export interface CreditSumsCarry {
  /** Positions read. */
  count: number;
  /** The shown values handed out (position order: the file's), a column the next pass grows (credit-column.ts). */
  column: CreditColumn;
  /** Per agent number, the sum of its events' shown values in millionths (a whole number). */
  millionths: Float64Array;
  /** The agents in order of their first event, and whether each was met. */
  order: number[];
  started: Uint8Array;
  /** True when the pass that left it summed every position (false: it mended the last one's). */
  whole: boolean;
}

/**
 * The credit per event of a followed trace from `last` (see {@link CreditSumsCarry}): the values at
 * the `changed` positions shown again and their agents' sums mended, the new positions' added, in a
 * column grown from the last one (credit-column.ts: the chunks written are copied, the others shared).
 */
function mended(index: TraceIndex, facts: EventCreditFacts, values: Float64Array, changed: readonly Int32Array[], last: CreditSumsCarry): { credit: EventCredit; carry: CreditSumsCarry } {
  const n = index.size;
  const old = last.count;
  const injected = index.injected > 0;
  const agents = facts.agents.length;
  const millionths = new Float64Array(agents);
  millionths.set(last.millionths);
  const started = new Uint8Array(agents);
  started.set(last.started);
  const order = last.order.slice();
  const column = last.column.grown(n);
  for (let i = old; i < n; i++) {
    const v = shownValue(facts, values[i], i, injected);
    column.set(i, v);
    const a = facts.agent[i];
    if (!started[a]) {
      started[a] = 1;
      order.push(a);
    }
    millionths[a] += Math.round(v * 1e6);
  }
  for (const list of changed) mendAt(list, old, facts, values, injected, column, millionths);
  column.seal();
  const sums = new Map<string, number>();
  for (const a of order) sums.set(facts.agents[a], millionths[a] / 1e6);
  return { credit: { byIndex: undefined, column, stepOf: undefined, agents: sums, given: [] }, carry: { count: n, column, millionths, order, started, whole: false } };
}

/**
 * {@link mended}'s step over one list of changed positions: each old one's value shown again, and
 * where it differs, written and its agent's sum mended (a position listed again is the same then).
 * A plain function of its own: a reward's append lists the half million positions the rewards reach.
 */
function mendAt(list: Int32Array, old: number, facts: EventCreditFacts, values: Float64Array, injected: boolean, column: CreditColumn, millionths: Float64Array): void {
  for (let k = 0; k < list.length; k++) {
    const i = list[k];
    if (i >= old) continue;
    const v = shownValue(facts, values[i], i, injected);
    const was = column.at(i)!;
    if (Object.is(v, was)) continue;
    column.set(i, v);
    millionths[facts.agent[i]] += Math.round(v * 1e6) - Math.round(was * 1e6);
  }
}

/**
 * `n` zeros in a list that holds doubles from the start. `new Array(n).fill(0)` holds small integers,
 * and the first value with decimals copied it again as doubles: 8 MB more garbage at 1M events, at
 * each append of a followed trace (V8 keeps a list's element kind; a one-double list made long takes
 * its storage once).
 */
function zeroDoubles(n: number): number[] {
  const list = [0.5];
  list.length = n;
  return list.fill(0);
}

/** The agents' running sums of {@link creditPerEventSteps}: per agent number its sum and whether it was counted yet; the agents in order of their first counted event; the given events' ids. */
interface CreditSums {
  sums: Float64Array;
  started: Uint8Array;
  order: number[];
  given: string[];
}

/**
 * Positions [from, to) of {@link creditPerEventSteps}: their shown values into `out` (a list by file
 * index; or, for a trace in file order, a part's list: position `from + k` at `k`), their records
 * into `stepOf`, added to the sums.
 */
function sumPart(index: TraceIndex, facts: EventCreditFacts, values: Float64Array, s: CreditSums, out: number[] | Float64Array, stepOf: Int32Array | undefined, from: number, to: number): void {
  const byIndex = Array.isArray(out) ? out : undefined;
  const part = byIndex ? undefined : (out as Float64Array);
  const { flags, agent, record } = facts;
  const repeats = stepOf !== undefined;
  const injected = index.injected > 0;
  for (let i = from; i < to; i++) {
    const f = flags[i];
    const v = shownValue(facts, values[i], i, injected);
    if (byIndex) byIndex[index.at(i)] = v;
    else part![i - from] = v;
    // an id counts once, for its first event
    if (repeats && !(f & FIRST_OF_ID)) continue;
    if (f & GIVEN) s.given.push(index.id(i));
    const a = agent[i];
    if (!s.started[a]) {
      s.started[a] = 1;
      s.order.push(a);
    }
    // a sum is rounded already (round is idempotent): adding a zero changes it only from -0 to 0
    if (v !== 0 || s.sums[a] === 0) s.sums[a] = round(s.sums[a] + v);
    if (stepOf) stepOf[i] = record![i];
  }
}

/** The value shown for position i, whose propagated value is `raw`: rounded; none for rows no agent wrote (and injected ones, when `injected`); the credit an event gives, as given. */
function shownValue(facts: EventCreditFacts, raw: number, i: number, injected: boolean): number {
  const f = facts.flags[i];
  if (f & GIVEN) return facts.given.get(i)!;
  // Rows the user or the harness wrote (local commands, meta rows, placeholders) take no credit.
  if (f & NOT_AGENT_ROW || (injected && f & INJECTED_KIND)) return 0;
  // most positions get no mass (credit.ts MASS_FLOOR): a zero is its own rounding, and adds nothing to a sum
  return raw === 0 ? raw : round(raw);
}

/** The facts of every position: those the carry holds kept, the others read from the events (and kept in the carry). */
function factsOf(index: TraceIndex, repeats: boolean): EventCreditFacts {
  const n = index.size;
  const carry = index.carry;
  const offered = carry?.credit;
  if (carry) carry.credit = undefined; // kept again below, for this index's positions
  const kept = offered && offered.count === carry!.count && offered.count <= n ? offered : undefined;
  const from = kept ? kept.count : 0;
  // a carry's columns have room for the appends to come (a quarter more); a whole analysis's are just its size
  const room = (size: number) => (carry ? Math.ceil(size * 1.25) + 1 : size);
  const facts: EventCreditFacts = kept
    ? { ...kept, flags: grownTo(kept.flags, n, from, (size) => new Uint8Array(room(size))), agent: grownTo(kept.agent, n, from, (size) => new Int32Array(room(size))) }
    : { count: 0, flags: new Uint8Array(room(n)), agent: new Int32Array(room(n)), agents: [], agentNo: new Map(), given: new Map() };
  for (let i = from; i < n; i++) {
    let f = 0;
    if (index.recordedTypeOf(i) === 'message' && index.fromOf(i) !== 'user' && index.notAgentOutput(i)) f |= NOT_AGENT_ROW;
    const kind = index.kindOf(i);
    if (kind !== undefined && INJECTED_KINDS.has(kind)) f |= INJECTED_KIND;
    const given = index.givenCreditOf(i);
    if (given !== undefined) {
      f |= GIVEN;
      facts.given.set(i, given);
    }
    // with no id met twice every event is the first of its id (and an old one stays so: the new come after it);
    // a "__proto__" id never lands in a record of ids: each counts
    const id = index.id(i);
    if (!repeats || id === '__proto__' || index.pos.get(id) === i) f |= FIRST_OF_ID;
    facts.flags[i] = f;
    const agent = index.agentOf(i);
    let a = facts.agentNo.get(agent);
    if (a === undefined) {
      facts.agentNo.set(agent, (a = facts.agents.length));
      facts.agents.push(agent);
    }
    facts.agent[i] = a;
  }
  if (repeats) {
    // the records are read only when ids repeat: filled then, from where they were filled before
    const filled = kept?.record ? from : 0;
    facts.record = kept?.record ? grownTo(kept.record, n, from, (size) => new Int32Array(room(size))) : new Int32Array(room(n));
    for (let i = filled; i < n; i++) facts.record[i] = index.record(i);
  }
  facts.count = n;
  if (carry) carry.credit = facts;
  return facts;
}

/** A credit figure to six decimals (every value and sum is rounded so). */
export function round(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  // (no -0: a value of a few 1e-17 left by sums of a rewards' pass rounds to it)
  return r === 0 ? 0 : r;
}
