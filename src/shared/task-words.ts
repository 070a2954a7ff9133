/**
 * Words about the tasks of two runs compared (otrace diff, the compare view): runs asked different
 * things are compared step by step all the same, which reads as one task done two ways unless said.
 */

/** What the comparison says when the runs' recorded tasks differ. */
export const DIFFERENT_TASKS = 'the runs were asked different things: their steps are paired by agent and kind, not as two ways of doing one task';

/** True when both runs record a task and the tasks differ (a run with no task found says nothing either way). */
export function differentTasks(a: string, b: string): boolean {
  return a.trim() !== '' && b.trim() !== '' && a.trim() !== b.trim();
}
