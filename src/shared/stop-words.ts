/**
 * How a stop reads in every view (hover, decoration, graph label, compare, CLI, chat): what it ended
 * (its scope) and why (its reason). A turn's end with reason `task_complete` is a hand-back to the
 * user, who may go on: the importers record that reason for every turn end, but it is no claim that
 * the task was done, so it never reads "task complete" (a stranger took it for a success verdict).
 */

/** What a stop of each scope ended: `turn ended`, `phase ended`, `stopped` (the run). */
export const ENDED_WORDS: Readonly<Record<string, string>> = { turn: 'turn ended', phase: 'phase ended', run: 'stopped' };

/**
 * A stop's reason in words: `task_complete` -> `task complete`, `max_turns` -> `max turns`,
 * `unknown` -> `reason unknown`; a turn end's `task_complete` -> `handed back`, a phase end's -> `done`
 * (see the module's comment).
 * @param scope `turn`, `phase`, `run` or undefined (a run's stop).
 * @param reason the stop's reason as recorded (untrusted text: the caller escapes it for its surface).
 */
export function stopReasonWords(scope: string | undefined, reason: string): string {
  if (scope === 'turn' && reason === 'task_complete') return 'handed back';
  // a stage of the run done (a ChatDev phase, a compaction's summary written): no claim about the task
  if (scope === 'phase' && reason === 'task_complete') return 'done';
  // never a bare "unknown" (read as a verdict about the stop); nor "no reason recorded": a reason the
  // schema does not know loads as unknown (src/trace/read.ts), and it was recorded
  if (reason === 'unknown') return 'reason unknown';
  return reason.replace(/_/g, ' ');
}

/**
 * How a stop ended, in words: `turn ended (handed back)`, `phase ended (max turns)`, `stopped (error)`.
 * @param scope as for {@link stopReasonWords}; @param reason the recorded reason.
 */
export function endedWords(scope: string | undefined, reason: string): string {
  return `${ENDED_WORDS[scope ?? 'run'] ?? 'stopped'} (${stopReasonWords(scope, reason)})`;
}

/** A turn that something cut short is not a hand-back: its words, by stop reason. */
const TURN_CUT: Readonly<Record<string, string>> = {
  error: 'turn ended by an error',
  user_abort: 'turn ended: the user stopped it',
  budget_exhausted: 'turn ended: out of budget',
  max_turns: 'turn ended: turn limit reached',
  timeout: 'turn ended: timed out',
};

/**
 * How a turn's end reads as a sentence, by its reason: `turn ended: handed back to the user`, or
 * what cut it short (`turn ended: the user stopped it`, `turn ended by an error`).
 */
export function turnEndWords(reason: string): string {
  return TURN_CUT[reason] ?? 'turn ended: handed back to the user';
}

/**
 * A stop's reason as a field shows it: in words, with the event's `reason` value after them when the
 * words are not just it spelled out (`handed back (task_complete)`, `task complete`). The value is
 * the loaded event's, not always the file's: an importer maps what its format records (Claude
 * Code's `turn_duration` row -> `task_complete`; the stop's `detail` says from what), so it is
 * not called "recorded" (a user read `recorded: task_complete` and found no such word in the file).
 */
export function reasonField(scope: string | undefined, reason: string): string {
  const words = stopReasonWords(scope, reason);
  // (`unknown` may be a reason the file spelled otherwise: its loaded value is not what was recorded)
  return reason === 'unknown' || words === reason.replace(/_/g, ' ') ? words : `${words} (${reason})`;
}

/** How the evidence of a run that ended in a tool call with no result says so (src/analysis/stop-verdicts.ts; the run summary reads it: `duringCall`). */
export const DURING_A_TOOL_CALL = 'during a tool call';

/** Why a trace with no stop event says nothing of its end: cut off inside a record, or still being written. */
export type Unended = 'cut off' | 'in progress';

/**
 * How a trace with no stop event at its end ended, in words: `no stop at its end: it ends after its
 * last event` (stops of agents may come before: a trace whose work goes on after them), or what is
 * known of why it says nothing of its end (RunSummary `ended.unended`): the file is cut off inside a
 * record, or it is still being written.
 */
export function noStopWords(unended?: Unended, duringCall = false): string {
  if (unended === 'cut off') return 'not known: the file is cut off inside a record (a crash, a copy cut short), so how the run ended is not in it';
  if (unended === 'in progress') return 'not yet: still being written';
  // its last action a tool call that got no result: the run ended while it ran (a crash, a kill), not after it
  if (duringCall) return 'no stop at its end: it ended during a tool call (its last action, with no result)';
  return 'no stop at its end: it ends after its last event';
}

/** What a run summary's end holds (src/analysis/run-summary.ts `SummaryEnd`), as {@link endedLine} reads it. */
export interface EndedFacts {
  scope: string;
  reason: string;
  text: string;
  recorded: boolean;
  unended?: Unended;
  speaker?: string;
  duringCall?: boolean;
}

/**
 * How a run ended, in one line: the stop in words and its words (`stopped: the agent said the task
 * is complete: All tests pass`), or, with no stop at its end, why it says nothing of it and
 * whose last words it has (the speaker named: a sub-agent that spoke last while the main agent
 * waited is not the run). `clean` makes trace text safe where the line is shown (a terminal, a
 * label): the words, the speaker and the stop's words with a recorded reason.
 */
export function endedLine(e: EndedFacts, clean: (text: string) => string = (t) => t): string {
  if (!e.recorded) return `${noStopWords(e.unended, e.duringCall)}${e.text ? `; ${lastWordsOf(e.speaker, clean)}: ${clean(e.text)}` : ''}`;
  // a recorded reason is trace text too (`stopped: budget (recorded: …)`)
  return `${clean(endedWords(e.scope, e.reason))}${e.text ? `: ${clean(e.text)}` : ''}`;
}

/** Whose last words a trace with no stop ends with: `explorer's last words`, else `the agent's last words` (no speaker known). */
export function lastWordsOf(speaker: string | undefined, clean: (text: string) => string = (t) => t): string {
  return speaker === undefined ? "the agent's last words" : `${clean(speaker)}'s last words`;
}

/**
 * A stop's message without the words that name the stop (`turn ended (handed back): `, `sound stop
 * (task_complete): `), for a view that shows its mark or label just before it (otrace analyze, the
 * hover): said twice, they read as a stutter. Messages that start otherwise are kept.
 */
export function withoutStopLead(message: string): string {
  return message.replace(/^(?:sound )?(?:turn ended|phase ended|stop|end of trace)(?: \([^)]*\))?: /, '');
}
