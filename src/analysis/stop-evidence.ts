/**
 * Pieces of evidence the stop verdicts read from a segment of the run (positions [from, pos] that
 * `keep` accepts): changes nothing checked, a check announced and never run, an error nothing
 * handled, a check that passed after the last change, an impasse, denied calls.
 */
import { isAgentOutput } from './answer';
import { firstChangeAt, lastChangeIn } from './state-change';
import { COMPLETION_CLAIM, IMPASSE_TEXT, VERIFICATION_TEXT, VERIFY_TOOL } from './text';
import type { TraceIndex } from './trace-index';

/** A stop segment: positions [from, pos] that `keep` accepts. */
export interface Segment {
  from: number;
  pos: number;
  keep: (i: number) => boolean;
  /** True when `keep` accepts every position (a run of the whole trace: its lanes are all): a count of the positions kept is arithmetic. */
  all?: boolean;
}

/** Content that was redacted or left out, so it cannot show what a call did. */
const OPAQUE = /^\s*(?:\[REDACTED[^\]]*\]\s*)?$/;

/** Error text that leaves no doubt: a traceback, a non-zero exit code, a named error or exception. */
const HARD_ERROR = /\btraceback \(most recent call last\)|\bexit(?:ed)? (?:with )?(?:status |code:? *)[1-9]\d*\b|\bexit ?code:? *[1-9]\d*\b|^\s*(?:[A-Z]\w*)?(?:Error|Exception)\b[:\s]|\b[A-Z]\w*(?:Error|Exception): /m;

/**
 * A check run that failed or verified nothing, in the words its tools print: a test runner's summary
 * of failures or errors, pytest (`=== 1 failed, 5 passed in 0.12s ===`; with -q `1 failed, 5 passed in
 * 0.12s`, `1 error in 0.3s`; `FAILED path::test`), unittest (`FAILED (failures=1)`), Go (`--- FAIL: TestX`,
 * `FAIL<tab>pkg`), cargo (`test result: FAILED`), Jest and Vitest (`Tests:  1 failed`, `Test Files  1
 * failed`), mocha (`1 failing`), node:test (`# fail 1`); a run of no tests (pytest's `no tests ran`, Jest's
 * `No tests found`); a tool the shell could not find (`bash: pytest: command not found`). A count of 0
 * (`0 failed`) is no failure.
 */
