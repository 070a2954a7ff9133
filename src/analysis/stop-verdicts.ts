/**
 * The verdict at one stop (docs/analysis.md "Stops"). Turn and phase stops get none: a turn end is
 * "turn ended" (its reason kept), a phase end "phase ended". A run stop gets, each with its evidence
 * (events) and a confidence (`low` is shown as info):
 * - no_stop: the run ended without a stop and without a completion claim (high), ended inside an
 *   unresolved loop of >= 3 repetitions or >= 4 events, or a hand-set limit (max_turns, budget,
 *   timeout) cut a repeated cycle, or ended an exchange of >= 4 turns, none of which concluded (medium).
 * - premature (MAST 3.1): the run ended before something its outcome needed, and the outcome is a
 *   failure or unknown: spawned agents still at work (high); a check the last agent output announced
 *   and never ran, or a failed tool result the run ended right after (medium); a change no check followed, or
 *   an impasse stated as the last output (low).
 * - delayed (MAST 1.5, unaware of termination conditions): an answer was final and later work did not
 *   change it: a termination signal (a completion claim, an AG2 `TERMINATE` or `\boxed{}` stop the run
 *   went on after) repeated with another agent's output between and the answer unchanged (high from
 *   3 signals, else medium), an impasse repeated likewise (medium), or >= `minWasted` events (and 10 %
 *   of the segment) after the done point, with no change after it: the first completion claim made when
 *   the run's explicit final answer had been stated, or that first statement (medium; a bare claim
 *   followed by checks is no evidence), or the reward's peak (high).
 * A run that stopped on a completion after repeating its termination signal is delayed, not no_stop,
 * even when the repetition is the loop it ended in.
 * When both premature and delayed are found, the more confident is the finding (delayed on a tie: a
 * wrong "premature" costs more trust than a missed one).
 * Sound (`sound: true`) only for a run stop with no failure found, ended as meant (a completion or an
 * unknown reason: not an error, an abort or a limit), when the trace records success:
 * an outcome of success (the trace's, or one the user stated), or a check that passed after the last change.
 */
import type { StopReason } from '../trace/schema';
import { explicitAnswer, isAgentOutput } from './answer';
import { carriedPositions } from './carried-sweep';
import { causesBefore } from './loops/agent-output';
import { toolLanesKey } from './prefix-carry';
import { upperBound } from './sorted';
import type { AnswerStatements } from './answer-statement';
import { claimsCompletion, statesImpasse, type StopContext } from './stop-context';
import { COMPLETION_CLAIM, withoutFencedCode } from './text';
import {
  deniedCalls,
  endsAtImpasse,
  firstChangeIn,
  passingCheckAfterLastChange,
  plannedCheckNeverRun,
  lastCheckFailed,
  unhandledError,
  unverifiedChange,
  type Segment,
} from './stop-evidence';
import type { TraceIndex } from './trace-index';
import { eventFieldsOf, fieldsRecordTokens } from '../trace/event-fields';
import { formatAt, formatSpent, timeUnitOf } from '../trace/units';
import type { Confidence, Loop, Outcome, Spent, StopFinding, StopScope } from './types';
import { DURING_A_TOOL_CALL, stopReasonWords } from '../shared/stop-words';
import { oneLine } from './run-summary';

export const LIMIT_REASONS = new Set<StopReason>(['max_turns', 'budget_exhausted', 'timeout']);
const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };
const ZERO: Spent = { events: 0, tokens: 0, seconds: 0 };

/** The message of the end of a trace still being written (StopOptions.inProgress). */
export const NO_STOP_YET = 'no stop yet: the file is still being written (the run is in progress); no verdict until it ends';

/** The message of the end of a trace whose file ends in a cut-off line (and is not being written). */
export const CUT_OFF_END = 'no verdict about the end: the file ends in a cut-off line (still being written, or its writer stopped mid-record: a crash, a copy cut short); how the run ended is not in the file';

/** What a judgement needs besides the stop's segment. */
export interface StopJudge {
  ctx: StopContext;
  answers: AnswerStatements;
  outcome: Outcome;
  minWasted: number;
  /** Work in [from, to] from a start time, counting positions `keep` accepts. */
  spent: (from: number, to: number, startTime: number, keep?: (i: number) => boolean) => Spent;
  /** The trace is still being written (StopOptions.inProgress): its end is no stop of the run. */
  inProgress?: boolean;
  /** True for a position whose event's file ends in a cut-off line (a record written in part): what came after it is not in the file. */
  cutOff?: (pos: number) => boolean;
}

