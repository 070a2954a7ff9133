/**
 * `otrace diff --group DIR [--json]`: the runs of one task in a folder (an RL batch, a retry series)
 * clustered by where they leave a reference run and with what step (src/analysis/compare/group.ts),
 * each cluster with how its runs ended and their outcomes. Files a parent trace pulls in (sub-agent
 * files, child rollouts) are part of their parent's run (corpus.ts).
 */
import { analyzeTrace } from '../analysis';
import { groupRuns, type GroupRun, type RunCluster, type RunGroups } from '../analysis/compare';
import type { LoadedTrace } from '../trace/model';
import { clipList, safe, safeJson, safePath, writeLines } from './common';
import { corpusExit, forEachTrace } from './corpus';
import { eventWords } from './diff';

/**
 * Runs `otrace diff --group DIR`: prints the clusters (text or JSON) and returns the exit code (as
 * the other commands over folders: 2 when a file could not be read, 1 when no trace was found or a
 * trace had errors, else 0).
 */
export function groupCommand(dir: string, json: boolean): number {
  const { results, summary } = forEachTrace([dir], (loaded, name): GroupRun => ({ name, loaded, analysis: analyzeTrace(loaded) }));
  const runs = results.map((r) => r.result);
  const groups = groupRuns(runs);
  if (json) process.stdout.write(safeJson(groups) + '\n');
  else if (runs.length > 0) writeLines(process.stdout, groupLines(dir, groups, new Map(runs.map((r) => [r.name, r.loaded]))));
  return corpusExit(summary, [dir]);
}

/** The text lines of `otrace diff --group DIR`. */
export function groupLines(dir: string, g: RunGroups, traces: ReadonlyMap<string, LoadedTrace>): string[] {
  const ref = traces.get(g.reference);
  const lines = [
    `${safePath(dir)}: ${g.runs} run${g.runs === 1 ? '' : 's'}, ${g.clusters.length} cluster${g.clusters.length === 1 ? '' : 's'} by where they leave the reference run`,
    `reference  ${safePath(g.reference)} (${g.reference_basis})`,
  ];
  // clusters say how runs of one task differ: runs of other tasks differ from the start
  const tasks = new Set([...traces.values()].map(taskKey).filter((k) => k !== undefined)).size;
  if (tasks > 1) lines.splice(1, 0, `note       these runs answer ${tasks} different tasks (by task id, else first prompt): runs of other tasks differ from their first step, so the clusters say little; group the runs of one task`);
  g.clusters.forEach((c, k) => {
    lines.push(`cluster ${k + 1}: ${c.runs.length} run${c.runs.length === 1 ? '' : 's'} (${clipList(c.runs, (r) => safePath(r))})`);
    lines.push(`  ${divergence(c, ref, traces.get(c.runs[0]))}`);
    lines.push(`  ended    ${tally(c.ended)}`);
    lines.push(`  outcome  ${tally(c.outcomes)}`);
  });
  return lines;
}

/** What task a run answers: its `task_id`, else its first user prompt (the first 200 characters, spaces folded); undefined when neither is recorded. */
function taskKey(loaded: LoadedTrace): string | undefined {
  const id = loaded.trace.task_id;
  if (typeof id === 'string' && id) return `id:${id}`;
  const prompt = loaded.trace.events.find((e) => e.type === 'message' && (e.from === 'user' || e.agent === 'user') && typeof e.content === 'string' && e.content.trim());
  return prompt ? `prompt:${prompt.content!.replace(/\s+/g, ' ').trim().slice(0, 200)}` : undefined;
}

function divergence(c: RunCluster, ref: LoadedTrace | undefined, first: LoadedTrace | undefined): string {
  const d = c.divergence;
  if (!d) return "the reference's steps throughout";
  const step = Math.floor(d.at) + 1;
  const refStep = d.a_index === null ? '' : ` (${eventWords(ref?.trace.events[d.a_index])})`;
  const own = d.b_index === null ? '' : eventWords(first?.trace.events[d.b_index]);
  if (d.kind === 'only_in_a') return `leave the reference at its step ${step}${refStep}: they leave that step out`;
  if (d.kind === 'only_in_b') return `leave the reference after its step ${Math.max(0, step)}: they do ${own}`;
  return `leave the reference at its step ${step}${refStep}: they do ${own}${d.kind === 'moved' ? ' (a step the reference does elsewhere)' : ' instead'}`;
}

/** `turn ended (handed back) ×3, stopped (max turns) ×1`, most first. */
function tally(counts: Record<string, number>): string {
  return clipList(Object.entries(counts).sort((x, y) => y[1] - x[1]), ([k, n]) => `${safe(k)} ×${n}`);
}
