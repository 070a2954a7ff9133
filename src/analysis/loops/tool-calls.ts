/**
 * repeated_tool_call: the same agent calls the same tool with the same arguments (the call's
 * content, exactly, keyed by length and two 32-bit FNV-1a hashes) again, with no state change in
 * between, and gets the same result: nothing new was learned. One hash-map pass, then each repeated
 * group split by agent and result: O(n). A pause between groups when the clock says so (pauses.ts):
 * at 1M events the split of the groups was one block of 40-60 ms on each append.
 */
import { preview, shortPath } from '../../trace/preview';
import type { TraceIndex } from '../trace-index';
import { PairNumbering } from '../pair-table';
import { isStateChange } from '../state-change';
import { sameWhitespaceAside, trimmedFnv1aTwice } from '../text';
import type { RawLoop } from './raw-loop';
import type { Arena } from '../arena';
import { grownTo, withRoom } from '../prefix-carry';
import type { Pause, PauseClock } from '../pauses';
import { countWords } from '../../shared/count-words';
import { mergedAscending } from '../sorted';

/**
 * Tool calls with the same tool, argument length and two hashes of the trimmed arguments, grouped
 * without an object, list or map per call: the groups of a (tool, first hash) key are chained
 * through `sameKey`, and each group's calls through `next`. Typed arrays, scratch in the index's
 * arena (given back here): no per-call object for the collector. A growing trace's carry
 * (prefix-carry.ts) keeps the grouping of the calls it holds (a call's group depends on its own
 * fields alone): an append groups its new calls only.
 */
export function* repeatedToolCalls(index: TraceIndex, clock: PauseClock): Generator<Pause, RawLoop[], void> {
  const scratch = index.arena.mark();
  try {
    const carry = index.carry;
    let grouping = carry?.toolCalls;
    if (carry && (!grouping || grouping.scanned !== carry.count || carry.count > index.size)) grouping = carry.toolCalls = new ToolCallGrouping(callsIn(index, 0), undefined);
    grouping ??= new ToolCallGrouping(callsIn(index, 0), index.arena);
    // (before the scan: only old calls have splits)
    grouping.resultsChanged(index.linksMade.stand, index.linksMade.answeredOld);
    grouping.scan(index);
    if (clock.due()) yield* clock.pause();
    return yield* toolCallLoops(index, grouping, clock);
  } finally {
    index.arena.release(scratch);
  }
}

/** A call's two hashes, written by trimmedFnv1aTwice (one array for every call: no pair made per call). */
const HASHES = new Int32Array(2);

/** Number of tool calls from position `from` on. */
function callsIn(index: TraceIndex, from: number): number {
  let calls = 0;
  for (let i = from; i < index.size; i++) if (index.types[i] === 'tool_call') calls++;
  return calls;
}

/**
 * Tool calls grouped by arguments: per group (numbered in order of first call) its first call, its
 * number of calls; per call the next one of its group (-1: none); the groups of two calls or more.
 */
interface ToolCallGroups {
  /** The groups called twice or more, ascending (most groups are called once: a pass over every group per append was 1-3 ms at 1M events, and tens when V8 had not compiled it yet). */
  repeated: readonly number[];
  first: Int32Array;
  count: Int32Array;
  next: Int32Array;
}

/**
 * The grouping of {@link repeatedToolCalls}, scanned in time order; it can go on over positions
 * appended later (a growing trace). Its tables are in an arena (scratch of one analysis), else
 * typed arrays of their own that grow (a grouping kept between analyses).
 */
export class ToolCallGrouping implements ToolCallGroups {
  /** Positions scanned: [0, scanned). */
  scanned = 0;
  groups = 0;
  repeated: number[] = [];
  private readonly tools = new Map<string, number>();
  /** (tool number, first hash) -> key number. */
  private readonly keys: PairNumbering;
  /** Key -> its first group (-1: none). */
  private byKey: Int32Array;
  /** Group -> the next group of the same key (-1: none), its argument length, second hash, first and latest call, number of calls. */
  private sameKey: Int32Array;
  private lengths: Int32Array;
  private seconds: Int32Array;
  first: Int32Array;
  private last: Int32Array;
  count: Int32Array;
  /** Call -> the next call of its group (-1: none). */
  next: Int32Array;
  /** Call -> its group (kept groupings only: {@link splits}). */
  groupOf: Int32Array;
  /**
   * A kept grouping's splits of each group into runs, as the last analysis left them (undefined in
   * an arena: one analysis). A split goes on over the group's new calls while none of its calls got
   * another result: a call goes on its agent's last run or starts one, reading the state changes
   * between the two calls and their results, which never change for old calls but those a new event
   * answers (toolCallLoops). At 1M events the bench trace's two repeated groups hold 16k and 10k
   * calls: split again at each append, they were 11-15 ms of it.
   */
  readonly splits: (GroupSplit | undefined)[] | undefined;
  /** A kept grouping's answers of {@link goesOn} from one analysis to the next; none in an arena (one analysis). */
  readonly runs: RunMemo | undefined;