/** One stop to judge. */
export interface StopAt {
  segment: Segment;
  scope: StopScope;
  /** The end of the trace standing for a stop it lacks. */
  synthetic: boolean;
  reason: StopReason;
  reasonSource: StopFinding['reason_source'];
  /** True for the run of the trace itself (not a sub-agent's lane). */
  mainRun: boolean;
  /** Earlier stops of this run that said it was over while it went on (recorded `run` stops, AG2 `TERMINATE`). */
  earlierSignals: number[];
}

/** A mode found, with its evidence and how strong it is. */
interface Found {
  confidence: Confidence;
  evidence: string[];
  events: number[];
}

/** The verdict at one stop. */
export function judgeStop(judge: StopJudge, at: StopAt): StopFinding {
  const { ctx } = judge;
  const { index } = ctx;
  const { segment, scope, synthetic, reason, reasonSource } = at;
  const { pos } = segment;
  const e = index.event(pos);
  const base = { event: index.id(pos), index: index.at(pos), synthetic, reason, reason_source: reasonSource, scope } as const;
  // (no reason is no inference: "reason unknown, inferred" would say both)
  const inferred = reasonSource === 'inferred' && reason !== 'unknown' ? ', inferred' : '';
  const reasonText = `${reason}${inferred}`;
  // a turn's end reads by what it was (a hand-back), not by its recorded reason (src/shared/stop-words.ts)
  const scopedText = `${stopReasonWords(scope, reason)}${inferred}`;

  // A stop the user decided (an interruption) is the user's choice, not an agent failure.
  if (!synthetic && (e.kind === 'interruption' || (reason === 'user_abort' && e.decided_by === 'user'))) {
    const denied = deniedCalls(index, segment);
    const what = scope === 'run' ? 'stop' : `${scope} ended`;
    const message = `${what} (${scopedText}): the user stopped the run${denied.length ? ` and refused ${denied.map((d) => index.id(d)).join(', ')}` : ''}; not an agent failure`;
    return { ...base, finding: 'ok', modes: [], sound: false, evidence: [message], wasted: ZERO, message };
  }
  // the end of a trace still being written is not the run's end: no stop yet, and no verdict (MAST's
  // "no stop" is a run that went on without ending; this one has not ended)
  if (synthetic && judge.inProgress) return { ...base, finding: 'ok', modes: [], sound: false, evidence: [], wasted: ZERO, message: NO_STOP_YET, unended: 'in progress' };
  // nor is the end of a file cut off inside a record: the run may have gone on (and stopped) in what was not written;
  // "never stopped" would be a guess (a crash of the writer is not the agents' failure to end)
  if (synthetic && judge.cutOff?.(pos)) return { ...base, finding: 'ok', modes: [], sound: false, evidence: [CUT_OFF_END], wasted: ZERO, message: CUT_OFF_END, unended: 'cut off' };
  // calls the stop left running in the background (recorded by the importer): a designed hand-off, never a premature stop
  const backgroundRunning = index.extraOf(pos, 'background_running');
  const running = Array.isArray(backgroundRunning) ? backgroundRunning.length : 0;
  const handOff = `with ${running} call${running > 1 ? 's' : ''} still running in the background: a designed hand-off (the harness reports back when ${running > 1 ? 'they finish' : 'it finishes'}), not a premature stop`;
  // an error, an abort or a limit ended the run or turn: not a decision to stop (which is what the stop failures judge), nor a hand-back; said as what it was
  const notDecided = !synthetic && NOT_DECIDED[reason];
  const decidedDetail = notDecided && e.detail ? ` (${oneLine(e.detail, DETAIL_CHARS)})` : '';
  if (scope !== 'run') {
    const message =
      scope === 'turn'
        ? running > 0
          ? `turn ended (${scopedText}) ${handOff}; no verdict about the task`
          : notDecided
            ? `turn ended (${scopedText}): ${notDecided.replace(/^the run /, 'the turn ')}${decidedDetail}, not a hand-back the agent chose; the user may go on; no verdict about the task`
            : `turn ended (${scopedText}): the agent handed back to the user, who may go on; no verdict about the task`
        : `phase ended (${scopedText}): a stage inside the run, which went on after it; no verdict about the task`;
    return { ...base, finding: 'ok', modes: [], sound: false, evidence: [], wasted: ZERO, message };
  }

  let noStop = findNoStop(judge, at);
  const premature = judge.outcome.status === 'success' || running > 0 ? undefined : findPremature(judge, at);
  const delayed = findDelayed(judge, at);
  // a run that stopped on its answer after saying it again and again did stop: the cycle it ended in
  // is that repeated signal (unaware of termination), not a run that never stopped
  if (noStop?.onlyLoop && delayed?.repeated && (reason === 'task_complete' || reason === 'quality_met')) noStop = undefined;
  const modes: StopFinding['modes'] = [];
  if (noStop) modes.push('no_stop');
  if (premature) modes.push('premature');
  if (delayed) modes.push('delayed');
  const chosen: { mode: StopFinding['finding']; found?: Found } = noStop
    ? { mode: 'no_stop', found: noStop.found }
    : premature && (!delayed || RANK[premature.confidence] > RANK[delayed.found.confidence])
      ? { mode: 'premature', found: premature }
      : delayed
        ? { mode: 'delayed', found: delayed.found }
        : { mode: 'ok' };
  const finding = chosen.mode;
  const evidence = [...(noStop?.found.evidence ?? []), ...(premature?.evidence ?? []), ...(delayed?.found.evidence ?? [])];
  const events = [...new Set([...(noStop?.found.events ?? []), ...(premature?.events ?? []), ...(delayed?.found.events ?? [])])].sort((a, b) => a - b);
  let wasted = ZERO;
  if (noStop?.wasted) wasted = noStop.wasted;
  else if (finding === 'delayed' && delayed) wasted = delayed.wasted;

  let sound = false;
  let soundBasis = '';
  // a run that ended on an error, an abort or a limit did not end as meant, whatever its score;
  // a trace with no stop event (its end read as the stop) that records a success ended as meant too
  if (finding === 'ok' && (reason === 'task_complete' || reason === 'quality_met' || reason === 'unknown')) {
    if (at.mainRun && judge.outcome.status === 'success') {
      sound = true;
      soundBasis = `the outcome is a success (${judge.outcome.source})`;
    } else if (!synthetic) {
      const check = passingCheckAfterLastChange(index, segment);
      if (check !== -1) {
        sound = true;
        soundBasis = `a check passed after the last change (${index.id(check)})`;
        events.push(check);
      }
    }
  }
  const label = synthetic ? 'end of trace' : `stop (${reasonText})`;
  // the trace records that the run failed: the task was not done, whatever its stop (not "unknown")
  const runFailed = finding === 'ok' && !sound && at.mainRun && judge.outcome.status === 'failure';
  const message =
    finding === 'ok'
      ? sound
        ? `sound ${label}: no stop failure found and ${soundBasis}`
        : notDecided
          ? `${label}: ${notDecided}${decidedDetail}, not a decision to stop; whether the task was done is unknown`
          : runFailed
            ? `${label}: no stop failure found; the run failed (${judge.outcome.source}), so the task was not done`
            : `${label}: no stop failure found; the trace records no success, so whether the task was done is unknown`
      : // a run stopped by a limit while it looped did stop: it stopped still looping ("no stop at stop (max_turns)" read as nonsense)
        `${finding === 'no_stop' ? (synthetic ? 'no stop' : 'still looping') : `${finding} stop`} at ${label}: ${evidence.join('; ')}`;
  const result: StopFinding = { ...base, finding, modes, sound, ...(runFailed ? { run_failed: true as const } : {}), evidence: sound ? [soundBasis] : evidence, wasted, message };
  if (chosen.found) result.confidence = chosen.found.confidence;
  if (events.length) {
    result.evidence_indices = events.map((i) => index.at(i));
    result.evidence_events = events.map((i) => index.id(i));
  }
  if (delayed && finding !== 'premature') {
    result.done_at = index.id(delayed.done);
    result.done_index = index.at(delayed.done);
    result.done_basis = delayed.basis;
  }
  if (premature?.open.length) result.open_spawns = premature.open;
  if (finding === 'premature' && premature?.unverified !== undefined) result.unverified_index = index.at(premature.unverified);
  return result;
}

