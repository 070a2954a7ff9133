/**
 * How an agent is named by its kind and what it is for: `Explore: find the config loader`, but
 * `Explore existing codebase` where the task already starts with the kind (Claude Code writes
 * descriptions like that: "Explore: Explore existing codebase" said the kind twice). Pure: no DOM.
 */

/** The label of a lane that compacts another's context (src/engine/lane-labels.ts): a compaction, not an agent of the run. */
export const COMPACTION_LABEL = 'context compaction';

/**
 * `<kind>: <task>`, or the task alone when its first word is the kind (compared without case;
 * the kind's own words, e.g. `general-purpose`, count as one) or there is no kind.
 * @param kind e.g. `Explore` (a sub-agent type, a role).
 * @param task what it was asked or is for, one line.
 */
export function kindAndTask(kind: string, task: string): string {
  const head = task.trimStart().slice(0, kind.length);
  const after = task.trimStart().charAt(kind.length);
  if (kind === '') return task;
  const startsWithKind = head.toLowerCase() === kind.toLowerCase() && (after === '' || !/[\p{L}\p{N}_-]/u.test(after));
  return startsWithKind ? task.trimStart() : `${kind}: ${task}`;
}

/**
 * `3 agents`, or `3 agents · 1 context compaction` when some of the lanes are compactions (labelled
 * {@link COMPACTION_LABEL}): a compaction summarises a lane's context; it is no agent of the run.
 * @param labels each lane's label (undefined for a lane shown by its name).
 */
export function agentCountWords(labels: readonly (string | undefined)[]): string {
  const compactions = labels.filter((l) => l === COMPACTION_LABEL).length;
  const agents = labels.length - compactions;
  const words = `${agents.toLocaleString('en-US')} ${agents === 1 ? 'agent' : 'agents'}`;
  return compactions ? `${words} · ${compactions.toLocaleString('en-US')} ${compactions === 1 ? 'context compaction' : 'context compactions'}` : words;
}
