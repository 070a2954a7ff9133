/**
 * Verification failures (MAST 3.2 no or incomplete verification, 3.3 incorrect verification): their
 * own findings, not stop verdicts.
 *
 * - uncleared_review: a reviewer's (an agent whose name or role is a reviewer's: Code Reviewer,
 *   critic, verifier, QA, tester) last verdict raised issues and nothing later of that reviewer
 *   approved (medium confidence: the words of a critique are read, not understood).
 * - failing_check_ignored: the last check of the run (a test, build, lint... call) failed, no check
 *   ran after it, and the run then claimed it was done or that the work succeeded ("All tests pass.",
 *   "The build succeeded.": text.ts `claimsSuccess`) (medium).
 * - unverified_claim: the run's final stop claims the task done while the trace's outcome is a
 *   failure (high: the outcome is recorded).
 */
import type { StopReason } from '../trace/schema';
import { isAgentOutput } from './answer';
import { carriedSweep, type Sweep } from './carried-sweep';
import { causesBefore, opensDelegation } from './loops/agent-output';
import { toolLanesKey } from './prefix-carry';
import { APPROVAL_TEXT, COMPLETION_CLAIM, CRITIQUE_TEXT, REVIEWER_ROLE, VERIFY_TOOL, claimsSuccess } from './text';
import type { TraceIndex } from './trace-index';
import { COMPLETION_REASONS, type Outcome, type VerificationFinding } from './types';
import { failedResult } from './stop-evidence';

/**
 * The verification findings of a run that ended at `end` (its final stop or last event).
 * @param endReason the reason of that stop (`unknown` for an end without one)
 */
export function findVerification(index: TraceIndex, outcome: Outcome, end: number, endReason: StopReason): VerificationFinding[] {
  const out: VerificationFinding[] = [];
  const make = (kind: VerificationFinding['kind'], main: number, confidence: VerificationFinding['confidence'], others: number[], message: string): VerificationFinding => ({
    kind,
    event: index.id(main),
    index: index.at(main),
    confidence,
    evidence_indices: others.map((i) => index.at(i)),
    evidence_events: others.map((i) => index.id(i)),
    message,
  });
  if (end < 0) return out;
  const critique = unclearedReview(index, end);
  if (critique !== -1) {
    const who = index.agentOf(critique);
    out.push(make('uncleared_review', critique, 'medium', [], `verification: ${who}'s last review (${index.id(critique)}) raised issues that no later review of theirs cleared (MAST 3.3)`));
  }
  const ignored = ignoredFailingCheck(index, end);
  if (ignored) {
    out.push(
      make('failing_check_ignored', ignored.result, 'medium', [ignored.claim], `verification: the last check (${index.toolOf(ignored.call) ?? 'a check'} by ${index.agentOf(ignored.call)}, ${index.id(ignored.result)}) failed and none ran after it, yet the run then said it was done or succeeded (${index.id(ignored.claim)}; MAST 3.2)`),
    );
  }
  if (COMPLETION_REASONS.has(endReason) && (outcome.status === 'failure' || outcome.status === 'partial') && index.types[end] === 'stop') {
    out.push(make('unverified_claim', end, 'high', [], `verification: the run's stop claims ${endReason} but its outcome is a ${outcome.status} (${outcome.source}): the claim was not verified (MAST 3.3)`));
  }
  return out;
}

/**
 * The last verdict of a reviewer when it is a critique (raises issues, approves nothing) and
 * nothing later of that reviewer approved: the earliest such critique's position, or -1. A delegated
 * conversation's opening message is the assignment, not a verdict.
 */
export function unclearedReview(index: TraceIndex, pos: number): number {
  // a sweep over the outputs (carried-sweep.ts): whether a position is an agent's output depends on the tool lanes
  const key = toolLanesKey(index.toolLanes);
  const sweep = carriedSweep<ReviewSweep>(index, 'reviews', key, () => ({ swept: 0, key, carryable: true, last: new Map(), reviewers: new Map() }), pos + 1);
  const { last, reviewers } = sweep;
  for (let i = sweep.swept; i <= pos; i++) {
    const type = index.types[i];
    if (type !== 'message' && type !== 'return' && type !== 'aggregate') continue;
    const agent = index.agentOf(i);
    const role = index.roleOf(i) ?? '';
    let byRole = reviewers.get(agent);
    if (!byRole) reviewers.set(agent, (byRole = new Map()));
    let reviewer = byRole.get(role);
    if (reviewer === undefined) byRole.set(role, (reviewer = REVIEWER_ROLE.test(`${agent} ${role}`)));
    if (!reviewer || !isAgentOutput(index, i)) continue;
    // (an opening read from a cause no earlier event carries may change when a later one carries it: the state is not kept then)
    if (type === 'message' && !causesBefore(index, i)) sweep.carryable = false;
    if (opensDelegation(index, i)) continue;
    const text = index.content(i);
    if (APPROVAL_TEXT.test(text) || COMPLETION_CLAIM.test(text)) last.set(agent, { i, critique: false });
    else if (CRITIQUE_TEXT.test(text)) last.set(agent, { i, critique: true });
  }
  sweep.swept = Math.max(sweep.swept, pos + 1);
  let found = -1;
  for (const v of last.values()) if (v.critique && (found === -1 || v.i < found)) found = v.i;
  return found;
}

/** {@link unclearedReview}'s sweep: per reviewer its last verdict, and per agent and role whether it is a reviewer. */
interface ReviewSweep extends Sweep {
  last: Map<string, { i: number; critique: boolean }>;
  reviewers: Map<string, Map<string, boolean>>;
}

/** The last check call up to `end` when its result failed, no check ran after it and a completion claim followed. */
function ignoredFailingCheck(index: TraceIndex, end: number): { call: number; result: number; claim: number } | undefined {
  let call = -1;
  for (let i = end; i >= 0 && call === -1; i--) {
    if (index.types[i] !== 'tool_call') continue;
    if (VERIFY_TOOL.test(`${index.toolOf(i) ?? ''} ${index.content(i).slice(0, 200)}`)) call = i;
  }
  if (call === -1) return undefined;
  const result = index.resultOf(call);
  if (result === -1 || result > end || !failedResult(index, result)) return undefined;
  for (let i = result + 1; i <= end; i++) {
    // a claim in an agent's own words (a turn end recorded as task_complete claims nothing): that the
    // task is done, or that the work succeeded ("All tests pass.") in a sentence that negates nothing
    if (isAgentOutput(index, i) && index.types[i] !== 'return' && (COMPLETION_CLAIM.test(index.content(i)) || claimsSuccess(index.content(i)))) return { call, result, claim: i };
  }
  return undefined;
}