/** no_stop at a run stop, or undefined. */
function findNoStop(judge: StopJudge, at: StopAt): { found: Found; wasted?: Spent; onlyLoop: boolean } | undefined {
  const { index } = judge.ctx;
  const { segment, synthetic, reason } = at;
  const { from, pos } = segment;
  const claimsDone = reason === 'task_complete' || reason === 'quality_met';
  const evidence: string[] = [];
  const events: number[] = [];
  let confidence: Confidence | undefined;
  let wasted: Spent | undefined;
  if (synthetic && !claimsDone) {
    confidence = 'high';
    const end = howItEnded(index, segment);
    // a file cut off mid-record says how it ended; a reason guessed from the last events would contradict it
    const guessed = reason !== 'unknown' && !end?.startsWith(CUT_OFF) ? ` (last events suggest ${reason})` : '';
    evidence.push(`the trace ends without a stop event${guessed}`);
    if (end) evidence.push(end);
  }
  // a loop the run ended in: unresolved and more than a single echo (>= 3 repetitions or >= 4 events)
  const endLoop = judge.ctx.loopEndingIn(from, pos, (l) => l.unresolved && (l.repetitions >= 3 || l.events.length >= 4));
  if (endLoop && reason !== 'loop_breaker') {
    confidence ??= 'medium';
    evidence.push(`the trace ended inside a loop (${endLoop.kind}, ${endLoop.repetitions} repetitions)`);
    events.push(...loopPositions(index, endLoop));
    wasted = loopWaste(endLoop);
  }
  if (!confidence && LIMIT_REASONS.has(reason)) {
    const cut = judge.ctx.loopEndingIn(from, pos, (l, first, last) => (l.repetitions >= 3 || l.events.length >= 4) && segment.keep(last) && judge.ctx.claimsIn(first, pos) === 0);
    const turns = cut ? 0 : unconcludedExchange(index, segment);
    if (cut) {
      confidence = 'medium';
      evidence.push(`a ${reason} limit ended a repeated cycle (${cut.kind}, ${cut.repetitions} repetitions) in which the agents never concluded`);
      events.push(...loopPositions(index, cut));
      wasted = loopWaste(cut);
    } else if (turns >= 4) {
      confidence = 'medium';
      evidence.push(`a ${reason} limit ended an exchange of ${turns} turns in which the agents never concluded`);
    }
  }
  return confidence ? { found: { confidence, evidence, events }, wasted, onlyLoop: !(synthetic && !claimsDone) && !LIMIT_REASONS.has(reason) } : undefined;
}

