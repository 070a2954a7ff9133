/**
 * Workflow runs of a Claude Code session (see sidecars.ts for their files): each run's agents are
 * lanes under the `Workflow` call that started the run.
 *
 * - The run is tied to its call by the call's result: `toolUseResult.runId` (or the "wf_…" its text
 *   names), else `toolUseResult.taskId` equal to the run file's `taskId`. A run no call names keeps
 *   its agents' lanes, parented to `main`, with one info saying so (never guessed from time).
 * - Each agent is spawned by the call: a `spawn` event (id `<tool_use_id>:spawn:<agentId>`, in the
 *   calling lane, `tool: "Workflow"`, `role` the agent's label when the run names one), at the time
 *   of the agent's first record, positioned on the journal's `started` record of the agent (else on
 *   the call), with a `spawn` edge to the agent's first event.
 * - The agent's final text returns to the calling lane, to the run's completion notification (a
 *   background run) or the call's result (a run in the foreground).
 *
 * Pure: imports nothing from `vscode`.
 */
import { joinPath, parseTimestamp, recordOrigin, secondsSince } from '../jsonl-records';
import type { FileAccess } from '../../formats';
import type { Origin } from '../../model';
import type { TraceEvent } from '../../schema';
import { MAIN_LANE, WORKFLOW_TOOL, type SourceFile } from './model';
import type { FileScan } from './links';
import { readWorkflowRun, workflowFolders } from './sidecars';
import type { ClaudeImport } from './session';

/**
 * Adds the agent transcripts of the session's Workflow runs to the import's sub-agent files and
 * reads each run's journal and run file into `im.workflowRuns`.
 * @param subDir `<session>/subagents`; @param sessionDir `<session>`; @param like a path whose separator is used.
 */
export function loadWorkflowFiles(im: ClaudeImport, files: FileAccess, like: string, subDir: string, sessionDir: string): void {
  for (const folder of workflowFolders(files, like, subDir)) {
    for (const path of folder.agents) im.addSubFile(path, folder.runId);
    const journalPath = joinPath(like, folder.dir, 'journal.jsonl');
    const journal = im.readOther(journalPath);
    im.workflowRuns.set(folder.runId, readWorkflowRun(files, like, sessionDir, folder.runId, journal ? { path: journalPath, records: journal.records } : undefined, im.problems));
  }
}

/** Ties each run to the Workflow call whose result names it (run id, else background task id), from the files' scans. */
export function linkWorkflowRuns(im: ClaudeImport, scans: readonly FileScan[]): void {
  if (!im.workflowRuns.size) return;
  const workflowCalls = new Set<string>();
  for (const s of scans) for (const id of s.workflowCalls) workflowCalls.add(id);
  for (const s of scans) {
    for (const [id, launch] of s.launches) {
      if (!workflowCalls.has(id)) continue;
      for (const run of im.workflowRuns.values()) {
        if (run.call) continue;
        if ((launch.runId && launch.runId === run.runId) || (!launch.runId && launch.taskId && launch.taskId === run.taskId)) run.call = id;
      }
    }
  }
}

/** The first timestamp of a file's records (epoch ms), or undefined. */
function firstTime(f: SourceFile): number | undefined {
  for (const r of f.records) {
    const ms = parseTimestamp(r.value.timestamp);
    if (ms !== undefined) return ms;
  }
  return undefined;
}

/**
 * The spawns of the Workflow agents, before their files are read (so each spawn comes first among
 * events of the same time): one per agent whose run a call of the session launched.
 */
export function emitWorkflowSpawns(im: ClaudeImport): void {
  for (const f of im.subFiles) {
    const run = f.workflowRun ? im.workflowRuns.get(f.workflowRun) : undefined;
    const callId = run?.call;
    const call = callId ? im.callEvents.get(callId) : undefined;
    if (!run || !callId || !call || !f.agentId) continue;
    const lane = im.subLaneOf(f);
    const started = run.started.get(f.agentId);
    const callOrigin = im.out.originOf(call.id);
    const origin: Origin | undefined = started && run.journal ? recordOrigin(started, run.journal) : callOrigin;
    if (!origin) continue;
    const ms = firstTime(f);
    const callEvent = im.out.get(call.id);
    const label = run.agents.get(f.agentId)?.label ?? f.meta?.label;
    const ev: TraceEvent = { id: `${callId}:spawn:${f.agentId}`, t: ms !== undefined ? secondsSince(im.base, ms) : (callEvent?.t ?? 0), type: 'spawn', agent: call.lane || MAIN_LANE, to: lane.name, tool: WORKFLOW_TOOL, parent: call.id, causes: [call.id] };
    if (label) ev.role = label;
    const what = [run.name, label].filter((x): x is string => !!x).join(': ');
    if (what) ev.content = what;
    im.workflowSpawns.set(lane.name, im.out.add(ev, origin));
  }
}

/** The info about runs whose agents no call of the session launched (positioned at the first such agent's file), or none. */
export function unlinkedRunsNote(im: ClaudeImport): void {
  const unlinked = [...im.workflowRuns.values()].filter((r) => !r.call && im.subFiles.some((f) => f.workflowRun === r.runId));
  if (!unlinked.length) return;
  const first = im.subFiles.find((f) => f.workflowRun === unlinked[0].runId);
  im.problems.push({
    severity: 'info',
    message: `${unlinked.length} workflow run${unlinked.length > 1 ? 's are' : ' is'} not tied to a Workflow call of this session (its agents are shown under main): ${unlinked.map((r) => r.runId).join(', ')}`,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    ...(first?.path ? { file: first.path } : {}),
  });
}

/** The lane that launched a Workflow agent's run (the calling lane), or undefined when no call of the session launched it. */
export function workflowCaller(im: ClaudeImport, runId: string | undefined): { lane: string; call: string } | undefined {
  const callId = runId ? im.workflowRuns.get(runId)?.call : undefined;
  const call = callId ? im.callEvents.get(callId) : undefined;
  return callId && call ? { lane: call.lane || MAIN_LANE, call: callId } : undefined;
}

/** A run's label for its agents' header entries: `{run_id, name?, label?, phase?}`. */
export function workflowHeader(im: ClaudeImport, f: SourceFile): Record<string, string> | undefined {
  if (!f.workflowRun) return undefined;
  const run = im.workflowRuns.get(f.workflowRun);
  const h: Record<string, string> = { run_id: f.workflowRun };
  if (run?.name) h.name = run.name;
  const a = f.agentId ? run?.agents.get(f.agentId) : undefined;
  const label = a?.label ?? f.meta?.label;
  const phase = a?.phase ?? f.meta?.phase;
  if (label) h.label = label;
  if (phase) h.phase = phase;
  if (run?.call) h.launched_by = run.call;
  return h;
}