const TEST_RUN_FAILED =
  /^=+ .*\b[1-9]\d* (?:failed|errors?)\b.*=+\s*$|^[1-9]\d* (?:failed|errors?)(?:, \d+ \w+)* in \d+(?:\.\d+)?s\b|^FAILED [^\s:]+::|^FAILED \((?:failures|errors)=[1-9]|^--- FAIL: |^FAIL\t|\btest result: FAILED\b|^\s*Tests?(?: Files)?:? +[1-9]\d* failed\b|^\s*[1-9]\d* failing\s*$|^# fail [1-9]\d*\s*$|^(?:=+ )?no tests ran\b|^No tests found\b|: command not found\b|\bcommand not found: /m;

/** An agent saying it is about to run a check: `I'll run the tests`, `let me verify`, `next, build it`. */
const PLANNED_CHECK =
  /\b(?:i['’]ll|i will|i am going to|i['’]m going to|let me|let['’]s|we['’]ll|we will|next,? i(?:['’]ll| will)?|now i(?:['’]ll| will)?)\s+(?:now\s+|then\s+|also\s+)?(?:(?:re-?)?run|execute|launch|kick off)?\s*(?:the\s+|a\s+|all\s+|our\s+)?(?:unit\s+|integration\s+)?(?:tests?|test suite|checks?|verif(?:y|ication)|validat(?:e|ion)|type-?check|lint|build)\b/i;

/**
 * True when a tool result failed: it records a failure (recorded-failure.ts: an error status, `is_error`,
 * a non-zero `exit_code`), or its text says so beyond doubt: an error at its start ({@link HARD_ERROR}), or a
 * test runner's summary of failures at its start or end, where runners print it ({@link TEST_RUN_FAILED}).
 */
export function failedResult(index: TraceIndex, i: number): boolean {
  if (index.failureRecorded(i)) return true;
  const text = index.content(i);
  if (HARD_ERROR.test(text.slice(0, 2000))) return true;
  return TEST_RUN_FAILED.test(text.length > 4000 ? `${text.slice(0, 2000)}\n${text.slice(-2000)}` : text);
}

/** True for a call that checks (a test, build, lint, type check...), or whose redacted arguments may have. */
function checks(index: TraceIndex, i: number): boolean {
  return VERIFY_TOOL.test(`${index.toolOf(i) ?? ''} ${index.content(i).slice(0, 200)}`) || OPAQUE.test(index.content(i));
}

/** Position of the last state change in [from, pos] with no verification after it, or -1. */
export function unverifiedChange(index: TraceIndex, segment: Segment): number {
  const { pos, keep } = segment;
  const change = lastChange(index, segment);
  if (change === -1) return -1;
  const changer = index.agentOf(change);
  for (let i = change + 1; i <= pos; i++) {
    if (!keep(i)) continue;
    const type = index.types[i];
    if (type === 'aggregate' || type === 'reward') return -1;
    if (type === 'tool_call' && checks(index, i)) return -1;
    if ((type === 'message' || type === 'return') && index.agentOf(i) !== changer && VERIFICATION_TEXT.test(index.content(i))) return -1;
  }
  return change;
}

/** The segment's last state change (state-change.ts `isStateChange`) that `keep` accepts: its position, or -1. */
function lastChange(index: TraceIndex, { from, pos, keep }: Segment): number {
  return lastChangeIn(index, from, pos, keep);
}

/**
 * The result of the last check after the segment's last change ({@link lastCheckResult}), or -1 when
 * the segment changed nothing (a check of nothing the run did says nothing about its work) or no check
 * came after its change.
 */
function checkAfterLastChange(index: TraceIndex, segment: Segment): number {
  const change = lastChange(index, segment);
  return change === -1 ? -1 : lastCheckResult(index, change + 1, segment.pos, segment.keep);
}

/**
 * The result of the last check in [from, pos] that `keep` accepts: a check call (not redacted) answered
 * by a result, not redacted either, before `pos`. Its position, or -1.
 */
function lastCheckResult(index: TraceIndex, from: number, pos: number, keep: (i: number) => boolean): number {
  for (let i = pos; i >= from; i--) {
    if (!keep(i) || index.types[i] !== 'tool_call' || OPAQUE.test(index.content(i)) || !checks(index, i)) continue;
    const result = index.resultOf(i);
    if (result !== -1 && result <= pos && !OPAQUE.test(index.content(result))) return result;
  }
  return -1;
}

/**
 * A check that passed after the last change of the segment: the last check call (not redacted) after
 * the change whose result did not fail. Its result's position, or -1 (also when the segment changed
 * nothing: a check of nothing says nothing about the task).
 */
export function passingCheckAfterLastChange(index: TraceIndex, segment: Segment): number {
  const result = checkAfterLastChange(index, segment);
  return result !== -1 && !failedResult(index, result) ? result : -1;
}

/**
 * The result of the last check after the segment's last change (a check call, not redacted, answered
 * before the stop) when it failed ({@link failedResult}: a test run's own summary of failures, an
 * error, a non-zero exit): the run ended with its own check saying its change does not work (MAST
 * FM-3.3, incorrect verification). Its position, or -1: no change (a check of nothing the run did
 * says nothing about its work: an agent asked why a test fails runs it and sees it fail), no check
 * after the change, or the last one passed.
 */
export function lastCheckFailed(index: TraceIndex, segment: Segment): number {
  const result = checkAfterLastChange(index, segment);
  return result !== -1 && failedResult(index, result) ? result : -1;
}

/**
 * The last agent output of the segment when it announces a check ({@link PLANNED_CHECK}) that no
 * check call or verifying message followed before the stop: its position, or -1.
 */
export function plannedCheckNeverRun(index: TraceIndex, { from, pos, keep }: Segment): number {
  for (let i = pos; i >= from; i--) {
    if (!keep(i)) continue;
    const type = index.types[i];
    if (type === 'tool_call' && checks(index, i)) return -1;
    if (!isAgentOutput(index, i) || type === 'stop') continue;
    const text = index.content(i);
    return PLANNED_CHECK.test(text.slice(-600)) && !VERIFICATION_TEXT.test(text.slice(-600).replace(PLANNED_CHECK, '')) ? i : -1;
  }
  return -1;
}

/**
 * The segment's last tool result when it failed ({@link failedResult}) and the run ended right after
 * it: no tool call and no agent output (a bare `TERMINATE` is none) came after it before the stop.
 * Its position, or -1.
 */
export function unhandledError(index: TraceIndex, { from, pos, keep }: Segment): number {
  let last = -1;
  for (let i = pos; i >= from && last === -1; i--) if (keep(i) && index.types[i] === 'tool_result') last = i;
  if (last === -1 || !failedResult(index, last)) return -1;
  for (let i = last + 1; i <= pos; i++) if (keep(i) && (index.types[i] === 'tool_call' || (index.types[i] !== 'stop' && isAgentOutput(index, i)))) return -1;
  return last;
}

/** The last agent output of the segment when it states an impasse (needs information, cannot go on), else -1. */
export function endsAtImpasse(index: TraceIndex, { from, pos, keep }: Segment): number {
  for (let i = pos; i >= from; i--) {
    if (!keep(i) || !isAgentOutput(index, i) || index.types[i] === 'stop') continue;
    const text = index.content(i);
    return IMPASSE_TEXT.test(text) && !COMPLETION_CLAIM.test(text) ? i : -1;
  }
  return -1;
}

/** Positions of the calls the user refused (`call_status: denied`) in a segment. */
export function deniedCalls(index: TraceIndex, { from, pos, keep }: Segment): number[] {
  const out: number[] = [];
  for (let i = from; i <= pos; i++) if (keep(i) && index.types[i] === 'tool_call' && index.callStatusOf(i) === 'denied') out.push(i);
  return out;
}

/** Positions of state changes in (from, to] that `keep` accepts: the first, or -1. */
export function firstChangeIn(index: TraceIndex, from: number, to: number, keep: (i: number) => boolean): number {
  return firstChangeAt(index, from + 1, to, keep);
}