function loopPositions(index: TraceIndex, l: Loop): number[] {
  return l.events.slice(0, 1).map((id) => index.pos.get(id) ?? -1).filter((p) => p >= 0);
}

function loopWaste(l: Loop): Spent {
  return { events: Math.round((l.events.length * (l.repetitions - 1)) / l.repetitions), tokens: l.tokens, seconds: l.seconds };
}

/** premature at a run stop (the outcome is not a success), or undefined. */
function findPremature(judge: StopJudge, at: StopAt): (Found & { open: string[]; unverified?: number }) | undefined {
  const { ctx } = judge;
  const { index } = ctx;
  const { segment } = at;
  const evidence: string[] = [];
  const events: number[] = [];
  let confidence: Confidence | undefined;
  const raise = (c: Confidence) => {
    if (!confidence || RANK[c] > RANK[confidence]) confidence = c;
  };
  const open = ctx.openSpawns(segment.pos, segment.keep);
  if (open.length) {
    raise('high');
    evidence.push(`${open.length} spawned agent${open.length > 1 ? 's' : ''} had not returned: ${open.join(', ')}`);
  }
  const planned = plannedCheckNeverRun(index, segment);
  if (planned !== -1) {
    raise('medium');
    events.push(planned);
    evidence.push(`${index.agentOf(planned)} announced a check (${index.id(planned)}) that never ran before the run ended`);
  }
  const error = unhandledError(index, segment);
  if (error !== -1) {
    raise('medium');
    events.push(error);
    evidence.push(`the run ended right after a failed ${index.toolOf(error) ?? 'tool'} result (${index.id(error)}), with nothing done about it`);
  }
  const failedCheck = lastCheckFailed(index, segment);
  if (failedCheck !== -1 && failedCheck !== error) {
    raise('medium');
    events.push(failedCheck);
    evidence.push(`the last check before the run ended failed (${index.toolOf(failedCheck) ?? 'tool'} result ${index.id(failedCheck)}), and no check passed after it`);
  }
  const unverified = unverifiedChange(index, segment);
  if (unverified !== -1) {
    raise('low');
    events.push(unverified);
    const change = index.event(unverified);
    // named by what it was and when (ids are uuids a reader cannot place)
    evidence.push(`no test or check ran after the last change (${change.tool ?? change.type} by ${change.agent} at ${formatAt(change.t, timeUnitOf(index.loaded))})`);
  }
  const impasse = endsAtImpasse(index, segment);
  if (impasse !== -1) {
    raise('low');
    events.push(impasse);
    evidence.push(`the run ended right after ${index.agentOf(impasse)} said it could not go on without more information (${index.id(impasse)})`);
  }
  return confidence ? { confidence, evidence, events, open, ...(unverified !== -1 ? { unverified } : {}) } : undefined;
}

