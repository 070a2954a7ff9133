/**
 * Which events can state a run's answer, for the stop verdicts and the hindsight best stop: an
 * agent's own output (a message, return or aggregate) that is none of
 * - a plan or a ledger (`New plan:`, `Updated Ledger:`, `Here is the plan`), or an orchestrator's decision;
 * - a restatement of the task (it holds the task's opening words) or the assignment that opens a delegated conversation;
 * - a span that encloses other work (its start carries the output of everything under it: a root span);
 * - a user's prompt, a harness row, a placeholder or a tool's output ({@link isAgentOutput}).
 */
import { explicitAnswer, isAgentOutput, type FinalAnswer } from './answer';
import { carriedSweep, type Sweep } from './carried-sweep';
import { opensDelegation } from './loops';
import { causesBefore } from './loops/agent-output';
import { toolLanesKey } from './prefix-carry';
import { upperBound } from './sorted';
import { NormalizedFinder, withoutFencedCode } from './text';
import type { TraceIndex } from './trace-index';

/** Output types that can carry an answer. */
const ANSWER_TYPES = new Set(['message', 'return', 'aggregate']);

/** An output that opens with a plan, a ledger or a to-do list. */
const PLAN_TEXT = /^[\s#*>_-]*(?:(?:new|updated|revised|initial|current|our|my|the|here is (?:the|my|our)(?: (?:new|updated|revised))?)\s+)?(?:plan|ledger|to-?do(?: list)?)[*_\s]*(?::|\n)/i;

/** Characters of the task's opening that a restatement holds. */
const TASK_HEAD = 60;

/** Answer statements of one trace, memoized per position. */
export class AnswerStatements {
  private readonly memo: Uint8Array;
  private readonly taskHead: string;
  /** {@link taskHead} found in a plain text's normalized content as the text is read (text.ts). */
  private readonly finder: NormalizedFinder | undefined;
  private readonly taskPos: number;
  /** Positions of events that other (non-stop) events name as their parent and that last past their start. */
  private readonly containers: ReadonlySet<number>;
  /** A followed trace's answer statements and explicit answers by position, kept from one analysis to the next (undefined: the events are read as asked). */
  private readonly followed: StatementSweep | undefined;

  constructor(private readonly index: TraceIndex) {
    this.memo = index.arena.uint8(index.size);
    let task = -1;
    for (let i = 0; i < index.size && task === -1; i++) if (index.types[i] !== 'stop' && index.content(i).trim()) task = i;
    this.taskPos = task;
    const text = task >= 0 ? index.normalizedContent(task) : '';
    this.taskHead = text.length >= TASK_HEAD ? text.slice(0, TASK_HEAD) : '';
    this.finder = this.taskHead ? new NormalizedFinder(this.taskHead) : undefined;
    // the index's "own words" memo holds answers for this task statement only (a growing trace's carry may hold another's)
    if (index.ownWordsTask !== task) {
      index.memo.ownWords.fill(0);
      index.ownWordsTask = task;
    }
    const containers = containersOf(index);
    this.containers = containers.positions;
    this.followed = followedStatements(index, task, containers.addedFrom);
  }

  /** The task statement's position (-1: none): what restates it is no agent's own words. */
  get task(): number {
    return this.taskPos;
  }

  /** True when the event at `i` can state the run's answer (see the module's docstring). */
  can(i: number): boolean {
    let known = this.memo[i];
    if (known === 0) this.memo[i] = known = this.judge(i) ? 1 : 2;
    return known === 1;
  }

  private judge(i: number): boolean {
    return ANSWER_TYPES.has(this.index.types[i]) && isAgentOutput(this.index, i) && !this.containers.has(i) && this.ownWords(i);
  }

  /**
   * True unless the event is the task statement, an assignment that opens a delegated conversation,
   * a plan or ledger, or a restatement of the task: what an agent says in its own words.
   */
  ownWords(i: number): boolean {
    // memoized per position in the index (an event's own fields and the task statement decide): carried over appends (prefix-carry.ts)
    const memo = this.index.memo.ownWords;
    if (memo[i] !== 0) return memo[i] === 1;
    const own = this.inOwnWords(i);
    // an event naming as its cause an id no earlier event carries may be answered otherwise once a later event carries it: not kept
    if (causesBefore(this.index, i)) memo[i] = own ? 1 : 2;
    return own;
  }

  private inOwnWords(i: number): boolean {
    const { index } = this;
    if (i === this.taskPos || opensDelegation(index, i) || PLAN_TEXT.test(index.content(i))) return false;
    if (!this.finder) return true;
    // no normalized text made for a plain head (ASCII without a date: the index knows from the fingerprints)
    if (index.memo.plainHead[i] === 1) return !this.finder.in(index.rawContent(i) ?? '');
    // read once per event (can() keeps the verdict): not kept in the index's cache
    return !index.normalizedOnce(i).includes(this.taskHead);
  }

  /**
   * The answer the run ended with in [from, to] (only positions `keep` accepts): the last explicit
   * answer an answer statement (or a stop's own `FINAL ANSWER:`) gave (`FINAL ANSWER: X`,
   * `\boxed{X}`, `the answer is X`); without one, the last answer statement's whole text when the run
   * presented it as its result (`concluded`: a completion stop; or a return or an aggregate).
   * Undefined when the run ended without one.
   */
  runAnswer(from: number, to: number, concluded: boolean, keep?: (i: number) => boolean): FinalAnswer | undefined {
    const { index } = this;
    const lists = this.lists();
    if (lists) return this.runAnswerIn(lists, from, to, concluded, keep);
    let whole: FinalAnswer | undefined;
    let seenStatement = false;
    for (let i = to; i >= from; i--) {
      if (keep && !keep(i)) continue;
      if (index.types[i] === 'stop') {
        const a = stopAnswer(index, i);
        if (a) return { pos: i, answer: a, explicit: true };
        continue;
      }
      if (!this.can(i)) continue;
      const a = this.explicit(i);
      if (a) return { pos: i, answer: a, explicit: true };
      if (!seenStatement && index.firstSeen(i) === i) {
        const type = index.types[i];
        whole = concluded || type === 'return' || type === 'aggregate' ? { pos: i, answer: index.normalizedContent(i), explicit: false } : undefined;
        seenStatement = true;
      }
    }
    return whole;
  }

  /** A followed trace's lists of statements, read to the index's end (undefined for a trace analysed once). */
  private lists(): StatementLists | undefined {
    const sweep = this.followed;
    if (!sweep) return undefined;
    const { index } = this;
    for (let i = sweep.swept, n = index.size; i < n; i++) {
      const type = index.types[i];
      if (type === 'stop') {
        if (stopAnswer(index, i)) sweep.explicitAt.push(i);
        continue;
      }
      // (an opening read from a cause no earlier event carries may change once a later event carries it: not kept then)
      if (ANSWER_TYPES.has(type) && !causesBefore(index, i)) sweep.carryable = false;
      if (!this.can(i)) continue;
      if (this.explicit(i)) sweep.explicitAt.push(i);
      if (index.firstSeen(i) === i) sweep.statements.push(i);
    }
    sweep.swept = Math.max(sweep.swept, index.size);
    return sweep;
  }

  /** {@link runAnswer} from a followed trace's lists: the last explicit answer in the range, else the last statement seen first there. */
  private runAnswerIn(lists: StatementLists, from: number, to: number, concluded: boolean, keep?: (i: number) => boolean): FinalAnswer | undefined {
    const { index } = this;
    const { explicitAt, statements } = lists;
    for (let k = upperBound(explicitAt, to) - 1; k >= 0 && explicitAt[k] >= from; k--) {
      const i = explicitAt[k];
      if (keep && !keep(i)) continue;
      return { pos: i, answer: index.types[i] === 'stop' ? stopAnswer(index, i)! : this.explicit(i)!, explicit: true };
    }
    for (let k = upperBound(statements, to) - 1; k >= 0 && statements[k] >= from; k--) {
      const i = statements[k];
      if (keep && !keep(i)) continue;
      const type = index.types[i];
      return concluded || type === 'return' || type === 'aggregate' ? { pos: i, answer: index.normalizedContent(i), explicit: false } : undefined;
    }
    return undefined;
  }

  /** The explicit answer an output states in its prose (code blocks left out: `Answer:` in a program is no answer). */
  explicit(i: number): string | undefined {
    // most outputs state none: that is memoized per position in the index (carried over appends, prefix-carry.ts); an answer is read again
    const memo = this.index.memo.explicitAnswer;
    if (memo[i] === 2) return undefined;
    const answer = explicitAnswer(withoutFencedCode(this.index.content(i)));
    memo[i] = answer === undefined ? 2 : 1;
    return answer;
  }

  /**
   * The first answer statement in [from, answer.pos] (only positions `keep` accepts) that states
   * `answer`: the same explicit answer, or for a whole-text answer the same text in full.
   * @returns its position (answer.pos when none is earlier)
   */
  firstStating(answer: FinalAnswer, from: number, keep?: (i: number) => boolean): number {
    const { index } = this;
    const lists = answer.explicit ? this.lists() : undefined;
    if (lists) {
      // the statements with an explicit answer, from the followed trace's list
      const { explicitAt } = lists;
      for (let k = upperBound(explicitAt, from - 1); k < explicitAt.length && explicitAt[k] < answer.pos; k++) {
        const i = explicitAt[k];
        if (index.types[i] === 'stop' || (keep && !keep(i))) continue;
        if (this.explicit(i) === answer.answer) return i;
      }
      return answer.pos;
    }
    // a statement of the same text has the same fingerprint: none comes before the first event with it (text.ts: fingerprints number texts by their first position)
    const first = answer.explicit ? 0 : index.firstSeen(answer.pos);
    for (let i = Math.max(0, from, first); i < answer.pos; i++) {
      if ((keep && !keep(i)) || !this.can(i)) continue;
      if (answer.explicit) {
        if (this.explicit(i) === answer.answer) return i;
      } else if (index.fingerprints[i] === index.fingerprints[answer.pos]) return i;
    }
    return answer.pos;
  }
}

/** The explicit answer a stop states in its own text (`FINAL ANSWER: X`), or undefined. */
function stopAnswer(index: TraceIndex, i: number): string | undefined {
  return /FINAL ANSWER\s*:/i.test(index.content(i)) ? explicitAnswer(index.content(i)) : undefined;
}

/** The containers' sweep (carried-sweep.ts): positions other events name as their parent and that last past their start. */
interface ContainerSweep extends Sweep {
  positions: Set<number>;
  /** The lowest position the last extension added (Infinity for none): a followed trace's statements before it stand. */
  addedFrom: number;
}

/**
 * Positions of events that other (non-stop) events name as their parent and that last past their
 * start: a sweep, which a followed trace's carry keeps (not when a parent named no earlier event:
 * a later one may carry it).
 */
function containersOf(index: TraceIndex): ContainerSweep {
  const sweep = carriedSweep<ContainerSweep>(index, 'containers', '', () => ({ swept: 0, key: '', carryable: true, positions: new Set(), addedFrom: Infinity }));
  sweep.addedFrom = Infinity;
  for (let i = sweep.swept, n = index.size; i < n; i++) {
    const parent = index.parentIdOf(i);
    if (parent === undefined || index.types[i] === 'stop') continue;
    const p = index.pos.get(parent);
    if (p === undefined || p >= i) sweep.carryable = false;
    if (p !== undefined && p >= 0 && (index.durationOf(p) ?? 0) > 0 && !sweep.positions.has(p)) {
      sweep.positions.add(p);
      sweep.addedFrom = Math.min(sweep.addedFrom, p);
    }
  }
  sweep.swept = Math.max(sweep.swept, index.size);
  return sweep;
}

/** A followed trace's answer statements, ascending: those seen first (their text met for the first time), and those stating an explicit answer (and stops stating one). */
interface StatementLists {
  statements: number[];
  explicitAt: number[];
}

/** The statements' sweep (carried-sweep.ts), read to the index's end when asked (AnswerStatements `lists`). */
type StatementSweep = Sweep & StatementLists;

/**
 * A followed trace's statements' sweep (none for a trace analysed once: its events are read as
 * asked), made again when what decides a statement changed: the tool lanes (what is an agent's
 * output), the task statement (what restates it), or an old event that became a container.
 * @param containersFrom the lowest position the containers' sweep added this time.
 */
function followedStatements(index: TraceIndex, task: number, containersFrom: number): StatementSweep | undefined {
  if (!index.carry) return undefined;
  const key = `${toolLanesKey(index.toolLanes)}\u0001${task}`;
  const sweep = carriedSweep<StatementSweep>(index, 'statements', key, () => ({ swept: 0, key, carryable: true, statements: [], explicitAt: [] }));
  if (containersFrom < sweep.swept) Object.assign(sweep, { swept: 0, carryable: true, statements: [], explicitAt: [] });
  return sweep;
}
