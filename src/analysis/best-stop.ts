/**
 * The hindsight best stop: where the run could have stopped with what it finally had.
 *
 * - With a reward series: the last improvement of the reward (the survey's definition).
 * - Else: the first agent output that states the answer the run ended with (or the same explicit
 *   answer): never a root span, a plan, a user's prompt, a tool's result or a placeholder
 *   ({@link AnswerStatements}). A run that ended without an answer (on a limit, an error, a
 *   plan) has no best stop: null.
 */
import type { AnswerStatements } from './answer-statement';
import type { RewardPoint } from './outcome';
import type { TraceIndex } from './trace-index';
import type { BestStop, Spent } from './types';

/**
 * The best stop of a run.
 * @param rewards the main reward series (outcome.ts `mainRewardSeries`), empty when none
 * @param answers the trace's answer statements
 * @param runEnd the position of the run's final stop (or last event)
 * @param concluded true when the run's final stop presents its last output as the result (a completion reason)
 * @param endKnown false when the file does not hold the run's end (cut off inside a record, or still
 * being written, with no stop): then no answer is the one the run ended with, and only a reward can place the best stop
 * @param isWork true for an event that is work of the run (what "came after" counts)
 * @param spent the work in positions [from, to] from a start time
 */
export function bestStopPoint(
  index: TraceIndex,
  rewards: readonly RewardPoint[],
  answers: AnswerStatements,
  runEnd: number,
  concluded: boolean,
  endKnown: boolean,
  isWork: (i: number) => boolean,
  spent: (from: number, to: number, startTime: number) => Spent,
): BestStop | null {
  const n = index.size;
  if (n === 0 || runEnd < 0) return null;
  let pos = -1;
  let basis: BestStop['basis'] = 'final_answer';
  if (rewards.length) {
    let best = -Infinity;
    for (const r of rewards) if (r.value > best) {
      best = r.value;
      pos = r.pos;
    }
    basis = 'reward';
  } else {
    if (!endKnown) return null;
    const answer = answers.runAnswer(0, runEnd, concluded);
    if (!answer) return null;
    pos = answers.firstStating(answer, 0);
  }
  if (pos === -1) return null;
  let last = n - 1;
  while (last > pos && !isWork(last)) last--;
  return { event: index.id(pos), index: index.at(pos), basis, after: spent(pos + 1, last, index.end(pos)) };
}