/** delayed at a run stop, or undefined. */
function findDelayed(judge: StopJudge, at: StopAt): { found: Found; done: number; basis: NonNullable<StopFinding['done_basis']>; wasted: Spent; repeated?: boolean } | undefined {
  const { ctx, answers, spent, minWasted } = judge;
  const { index } = ctx;
  const { segment, synthetic, reason } = at;
  const { from, pos, keep } = segment;
  const endOfWork = pos - (synthetic ? 0 : 1);
  const concluded = reason === 'task_complete' || reason === 'quality_met';
  const final = answers.runAnswer(from, pos, concluded, keep);
  const finalExplicit = final?.explicit ? final.answer : undefined;

  // repeated termination signals with the answer unchanged
  const signals = terminationSignals(index, answers, segment, at.earlierSignals);
  const group = unchangedTail(index, signals, keep, finalExplicit);
  if (group.length >= 2 && otherOutputBetween(index, group, keep)) {
    const first = group[0];
    return {
      found: {
        confidence: group.length >= 3 ? 'high' : 'medium',
        evidence: [`a termination signal (completion claim) at ${index.id(first)} was repeated ${group.length} times while the exchange went on, the answer unchanged`],
        events: group,
      },
      done: first,
      basis: 'completion_claim',
      wasted: spent(first + 1, endOfWork, index.end(first), keep),
      repeated: true,
    };
  }
  // an impasse said again and again
  const impasses: number[] = [];
  const said = impassesSaid(index);
  for (let k = upperBound(said, from - 1); k < said.length && said[k] < pos; k++) if (keep(said[k])) impasses.push(said[k]);
  if (impasses.length >= 2 && otherOutputBetween(index, impasses, keep)) {
    const first = impasses[0];
    return {
      found: { confidence: 'medium', evidence: [`a termination signal (impasse) at ${index.id(first)} was repeated ${impasses.length} times while the exchange went on`], events: impasses },
      done: first,
      basis: 'impasse',
      wasted: spent(first + 1, endOfWork, index.end(first), keep),
    };
  }
  // work after the done point, with the answer unchanged
  const candidates: { pos: number; basis: NonNullable<StopFinding['done_basis']>; confidence: Confidence }[] = [];
  const stated = final ? answers.firstStating(final, from, keep) : -1;
  const signalled = completionSignals(index, answers);
  for (let k = upperBound(signalled, from - 1); k < signalled.length && signalled[k] < pos; k++) {
    const i = signalled[k];
    // a claim a stop of its stage heeded (a ChatDev phase's `<INFO>`) ended that stage, not the run
    if (!keep(i) || heeded(index, i, pos)) continue;
    // the claim stands when the run's explicit final answer was stated by then (a bare claim followed by checks is no evidence)
    if (finalExplicit === undefined || stated > i) break;
    candidates.push({ pos: i, basis: 'completion_claim', confidence: 'medium' });
    break;
  }
  const rewards = ctx.rewardsIn(from, pos).filter((r) => keep(r.pos));
  if (rewards.length >= 2) {
    let best = -Infinity;
    let peak = -1;
    for (const r of rewards) if (r.value > best) {
      best = r.value;
      peak = r.pos;
    }
    if (peak !== -1) candidates.push({ pos: peak, basis: 'reward', confidence: 'high' });
  }
  if (finalExplicit !== undefined && stated !== -1 && stated < pos) candidates.push({ pos: stated, basis: 'final_answer', confidence: 'medium' });
  for (const c of candidates.sort((a, b) => a.pos - b.pos)) {
    if (c.basis !== 'reward' && firstChangeIn(index, c.pos, endOfWork, keep) !== -1) continue; // later work changed something
    const after = spent(c.pos + 1, endOfWork, index.end(c.pos), keep);
    let before = segment.all ? c.pos + 1 - from : 0;
    if (!segment.all) for (let i = from; i <= c.pos; i++) if (keep(i)) before++;
    if (after.events < minWasted || after.events < 0.1 * before) continue;
    return {
      found: { confidence: c.confidence, evidence: [`work went on after the task was done at ${index.id(c.pos)} (${c.basis.replace('_', ' ')}): ${formatSpent(after, timeUnitOf(index.loaded), fieldsRecordTokens(eventFieldsOf(index.loaded)))}`], events: [c.pos] },
      done: c.pos,
      basis: c.basis,
      wasted: after,
    };
  }
  return undefined;
}

