/**
 * Which events can state a run's answer, for the stop verdicts and the hindsight best stop: an
 * agent's own output (a message, return or aggregate) that is none of
 * - a plan or a ledger (`New plan:`, `Updated Ledger:`, `Here is the plan`), or an orchestrator's decision;
 * - a restatement of the task (it holds the task's opening words) or the assignment that opens a delegated conversation;
 * - a span that encloses other work (its start carries the output of everything under it: a root span);
 * - a user's prompt, a harness row, a placeholder or a tool's output ({@link isAgentOutput}).
 */
import { explicitAnswer, isAgentOutput, type FinalAnswer } from './answer';
import { opensDelegation } from './loops';
import { causesBefore } from './loops/agent-output';
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
  private readonly containers = new Set<number>();

  constructor(private readonly index: TraceIndex) {
    this.memo = new Uint8Array(index.size);
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
    for (let i = 0; i < index.size; i++) {
      const parent = index.events[i].parent;
      if (parent === undefined || index.types[i] === 'stop') continue;
      const p = index.pos.get(parent);
      if (p !== undefined && p >= 0 && (index.events[p].duration_s ?? 0) > 0) this.containers.add(p);
    }
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
    let whole: FinalAnswer | undefined;
    let seenStatement = false;
    for (let i = to; i >= from; i--) {
      if (keep && !keep(i)) continue;
      if (index.types[i] === 'stop') {
        const a = /FINAL ANSWER\s*:/i.test(index.content(i)) ? explicitAnswer(index.content(i)) : undefined;
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
    for (let i = Math.max(0, from); i < answer.pos; i++) {
      if ((keep && !keep(i)) || !this.can(i)) continue;
      if (answer.explicit) {
        if (this.explicit(i) === answer.answer) return i;
      } else if (index.fingerprints[i] === index.fingerprints[answer.pos]) return i;
    }
    return answer.pos;
  }
}
