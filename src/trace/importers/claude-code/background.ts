/**
 * Calls that run in the background, and the `<task-notification>` rows that bring their outcome.
 *
 * A Bash call with `run_in_background`, an Agent call run in the background and a Workflow return at
 * once: their result only says the run started (Bash: `toolUseResult.backgroundTaskId` and "Command
 * running in background with ID: <task>"; Agent: `toolUseResult.status: "async_launched"` with its
 * `agentId`; Workflow: `async_launched` with `taskId` and `runId`). Minutes later the harness writes a
 * user row holding one or more
 * `<task-notification><task-id>…</task-id><tool-use-id>…</tool-use-id><status>completed|failed|killed</status><summary>…</summary><result>…</result></task-notification>`
 * blocks (newer versions mark the row `origin: {kind: "task-notification"}`). Shapes: Claude Code
 * 2.1.x sessions (case 28, the spotter fixture's session), and the readers of its sessions cited in
 * test/fixtures/claude-code-layouts/SOURCE.md.
 *
 * Mapping: each block is a `tool_result` of the call it names, from `harness`, at the row's time
 * (`task_id`, `task_status`; `is_error` when the run failed: status `failed`/`error`, or an exit code
 * other than 0 that is not a stop), tied to its call by `<tool-use-id>`, else by `<task-id>` matched
 * to the ids the call's launch result gave (background task id, agent id, run id). A block that names
 * no call of the session stays a `message` from `harness`. Never a human prompt.
 *
 * Pure: imports nothing from `vscode`.
 */
import { setContent, isObject, str } from '../jsonl-records';
import type { Origin } from '../../model';
import type { TraceEvent } from '../../schema';
import { tagBlock, tagValue, WORKFLOW_TOOL, type Json, type LaneState } from './model';
import type { ClaudeImport } from './session';

/** One `<task-notification>` block. */
export interface TaskNotification {
  taskId?: string;
  toolUseId?: string;
  /** `completed`, `failed`, `killed` (stopped by the user or the agent), as written. */
  status?: string;
  summary?: string;
  /** An agent's report, when the block carries it. */
  result?: string;
  /** `<exit-code>`, else the "exit code N" of the summary the harness writes ("… failed with exit code 2"). */
  exitCode?: number;
  /** The block's own text. */
  text: string;
}

/** The `<task-notification>` blocks of a row's text, in order (a block cut off at the end of the text included). */
export function taskNotifications(text: string): TaskNotification[] {
  const out: TaskNotification[] = [];
  const re = /<task-notification>([\s\S]*?)(?:<\/task-notification>|$)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const body = m[1];
    const n: TaskNotification = { text: m[0] };
    const taskId = tagValue(body, 'task-id');
    if (taskId) n.taskId = taskId;
    const toolUseId = tagValue(body, 'tool-use-id');
    if (toolUseId) n.toolUseId = toolUseId;
    const status = tagValue(body, 'status');
    if (status) n.status = status.toLowerCase();
    const summary = tagBlock(body, 'summary')?.trim();
    if (summary) n.summary = summary;
    const result = tagBlock(body, 'result')?.trim();
    if (result) n.result = result;
    const code = tagValue(body, 'exit-code') ?? /\bexit code:? *(-?\d+)\b/i.exec(summary ?? '')?.[1];
    if (code !== undefined && /^-?\d+$/.test(code)) n.exitCode = Number(code);
    out.push(n);
    if (m[0].length === 0) re.lastIndex++;
  }
  return out;
}

/** True when the run a notification reports failed: status `failed`/`error`, or an exit code other than 0 (a stopped run, `killed`, is no failure). */
export function notificationFailed(n: TaskNotification): boolean {
  if (n.status === 'failed' || n.status === 'error') return true;
  return n.status !== 'killed' && n.exitCode !== undefined && n.exitCode !== 0;
}

/**
 * The ids a call's result gives to the run it launched in the background, or undefined when the
 * call did not go to the background: `toolUseResult.backgroundTaskId` (Bash), `status:
 * "async_launched"` / `isAsync` with `taskId`, `agentId`, `runId` (Agent, Workflow), the "Command
 * running in background with ID: X" / "agentId: X" of its text, a Workflow's "runId: wf_X"; an input with
 * `run_in_background: true` is a background launch even when its result names no id.
 */
export function backgroundLaunch(tool: string, input: Json | undefined, toolUseResult: Json | undefined, text: string): string[] | undefined {
  const ids: string[] = [];
  const add = (v: unknown) => {
    const s = str(v);
    if (s && !ids.includes(s)) ids.push(s);
  };
  const r = toolUseResult;
  const launched = !!r && (typeof r.backgroundTaskId === 'string' || r.status === 'async_launched' || r.isAsync === true);
  if (r) for (const k of ['backgroundTaskId', 'taskId', 'task_id', 'agentId', 'runId']) if (launched) add(r[k]);
  const fromText = /^Command running in background with ID: ([\w.-]+)/.exec(text)?.[1];
  add(fromText);
  const async = /^Async agent launched/.test(text);
  if (async) add(/\bagent_?[iI]d: ([\w@.-]+)/.exec(text)?.[1]);
  // a Workflow's "Workflow launched … runId: wf_…" (its run id, when the result object does not give it)
  const run = tool === WORKFLOW_TOOL && /\blaunched\b|\bstarted\b|\bbackground\b/i.test(text) ? /\b(wf_[\w-]+)/.exec(text)?.[1] : undefined;
  add(run);
  if (!launched && !fromText && !async && !run && !(input?.run_in_background === true)) return undefined;
  return ids;
}

/**
 * Notes a call's launch in the background: its ids point to it, it is pending in its lane (until
 * its notification), and its event says so (`background: true`).
 */