/** Quoted text: an instruction that quotes the words of a signal (`reply "<INFO> Finished"`) gives none. */
const QUOTED = /"[^"\n]{0,200}"|“[^”\n]{0,200}”/g;

/**
 * True when an agent's own output (not a sub-agent's return, an assignment that opens a delegated
 * conversation, a plan or a restatement of the task) ends with a completion claim: in its last 400
 * characters, outside quotes.
 */
function signalsCompletion(index: TraceIndex, answers: AnswerStatements, i: number): boolean {
  const type = index.types[i];
  if (type === 'return' || type === 'stop' || !isAgentOutput(index, i) || !claimsCompletion(index, i) || !answers.ownWords(i)) return false;
  return COMPLETION_CLAIM.test(index.content(i).slice(-400).replace(QUOTED, ' '));
}

/** True when a stop of the conversation came right after the claim at `i` (before any other agent output): the claim was heeded. */
function heeded(index: TraceIndex, i: number, pos: number): boolean {
  for (let j = i + 1; j < pos; j++) {
    if (index.types[j] === 'stop') return true;
    if (isAgentOutput(index, j)) return false;
  }
  return false;
}

/**
 * Termination signals of a segment in time order: agent outputs claiming completion (not a
 * sub-agent's return), and the outputs behind earlier stops that said the run was over.
 */
