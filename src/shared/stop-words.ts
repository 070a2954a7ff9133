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
 * `unknown` -> `no reason recorded`; a turn end's `task_complete` -> `handed back` (see the module's comment).
 * @param scope `turn`, `phase`, `run` or undefined (a run's stop).
 * @param reason the stop's reason as recorded (untrusted text: the caller escapes it for its surface).
 */
export function stopReasonWords(scope: string | undefined, reason: string): string {
  if (scope === 'turn' && reason === 'task_complete') return 'handed back';
  // the trace gives no reason: said so, never a bare "unknown" (read as a verdict about the stop)
  if (reason === 'unknown') return 'no reason recorded';
  return reason.replace(/_/g, ' ');
}

/**
 * How a stop ended, in words: `turn ended (handed back)`, `phase ended (max turns)`, `stopped (error)`.
 * @param scope as for {@link stopReasonWords}; @param reason the recorded reason.
 */
export function endedWords(scope: string | undefined, reason: string): string {
  return `${ENDED_WORDS[scope ?? 'run'] ?? 'stopped'} (${stopReasonWords(scope, reason)})`;
}

/** Why a trace with no stop event says nothing of its end: cut off inside a record, or still being written. */
export type Unended = 'cut off' | 'in progress';

/**
 * How a trace with no stop event ended, in words: `no stop in the file: it ends after its last
 * event`, or what is known of why it says nothing of its end (RunSummary `ended.unended`): the file
 * is cut off inside a record, or it is still being written.
 */
export function noStopWords(unended?: Unended): string {
  if (unended === 'cut off') return 'not known: the file is cut off inside a record (a crash, a copy cut short), so how the run ended is not in it';
  if (unended === 'in progress') return 'not yet: still being written';
  return 'no stop in the file: it ends after its last event';
}

/**
 * A stop's message without the words that name the stop (`turn ended (handed back): `, `sound stop
 * (task_complete): `), for a view that shows its mark or label just before it (otrace analyze, the
 * hover): said twice, they read as a stutter. Messages that start otherwise are kept.
 */
export function withoutStopLead(message: string): string {
  return message.replace(/^(?:sound )?(?:turn ended|phase ended|stop|end of trace)(?: \([^)]*\))?: /, '');
}