  /** @param calls tool calls to come (tables grow past it); @param arena where the tables are made, else typed arrays of their own. */
  constructor(
    calls: number,
    private readonly arena: Arena | undefined,
  ) {
    const size = calls + 1;
    this.keys = new PairNumbering(calls, arena);
    this.byKey = this.int32(size).fill(-1);
    this.sameKey = this.int32(size);
    this.lengths = this.int32(size);
    this.seconds = this.int32(size);
    this.first = this.int32(size);
    this.last = this.int32(size);
    this.count = this.int32(size);
    this.next = this.int32(0);
    this.groupOf = this.int32(0);
    this.runs = arena ? undefined : new RunMemo();
    this.splits = arena ? undefined : [];
  }

  /** Groups the tool calls of `index` from {@link scanned} to its end. */
  scan(index: TraceIndex): void {
    const n = index.size;
    if (n <= this.scanned) return;
    if (this.next.length < n) this.next = this.grown(this.next, Math.max(this.arena ? n : withRoom(n), Math.ceil(this.next.length * 1.5)));
    if (this.splits && this.groupOf.length < n) this.groupOf = this.grown(this.groupOf, this.next.length);
    // a grouping in an arena is made for one index, sized for its calls; a kept one grows
    const need = this.arena ? 0 : this.groups + callsIn(index, this.scanned) + 1;
    if (this.first.length < need) this.reserveGroups(Math.max(withRoom(need), Math.ceil(this.first.length * 1.5)));
    const { tools, keys, byKey, sameKey, lengths, seconds, first, last, count, next, groupOf } = this;
    const kept = this.splits !== undefined;
    let groups = this.groups;
    const repeated: number[] = []; // groups called a second time in this scan
    for (let i = this.scanned; i < n; i++) {
      if (index.types[i] !== 'tool_call') continue;
      const text = index.rawContent(i);
      if (text === undefined) continue;
      const tool = index.toolOf(i) ?? '';
      let toolNo = tools.get(tool);
      if (toolNo === undefined) tools.set(tool, (toolNo = tools.size));
      // the trimmed text's two hashes in one read of it (fnv1a's, from its two seeds)
      trimmedFnv1aTwice(text, 0x811c9dc5, 0x2545f491, HASHES);
      const key = keys.number(toolNo, HASHES[0]);
      const second = HASHES[1];
      let g = byKey[key];
      let previous = -1;
      while (g !== -1 && (lengths[g] !== text.length || seconds[g] !== second)) {
        previous = g;
        g = sameKey[g];
      }
      next[i] = -1;
      if (g === -1) {
        g = groups++; // a new group, numbered in the order groups are first seen
        if (previous === -1) byKey[key] = g;
        else sameKey[previous] = g;
        sameKey[g] = -1;
        lengths[g] = text.length;
        seconds[g] = second;
        first[g] = i;
        last[g] = i;
        count[g] = 1;
        if (kept) groupOf[i] = g;
        continue;
      }
      if (kept) groupOf[i] = g;
      next[last[g]] = i;
      last[g] = i;
      if (++count[g] === 2) repeated.push(g);
    }
    this.groups = groups;
    this.scanned = n;
    if (repeated.length > 0) this.repeated = mergedAscending(this.repeated, repeated.sort((a, b) => a - b));
  }

  /** Room for `size` groups (and keys: there are no more keys than groups). */
  private reserveGroups(size: number): void {
    const old = this.byKey.length;
    this.byKey = this.grown(this.byKey, size).fill(-1, old);
    this.sameKey = this.grown(this.sameKey, size);
    this.lengths = this.grown(this.lengths, size);
    this.seconds = this.grown(this.seconds, size);
    this.first = this.grown(this.first, size);
    this.last = this.grown(this.last, size);
    this.count = this.grown(this.count, size);
  }

  /**
   * Forgets the splits of the groups whose calls' results may have changed since the last analysis:
   * those of `answeredOld` (calls a new event answers), or all when the old calls' pairs did not
   * stand (index-links.ts `BuiltLinks.stand` 0).
   */
  resultsChanged(stand: number, answeredOld: readonly number[]): void {
    if (!this.splits) return;
    if (stand === 0) this.splits.length = 0;
    else for (const c of answeredOld) if (c < this.scanned) this.splits[this.groupOf[c]] = undefined;
  }

  private int32(size: number): Int32Array {
    return this.arena ? this.arena.int32(size) : new Int32Array(size);
  }

  /** `from` in a table of `size` entries (then zeros). */
  private grown(from: Int32Array, size: number): Int32Array {
    const to = this.int32(size);
    to.set(from.subarray(0, Math.min(from.length, size)));
    return to;
  }
}

