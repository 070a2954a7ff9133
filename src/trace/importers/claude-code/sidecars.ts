/**
 * The files Claude Code 2.1.x writes beside a session's sub-agent transcripts, read when they are
 * there (a session without them reads as before):
 *
 * - `<session>/subagents/agent-<id>.meta.json`: `{agentType, description, toolUseId, spawnDepth?}`;
 *   `toolUseId` names the Agent call that started the agent, exactly.
 * - Workflows (the `Workflow` tool runs a script whose `agent()` calls start agents):
 *   `<session>/subagents/workflows/wf_<runId>/agent-<id>.jsonl` (+ `.meta.json`, `agentType:
 *   "workflow-subagent"`), `…/wf_<runId>/journal.jsonl` (`{type:"started"|"result", key, agentId,
 *   result?}`, one `started` per agent as the script dispatches it), and
 *   `<session>/workflows/wf_<runId>.json` (`{runId, taskId, workflowName, status, agentCount,
 *   workflowProgress: [{type:"workflow_agent", agentId, label, phase, model}], …}`, written when
 *   the run ends; it may be cut off while being written).
 *
 * Shapes: bbingz/engram docs "Claude Code — On-Disk Session Format" (2.1.146-2.1.185) and
 * docs/claude-workflow-subagents-design-2026-07.md; the readers cited in
 * test/fixtures/claude-code-layouts/SOURCE.md. A sidecar or run file that cannot be read is a
 * positioned warning in that file, and the agents are read without it.
 *
 * Pure: imports nothing from `vscode`.
 */
import { parseJsonDocument } from '../../json-positions';
import type { FileAccess } from '../../formats';
import type { Problem } from '../../model';
import { isObject, joinPath, num, str, type JsonlRecord } from '../jsonl-records';
import type { AgentMeta, Json } from './model';

/** What otrace knows of one Workflow run. */
export interface WorkflowRun {
  /** The run id, `wf_…` (the name of its folder). */
  runId: string;
  /** From `<session>/workflows/<runId>.json`: the workflow's name, its background task id, its status. */
  name?: string;
  taskId?: string;
  status?: string;
  /** From the run file's `workflowProgress`: each agent's label and phase. */
  agents: Map<string, { label?: string; phase?: string }>;
  /** The journal's `started` record of each agent (where the script dispatched it), and the journal's path. */
  started: Map<string, JsonlRecord>;
  /** The journal's `result` record of each agent: the value the agent handed back to the run's script. */
  results: Map<string, JsonlRecord>;
  journal?: string;
  /** The Workflow call (tool_use id) that launched it, when the session names it. */
  call?: string;
}

/**
 * The JSON object of a sidecar or run file, or undefined (no file, not an object, or unreadable:
 * a warning positioned in the file, saying what is read without it).
 */
export function readJsonFile(files: FileAccess, path: string, what: string, problems: Problem[]): Json | undefined {
  const text = files.readText(path);
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (isObject(v)) return v;
    problems.push({ severity: 'warning', message: `${what} is not a JSON object; read without it`, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, file: path });
  } catch {
    const p = parseJsonDocument(text).problems[0];
    const why = !p ? 'is not JSON' : p.message.startsWith('the JSON ends early') ? 'is cut off (it may still be being written)' : `is not valid JSON (${p.message.replace(/^JSON syntax error: /, '').replace(/;.*$/, '')})`;
    problems.push({ severity: 'warning', message: `${what} ${why}; read without it`, range: p?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, file: path });
  }
  return undefined;
}

/** The sidecar `agent-<id>.meta.json` of the sub-agent file at `jsonlPath`, when there is one. */
export function readAgentMeta(files: FileAccess, jsonlPath: string, problems: Problem[]): AgentMeta | undefined {
  if (!jsonlPath.endsWith('.jsonl')) return undefined;
  const path = `${jsonlPath.slice(0, -'.jsonl'.length)}.meta.json`;
  const v = readJsonFile(files, path, 'the sub-agent sidecar', problems);
  if (!v) return undefined;
  const meta: AgentMeta = { path };
  const agentType = str(v.agentType);
  if (agentType) meta.agentType = agentType;
  const description = str(v.description);
  if (description) meta.description = description;
  const toolUseId = str(v.toolUseId);
  if (toolUseId) meta.toolUseId = toolUseId;
  const depth = num(v.spawnDepth);
  if (depth !== undefined) meta.spawnDepth = depth;
  const label = str(v.label);
  if (label) meta.label = label;
  const phase = str(v.phase);
  if (phase) meta.phase = phase;
  return meta;
}

/** The Workflow run folders under `<session>/subagents/workflows/` (`wf_*`), in name order, each with its agent transcripts (`agent-*.jsonl`, in name order). */
export function workflowFolders(files: FileAccess, like: string, subDir: string): { runId: string; dir: string; agents: string[] }[] {
  const root = joinPath(like, subDir, 'workflows');
  const runs = files.list(root);
  if (!runs) return [];
  const out: { runId: string; dir: string; agents: string[] }[] = [];
  for (const runId of [...runs].filter((n) => /^wf_[\w.-]+$/.test(n)).sort()) {
    const dir = joinPath(like, root, runId);
    const names = files.list(dir) ?? [];
    out.push({ runId, dir, agents: names.filter((n) => /^agent-.+\.jsonl$/.test(n)).sort().map((n) => joinPath(like, dir, n)) });
  }
  return out;
}

/**
 * What a Workflow run's files say: `<session>/workflows/<runId>.json` (name, task id, status, agent
 * labels) and the journal's records (`journal` the records of `…/wf_<runId>/journal.jsonl`, or
 * undefined when it is absent).
 */
export function readWorkflowRun(files: FileAccess, like: string, sessionDir: string, runId: string, journal: { path: string; records: readonly JsonlRecord[] } | undefined, problems: Problem[]): WorkflowRun {
  const run: WorkflowRun = { runId, agents: new Map(), started: new Map(), results: new Map() };
  const v = readJsonFile(files, joinPath(like, sessionDir, 'workflows', `${runId}.json`), `the workflow run file of ${runId}`, problems);
  if (v) {
    const name = str(v.workflowName) ?? str(v.name);
    if (name) run.name = name;
    const taskId = str(v.taskId);
    if (taskId) run.taskId = taskId;
    const status = str(v.status);
    if (status) run.status = status;
    if (Array.isArray(v.workflowProgress)) {
      for (const p of v.workflowProgress) {
        const agentId = isObject(p) ? str(p.agentId) : undefined;
        if (!agentId || !isObject(p)) continue;
        run.agents.set(agentId, { label: str(p.label), phase: str(p.phase) });
      }
    }
  }
  if (journal) {
    run.journal = journal.path;
    for (const r of journal.records) {
      const agentId = str(r.value.agentId);
      if (r.value.type === 'started' && agentId && !run.started.has(agentId)) run.started.set(agentId, r);
      if (r.value.type === 'result' && agentId && 'result' in r.value) run.results.set(agentId, r); // the last one counts
    }
  }
  return run;
}
