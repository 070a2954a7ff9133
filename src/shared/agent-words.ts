/**
 * How an agent is named by its kind and what it is for: `Explore: find the config loader`, but
 * `Explore existing codebase` where the task already starts with the kind (Claude Code writes
 * descriptions like that: "Explore: Explore existing codebase" said the kind twice). Pure: no DOM.
 */

/** The label of a lane that compacts another's context (src/engine/lane-labels.ts): a compaction, not an agent of the run. */
export const COMPACTION_LABEL = 'context compaction';

/**
 * True when `task` starts with `kind` as a word of its own (compared without case; the kind's own
 * words, e.g. `general-purpose`, count as one): the task names its kind already.
 */
export function namesKind(kind: string, task: string): boolean {
  const text = task.trimStart();
  const after = text.charAt(kind.length);
  return kind !== '' && text.slice(0, kind.length).toLowerCase() === kind.toLowerCase() && (after === '' || !/[\p{L}\p{N}_-]/u.test(after));
}

/**
 * `<kind>: <task>`, or the task alone when it names its kind already ({@link namesKind}) or there is no kind.
 * @param kind e.g. `Explore` (a sub-agent type, a role).
 * @param task what it was asked or is for, one line.
 */
export function kindAndTask(kind: string, task: string): string {
  if (kind === '') return task;
  return namesKind(kind, task) ? task.trimStart() : `${kind}: ${task}`;
}

/** How many of the lanes' labels (undefined or null for a lane shown by its name) say a compaction ({@link COMPACTION_LABEL}). */
export function compactionsIn(labels: readonly (string | null | undefined)[]): number {
  return labels.filter((l) => l === COMPACTION_LABEL).length;
}

/** ` · 1 context compaction` (` · 2 context compactions`), or nothing for none: what follows a count of agents. */
export function compactionWords(compactions: number): string {
  return compactions ? ` · ${compactions.toLocaleString('en-US')} ${compactions === 1 ? 'context compaction' : 'context compactions'}` : '';
}

/**
 * `3 agents`, or `3 agents · 1 context compaction` when some of the lanes are compactions: a
 * compaction summarises a lane's context; it is no agent of the run.
 * @param lanes every lane (compactions included); @param compactions how many of them are compactions.
 */
export function agentCountWords(lanes: number, compactions: number): string {
  const agents = lanes - compactions;
  return `${agents.toLocaleString('en-US')} ${agents === 1 ? 'agent' : 'agents'}${compactionWords(compactions)}`;
}