/** Calls of repeated groups split between two looks at the pause clock. */
const CALLS_PER_LOOK = 4096;

/**
 * The loops of the groups called twice or more. A repeat is wasted work only when it could teach the
 * agent nothing new: the same agent made the call again, nothing changed the state in between (no
 * edit, write or install by any agent: {@link isStateChange}), and it got the same result
 * (whitespace aside; calls without a recorded result count as alike). A call another agent made (it
 * never saw that result), a re-run after a change (a compile after edits), or one whose result
 * changed (a push after a new commit, a poll that moved on) starts a new run. Each run of two or
 * more calls is one loop.
 */
function* toolCallLoops(index: TraceIndex, grouping: ToolCallGroups & { runs?: RunMemo; splits?: ToolCallGrouping['splits'] }, clock: PauseClock): Generator<Pause, RawLoop[], void> {
  const { repeated, first, count, next, splits } = grouping;
  const out: RawLoop[] = [];
  const runs = grouping.runs;
  let changes: Int32Array | undefined; // position -> state changes before it, made when first needed
  const changed = (a: number, b: number) => {
    changes ??= runs ? runs.changesBefore(index) : changesBefore(index);
    return changes[b] - changes[a + 1] > 0;
  };
  const goesOn = (previous: number, c: number) => !changed(previous, c) && sameResult(index, previous, c);
  let calls = 0; // calls split since the clock was last looked at
  for (const g of repeated) {
    let split = splits?.[g];
    if (!split) {
      split = { calls: 0, last: -1, byLane: new Map() };
      if (splits) splits[g] = split;
    }
    if ((calls += count[g] - split.calls) >= CALLS_PER_LOOK) {
      calls = 0;
      if (clock.due()) yield* clock.pause();
    }
    // each new call goes on its agent's (its lane number's: no event read) last run, or starts one
    const before = split.calls;
    for (let c = split.last === -1 ? first[g] : next[split.last]; c !== -1; c = next[c]) {
      const lane = index.laneOf[c];
      let ofAgent = split.byLane.get(lane);
      if (!ofAgent) split.byLane.set(lane, (ofAgent = []));
      const run = ofAgent[ofAgent.length - 1];
      const previous = run?.calls[run.calls.length - 1];
      if (previous !== undefined && (runs ? runs.goesOn(index, previous, c, goesOn) : goesOn(previous, c))) run.calls.push(c);
      else ofAgent.push({ calls: [c] });
      split.last = c;
      split.calls++;
    }
    // a kept split no call was added to since the last analysis has the same loops (its runs the same): listed again
    if (split.loops && split.calls === before) {
      for (const loop of split.loops) out.push(loop);
      continue;
    }
    // each run of two calls or more is a loop, in order of first call (made again only for a run that grew)
    const repeats: CallRun[] = [];
    for (const runsOf of split.byLane.values()) for (const run of runsOf) if (run.calls.length >= 2) repeats.push(run);
    const loops: RawLoop[] = [];
    for (const run of repeats.sort((a, b) => a.calls[0] - b.calls[0])) {
      if (run.loop === undefined || run.loopCalls !== run.calls.length) {
        run.loop = toolCallLoop(index, run.calls);
        run.loopCalls = run.calls.length;
      }
      loops.push(run.loop);
      out.push(run.loop);
    }
    if (splits) split.loops = loops;
  }
  return out;
}

/** A group's calls split into runs ({@link ToolCallGrouping.splits}): how many of its calls, up to which; per agent (lane number) its runs, in call order. */
interface GroupSplit {
  calls: number;
  last: number;
  byLane: Map<number, CallRun[]>;
  /** A kept split's loops as last listed (its runs of two calls or more, in order of first call): listed again while no call is added (a sort of every run per group and append was 5-9 ms at 1M). */
  loops?: RawLoop[];
}

/** One agent's run of calls with the same result and no state change between them; its loop once made, for how many calls. */
interface CallRun {
  calls: number[];
  loop?: RawLoop;
  loopCalls?: number;
}

/**
 * A kept grouping's answers to whether a call goes on the run of its agent's previous call of its
 * group (no state change between them, the same result), per call position, with the results both
 * calls had then: an answer stands while the two calls have the same results (a result that came
 * since, or a pairing made again, asks again). What lies between two calls is read before the later
 * one and never changes in a growing trace; the count of state changes before each position is kept
 * too (a state change depends on its event's own fields: prefix-carry.ts). At 1M events the pairs'
 * result texts compared again on each append were about 45 ms, the count of state changes 19.
 */