function terminationSignals(index: TraceIndex, answers: AnswerStatements, { from, pos, keep }: Segment, earlier: readonly number[]): number[] {
  const out = new Set<number>();
  const signalled = completionSignals(index, answers);
  for (let k = upperBound(signalled, from - 1); k < signalled.length && signalled[k] < pos; k++) if (keep(signalled[k]) && !heeded(index, signalled[k], pos)) out.add(signalled[k]);
  for (const s of earlier) {
    if (s < from || s >= pos || !keep(s)) continue;
    const cause = index.parentIdOf(s) ?? index.causesOf(s)?.[0];
    const p = cause === undefined ? undefined : index.pos.get(cause);
    out.add(p !== undefined && p >= 0 && p <= s ? p : s);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * The last signals whose answer did not change: walking back from the last, while no state change
 * lies between two signals and each explicit answer (when one is stated) is the final one.
 */
function unchangedTail(index: TraceIndex, signals: readonly number[], keep: (i: number) => boolean, finalAnswer: string | undefined): number[] {
  if (!signals.length) return [];
  const answerOf = (i: number) => explicitAnswer(withoutFencedCode(index.content(i)));
  let answer = finalAnswer ?? answerOf(signals[signals.length - 1]);
  const out = [signals[signals.length - 1]];
  for (let k = signals.length - 2; k >= 0; k--) {
    const a = answerOf(signals[k]);
    if (a !== undefined && answer !== undefined && a !== answer) break;
    if (firstChangeIn(index, signals[k], signals[k + 1], keep) !== -1) break;
    answer ??= a;
    out.unshift(signals[k]);
  }
  return out;
}

/** True when an agent other than the signals' own wrote an output between the first and the last. */
function otherOutputBetween(index: TraceIndex, signals: readonly number[], keep: (i: number) => boolean): boolean {
  const signalers = new Set(signals.map((i) => index.agentOf(i)));
  for (let i = signals[0] + 1; i < signals[signals.length - 1]; i++) if (keep(i) && isAgentOutput(index, i) && !signalers.has(index.agentOf(i))) return true;
  return false;
}

/** What ended a run whose stop no agent decided, by reason (the stop failures judge decisions to stop). */
const NOT_DECIDED: Partial<Record<string, string>> = {
  error: 'the run ended on an error',
  budget_exhausted: 'the run ran out of its budget',
  max_turns: 'the run reached its turn limit',
  timeout: 'the run timed out',
};

/** Characters of a stop's recorded detail quoted in its message (untrusted text: the views escape it). */
const DETAIL_CHARS = 160;

/** How the evidence of a file that ends in a cut-off line starts. */
const CUT_OFF = 'the file ends in a cut-off line';

/**
 * How a run without a stop ended, from what the file records: a root span still open (`open` on an
 * event without a parent) and a last action that is a tool call with no result (`call_status`
 * `in_progress` when the file is still being written). Undefined when neither holds.
 */
function howItEnded(index: TraceIndex, segment: Segment): string | undefined {
  const { from, pos, keep } = segment;
  const roots = openRoots(index);
  let rootOpen = false;
  for (let k = upperBound(roots, from - 1); k < roots.length && roots[k] <= pos && !rootOpen; k++) rootOpen = keep(roots[k]);
  let last = -1;
  for (let i = pos; i >= from && last === -1; i--) if (keep(i) && index.types[i] !== 'stop') last = i;
  const call = last !== -1 && index.types[last] === 'tool_call' && index.resultOf(last) === -1 ? index.event(last) : undefined;
  // (a cut-off last line is a file being written, or a writer that stopped mid-record: the file cannot tell which)
  if (call?.call_status === 'in_progress') return `${CUT_OFF}: still being written, or its writer stopped mid-record; the last action a tool call with no result${rootOpen ? ' (the root still open)' : ''}`;
  if (rootOpen && call) return `run ended with the root still open, last action a tool call with no result (it ended ${DURING_A_TOOL_CALL})`;
  if (rootOpen) return 'run ended with the root still open';
  if (call) return `run ended ${DURING_A_TOOL_CALL}: last action a tool call with no result`;
  return undefined;
}

/**
 * Longest run of agent outputs in the segment alternating between the same two agents
 * (A, B, A, B, ...), or 0 when any output of the segment claims completion.
 */
function unconcludedExchange(index: TraceIndex, { from, pos, keep }: Segment): number {
  let best = 0;
  let run = 0;
  let prev = '';
  let prevPrev = '';
  for (let i = from; i < pos; i++) {
    if (!keep(i) || !isAgentOutput(index, i)) continue;
    const type = index.types[i];
    if (type !== 'message' && type !== 'orchestrator_decision' && type !== 'aggregate') continue;
    if (claimsCompletion(index, i)) return 0;
    const agent = index.agentOf(i);
    if (agent === prev) continue; // the same speaker again is not a new turn
    run = run >= 1 && agent === prevPrev ? run + 1 : prev ? 2 : 1;
    prevPrev = prev;
    prev = agent;
    best = Math.max(best, run);
  }
  return best;
}

/** The positions of the root spans still open (`open: true` on an event without a parent): one sweep per analysis, which a followed trace's carry keeps. */
function openRoots(index: TraceIndex): readonly number[] {
  return carriedPositions(index, 'openRoots', '', rootOpen);
}

function rootOpen(index: TraceIndex, i: number): boolean {
  return index.parentIdOf(i) === undefined && index.isOpen(i);
}

/** The positions of agent outputs (not returns) that state an impasse: one sweep per analysis (its key: the tool lanes, which say what is an agent's output). */
function impassesSaid(index: TraceIndex): readonly number[] {
  return carriedPositions(index, 'impasses', toolLanesKey(index.toolLanes), saysImpasse);
}

function saysImpasse(index: TraceIndex, i: number): boolean {
  return isAgentOutput(index, i) && index.types[i] !== 'return' && statesImpasse(index, i);
}

/**
 * The positions of agent outputs that end with a completion claim in their own words
 * ({@link signalsCompletion}), ascending: one sweep per analysis (its key: the tool lanes, which say
 * what is an agent's output, and the task statement, which says what restates it; not kept when an
 * output's own words were read from a cause no earlier event carries).
 */
function completionSignals(index: TraceIndex, answers: AnswerStatements): readonly number[] {
  return carriedPositions(index, 'completionSignals', `${toolLanesKey(index.toolLanes)}\u0001${answers.task}`, (at, i, sweep) => {
    const type = at.types[i];
    if (type === 'return' || type === 'stop' || !isAgentOutput(at, i) || !claimsCompletion(at, i)) return false;
    // (the own words of an output whose cause comes later may be read otherwise then)
    if (!causesBefore(at, i)) sweep.carryable = false;
    return signalsCompletion(at, answers, i);
  });
}