export function noteLaunch(im: ClaudeImport, toolUseId: string, ids: readonly string[]): void {
  const call = im.callEvents.get(toolUseId);
  for (const id of ids) {
    const calls = im.background.get(id) ?? [];
    if (!calls.includes(toolUseId)) im.background.set(id, [...calls, toolUseId]);
  }
  if (!call) return;
  const e = im.out.get(call.id);
  if (e) (e as Json).background = true;
  const lane = im.lanes.get(call.lane);
  if (lane && !im.notified.has(toolUseId)) {
    lane.background ??= [];
    if (!lane.background.includes(toolUseId)) lane.background.push(toolUseId);
  }
}

/**
 * The tool_use id of the call a notification reports on: its `<tool-use-id>`, else its `<task-id>`
 * as a launch named it (the latest launch still waiting for its outcome, else the latest: a resumed
 * agent keeps its id), else the agent call whose agent it is.
 */
export function callOfNotification(im: ClaudeImport, n: TaskNotification): string | undefined {
  if (n.toolUseId && im.callEvents.has(n.toolUseId)) return n.toolUseId;
  if (!n.taskId) return undefined;
  const launched = (im.background.get(n.taskId) ?? []).filter((id) => im.callEvents.has(id));
  const waiting = launched.filter((id) => !im.notified.has(id));
  const latest = waiting[waiting.length - 1] ?? launched[launched.length - 1];
  if (latest) return latest;
  for (const [id, c] of im.calls) if (c.agentId === n.taskId && im.callEvents.has(id)) return id;
  return undefined;
}

/**
 * A user row of task notifications: one event per block (the first takes the row's uuid, the others
 * `<uuid>:<k>`), each the outcome of the call it names (see the file comment), else a message from
 * `harness`. Returns the ids, in order.
 */
export function readNotifications(im: ClaudeImport, lane: LaneState, uuid: string, text: string, blocks: readonly TaskNotification[], ms: number, origin: Origin): string[] {
  const ids: string[] = [];
  blocks.forEach((n, k) => {
    const id = k === 0 ? uuid : `${uuid}:${k + 1}`;
    const content = blocks.length === 1 ? text : n.text;
    const toolUseId = callOfNotification(im, n);
    const call = toolUseId ? im.callEvents.get(toolUseId) : undefined;
    if (!toolUseId || !call) {
      const ev: TraceEvent = { id, t: 0, type: 'message', agent: lane.name, from: 'harness', to: lane.name };
      setContent(ev, content);
      if (n.taskId) (ev as Json).task_id = n.taskId;
      if (n.status) (ev as Json).task_status = n.status;
      ids.push(im.emit(lane, ev, ms, origin));
      im.notificationKinds.unlinked++;
      return;
    }
    const ev: TraceEvent = { id, t: 0, type: 'tool_result', agent: lane.name, from: 'harness', tool: call.tool };
    setContent(ev, content);
    const x = ev as Json;
    if (n.taskId) x.task_id = n.taskId;
    if (n.status) x.task_status = n.status;
    if (n.exitCode !== undefined) x.exit_code = n.exitCode;
    if (notificationFailed(n)) {
      x.is_error = true;
      im.notificationKinds.failed++;
    }
    const delegated = im.out.get(call.id)?.type === 'delegate';
    // a sub-agent's report causes it (finishLanes adds the return); a command's run is caused by its call
    if (!delegated) ev.causes = [call.id];
    const eid = im.emit(lane, ev, ms, origin);
    im.out.edge(call.id, eid, 'tool_dependency');
    // it reports on its call, and on every other launch of the same run still waiting (an agent resumed before it finished)
    const covered = [toolUseId, ...(n.taskId ? (im.background.get(n.taskId) ?? []).filter((id) => id !== toolUseId && !im.notified.has(id)) : [])];
    for (const id of covered) {
      const list = im.notified.get(id) ?? [];
      list.push(eid);
      im.notified.set(id, list);
      im.answered.add(id);
      const owner = im.lanes.get(im.callEvents.get(id)?.lane ?? '');
      if (owner?.background) owner.background = owner.background.filter((b) => b !== id);
    }
    im.notificationKinds.linked++;
    ids.push(eid);
  });
  return ids;
}

/** Statuses of a background task that has ended. */
const ENDED = new Set(['completed', 'failed', 'killed', 'stopped', 'error', 'cancelled']);

/**
 * A result that says a background task ended before its notification came: a `TaskOutput` result
 * (`toolUseResult.task` `{task_id, status}`) or a `TaskStop` one (`{task_id, message: "Successfully
 * stopped task: …"}`). The calls that launched it no longer run in the background (their
 * notification, when it comes, is still their outcome).
 */
export function noteTaskEnd(im: ClaudeImport, r: Json | undefined): void {
  const task = isObject(r?.task) ? r.task : r;
  const id = str(task?.task_id) ?? str(task?.taskId);
  if (!id) return;
  const status = str(task?.status);
  const stopped = typeof r?.message === 'string' && /\bstopped\b/i.test(r.message);
  if (!(status && ENDED.has(status.toLowerCase())) && !stopped) return;
  for (const callId of im.background.get(id) ?? []) {
    im.ended.add(callId);
    const owner = im.lanes.get(im.callEvents.get(callId)?.lane ?? '');
    if (owner?.background) owner.background = owner.background.filter((b) => b !== callId);
  }
}

/** True when a user row is written by the harness, not typed by a person: `origin.kind` other than `human`, or `promptSource: "system"`. */
export function harnessRow(v: Json): boolean {
  const kind = isObject(v.origin) ? str(v.origin.kind) : undefined;
  return (kind !== undefined && kind !== 'human') || v.promptSource === 'system';
}