class RunMemo {
  /** Per call position: the previous call it was asked about, the results of both then, the answer (0 not asked, 1 yes, 2 no). */
  private previous = new Int32Array(0);
  private resultBefore = new Int32Array(0);
  private result = new Int32Array(0);
  private answer = new Uint8Array(0);
  /** Per position, the state changes before it; counted up to {@link counted}. */
  private changes = new Int32Array(1);
  private counted = 0;

  /** Whether `c` goes on the run of `previous`, asked of `ask` unless answered before for the same calls and results. */
  goesOn(index: TraceIndex, previous: number, c: number, ask: (previous: number, c: number) => boolean): boolean {
    if (this.answer.length <= c) this.grow(index.size);
    const ra = index.resultOf(previous);
    const rb = index.resultOf(c);
    if (this.previous[c] === previous && this.resultBefore[c] === ra && this.result[c] === rb && this.answer[c] !== 0) return this.answer[c] === 1;
    const yes = ask(previous, c);
    this.previous[c] = previous;
    this.resultBefore[c] = ra;
    this.result[c] = rb;
    this.answer[c] = yes ? 1 : 2;
    return yes;
  }

  /** {@link changesBefore}, counted on from the positions counted before. */
  changesBefore(index: TraceIndex): Int32Array {
    const n = index.size;
    if (this.counted > n) this.counted = 0; // (never in a growing trace: counted again)
    this.changes = grownTo(this.changes, n + 1, this.counted + 1, (size) => new Int32Array(size));
    countChanges(index, this.changes, this.counted);
    this.counted = n;
    return this.changes;
  }

  private grow(n: number): void {
    // zeros past what was kept: an answer of 0 is "not asked", whatever the other columns hold
    const keep = this.answer.length;
    const int32 = (size: number) => new Int32Array(size);
    this.previous = grownTo(this.previous, n, keep, int32);
    this.resultBefore = grownTo(this.resultBefore, n, keep, int32);
    this.result = grownTo(this.result, n, keep, int32);
    this.answer = grownTo(this.answer, n, keep, (size) => new Uint8Array(size));
  }
}

/** Per position, how many state changes ({@link isStateChange}) come before it; n + 1 entries, scratch in the index's arena. */
function changesBefore(index: TraceIndex): Int32Array {
  const out = index.arena.int32(index.size + 1);
  out[0] = 0;
  countChanges(index, out, 0);
  return out;
}

/** Fills `out[i + 1]` (the state changes before position i + 1) for the positions from `from` on; `out[from]` holds the count before `from`. */
function countChanges(index: TraceIndex, out: Int32Array, from: number): void {
  for (let i = from; i < index.size; i++) out[i + 1] = out[i] + (isStateChange(index, i) ? 1 : 0);
}

/** True when two calls' results are the same text, whitespace aside, or neither has a result. */
function sameResult(index: TraceIndex, a: number, b: number): boolean {
  const ra = index.resultOf(a);
  const rb = index.resultOf(b);
  if (ra === -1 || rb === -1) return ra === rb;
  const x = index.content(ra);
  const y = index.content(rb);
  return sameWhitespaceAside(x, y);
}

/** One repeated call: the calls (same agent, arguments and result) and their results. */
function toolCallLoop(index: TraceIndex, calls: number[]): RawLoop {
  const members = calls.flatMap((c) => (index.resultOf(c) !== -1 ? [c, index.resultOf(c)] : [c]));
  const tool = index.toolOf(calls[0]) ?? 'a tool';
  return {
    kind: 'repeated_tool_call',
    members,
    repeated: calls.slice(1),
    period: members.length / calls.length,
    repetitions: calls.length,
    label: `${tool} ${argumentsPreview(index, calls[0])}called ${countWords(calls.length, 'time')} by ${index.agentOf(calls[0])} with the same arguments and the same result`,
  };
}

/** Argument names whose value says what a call did (a shell command, a file, a search). */
const SAYING_ARGUMENTS = ['command', 'cmd', 'file_path', 'path', 'pattern', 'query', 'url', 'prompt'];

/**
 * The repeated call's arguments, short and quoted with a trailing space (`"npm test" `), or '' when
 * it has none. Arguments written as a JSON object are named by their telling value (`command`,
 * `file_path`, ...; else the first string), not shown as escaped JSON.
 */
function argumentsPreview(index: TraceIndex, call: number): string {
  let text = index.content(call).trim();
  if (text.startsWith('{')) {
    try {
      const args = JSON.parse(text) as Record<string, unknown>;
      const values = [...SAYING_ARGUMENTS.map((k) => (Object.prototype.hasOwnProperty.call(args, k) ? args[k] : undefined)), ...Object.values(args)];
      const telling = values.find((v): v is string => typeof v === 'string' && v.trim() !== '');
      if (telling !== undefined) text = telling;
    } catch {
      /* not JSON: shown as written */
    }
  }
  text = shortPath(text.replace(/\s+/g, ' ').trim());
  return text ? `${preview(text)} ` : '';
}
