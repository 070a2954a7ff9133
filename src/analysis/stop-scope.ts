/**
 * What each stop ends (docs/analysis.md "Stops"): the run, a turn or a phase.
 *
 * - `run`: the trace's final stop of a run, or its end without one; a spawned sub-agent's last stop
 *   ends its lane's run. Only run stops get verdicts about the task.
 * - `turn`: a hand-back to a user who may go on. Recorded by the importers (Claude Code and Codex
 *   turn ends); otherwise any stop that a user's prompt follows before the next stop of its run.
 * - `phase`: a stage inside a run: recorded (ChatDev's phases), or any other stop the run went on
 *   after (a stop signal, e.g. an AG2 `TERMINATE` the conversation did not stop at).
 * A recorded scope wins over an inferred one, except that a stop the run went on after (without a
 * user's prompt) is never the run's: it is a phase; and the last stop of the trace's run, recorded as
 * a phase's end, is the run's end too.
 */
import type { TraceIndex } from './trace-index';
import { carriedPositions } from './carried-sweep';

import type { StopScope } from './types';

/** Senders of a prompt that hands the run back to a person. */
const USER_SENDERS = new Set(['user', 'human']);
/** Rows a harness or the user's tools write: not a prompt that starts a new turn. */
const NOT_A_PROMPT = new Set(['local_command', 'meta', 'placeholder', 'missing_parent', 'interruption', 'api_error', 'compaction']);

/**
 * True for a prompt a person wrote: a message from `user` or `human` (its `from`, else its agent),
 * not a local command, a meta row or a placeholder the harness injected.
 */
export function isUserPrompt(index: TraceIndex, i: number): boolean {
  if (index.types[i] !== 'message') return false;
  const kind = index.kindOf(i);
  if ((kind !== undefined && NOT_A_PROMPT.has(kind)) || index.extraOf(i, 'synthetic') === true) return false;
  const sender = (index.fromOf(i) ?? index.agentOf(i)).toLowerCase();
  return USER_SENDERS.has(sender);
}

/** The scope a stop event records (`run`, `turn`, `phase`), or undefined. */
function recordedScope(index: TraceIndex, pos: number): StopScope | undefined {
  const scope = index.extraOf(pos, 'scope');
  return scope === 'run' || scope === 'turn' || scope === 'phase' ? scope : undefined;
}

/**
 * The scope of each stop.
 * @param points stop positions in time order (the synthetic end of the trace last, when there is one)
 * @param keys the run each stop belongs to (`''` the trace's, else the spawned sub-agent whose lane it ends), index for index
 * @param synthetic the position of the synthetic end (-1 when none): always `run`
 * @returns one scope per point
 */
export function stopScopes(index: TraceIndex, points: readonly number[], keys: readonly string[], synthetic: number): StopScope[] {
  const out: StopScope[] = new Array(points.length);
  // next[k]: the position of the next point of the same run, or the trace's end
  const next = new Array<number>(points.length).fill(index.size);
  const seen = new Map<string, number>();
  for (let k = points.length - 1; k >= 0; k--) {
    const later = seen.get(keys[k]);
    if (later !== undefined) next[k] = points[later];
    seen.set(keys[k], k);
  }
  // the user's prompts: a sweep a followed trace keeps (an append reads its new positions only)
  const prompts = carriedPositions(index, 'userPrompts', '', isUserPrompt);
  // a prompt hands the run back to the stop's agent: it is in that agent's lane, addressed to it, or to no one
  const promptTo = (agent: string, from: number, to: number) => {
    for (let k = lowerIndex(prompts, from); k < prompts.length && prompts[k] < to; k++) {
      const by = index.agentOf(prompts[k]);
      const to = index.toOf(prompts[k]);
      if (by === agent || to === agent || (to === undefined && by !== agent && USER_SENDERS.has(by.toLowerCase()))) return true;
    }
    return false;
  };
  for (let k = 0; k < points.length; k++) {
    const pos = points[k];
    if (pos === synthetic) {
      out[k] = 'run';
      continue;
    }
    const recorded = recordedScope(index, pos);
    const last = next[k] === index.size;
    const promptAfter = promptTo(index.agentOf(pos), pos + 1, next[k]);
    // a phase end the trace's run ended with is the run's end too
    if (recorded === 'turn' || (recorded === 'phase' && !(last && keys[k] === ''))) out[k] = recorded;
    else if (promptAfter) out[k] = 'turn';
    else if (last) out[k] = 'run';
    else out[k] = 'phase';
  }
  return out;
}

/** The first k with list[k] >= value (list sorted ascending). */
function lowerIndex(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
