/**
 * Importer of Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`) and
 * the sub-agent transcripts beside them (`<session>/subagents/agent-<agentId>.jsonl`, with their
 * sidecars `agent-<agentId>.meta.json`, and a Workflow's `subagents/workflows/wf_<runId>/`: see
 * sidecars.ts, workflows.ts), which are read through the {@link FileAccess} given to `read` when the
 * session is opened.
 *
 * The record format (Claude Code 1.x-2.1.x; described in the corpus' SOURCE.md and seen in real files):
 * every line is `{type, uuid, parentUuid, timestamp, sessionId, isSidechain, agentId?, ...}`;
 * `assistant` records carry an Anthropic Messages API `message` (`id`, `content[]` of text / thinking /
 * tool_use blocks, `stop_reason`, `usage`), one content block per record in 2.x (records of one API
 * message share `message.id`); `user` records carry a prompt or `tool_result` blocks (+ `toolUseResult`);
 * `progress` records mirror sub-agent messages (`data.type: agent_progress`, `data.agentId`,
 * `parentToolUseID` = the spawning call); `system` records mark turn ends (`stop_hook_summary`,
 * `turn_duration`) and compaction (`compact_boundary`); a compacted conversation continues with a
 * `user` record flagged `isCompactSummary`.
 *
 * Mapping to the trace:
 * - lanes: `main`, and one per sub-agent, `<subagent_type>:<agentId>` (`compact:<agentId>` for the
 *   internal compaction agent `agent-acompact-*`, which is handed main's conversation (a `message`
 *   edge from the event it forked at to its task, no spawn) and returns the summary that continues
 *   main (a `return` edge to the compaction event)); the meta rows a forking sub-agent's file opens
 *   with (the compaction agent's copies of the session's hook reminders, at their earlier times,
 *   their parents rows of the session) go to the lane of their parent's event;
 * - a `Task` / `Agent` tool_use is a `spawn` (id `<tool_use_id>:spawn`) plus a `delegate` (id
 *   `<tool_use_id>`, content = the prompt) to the sub-agent whose records link back to it: its
 *   sidecar's `toolUseId`, the result's `toolUseResult.agentId` (or "agentId: X" in its text), `agent_progress` records
 *   (`data.agentId` + `parentToolUseID`), else the sub-agent's first prompt equal to the call's prompt;
 *   edges: spawn -> sub-agent's first event (`spawn`), delegate -> that event (`message`);
 * - the sub-agent's last text is its `return` (to the spawning lane), with a `return` edge to the
 *   call's `tool_result` (or, for an asynchronous agent, to the `<task-notification>` naming it);
 *   a sub-agent whose own file is absent gets its lane from the mirrored `agent_progress` records and
 *   its return from the call's result;
 * - other tool_use / tool_result blocks: `tool_call` (id = tool_use id) / `tool_result`
 *   (id `<tool_use_id>:result`, `causes` = the call), with a `tool_dependency` edge;
 * - assistant text: `message`; human prompts: `message` from `user`; meta records (`isMeta`):
 *   `message` of kind `meta` from `harness`; local commands (`<command-name>`, their
 *   `<local-command-stdout>`; user or `system/local_command` records): one `message` of kind
 *   `local_command` (`command`, `command_args`, `stdout`; `command_prompt: true` when a meta record
 *   right after it is the prompt it expanded into, a custom slash command: what the user asked);
 *   `<synthetic>` rows: `message` of kind
 *   `placeholder`; one API response (records sharing `message.id`) is one model call: its first
 *   event has `model_call` and `response_events`, its later events are caused by it; a refused call
 *   has `call_status: denied`, a call without result `no_result` (`in_progress` when the file's
 *   last line is cut off); thinking blocks, hook / bash progress, snapshots and queue operations
 *   give no event and are counted in one "not shown" warning;
 * - stops (one per turn at most): an assistant `stop_reason` (end_turn, stop_sequence ->
 *   task_complete; max_tokens, model_context_window_exceeded -> budget_exhausted; refusal -> error;
 *   tool_use and pause_turn are not stops), an API error message (-> error, or budget_exhausted for
 *   context / usage limits), "[Request interrupted by user" (-> user_abort), else the turn-end
 *   records `stop_hook_summary` / `turn_duration` (-> task_complete); a turn whose last output is
 *   text and that is followed by the next prompt also stops (task_complete, detail says inferred);
 *   a sub-agent stops at its final answer (task_complete; error / user_abort when its call's
 *   result is an error); a turn cut off at the end of the file has no stop; the main agent's stops
 *   carry `scope: "turn"` (a hand-back to the user, who may go on), a sub-agent's none (the analysis
 *   reads its last stop as the end of its lane's run);
 * - compaction: `compact_boundary` -> one `orchestrator_decision` of kind `compaction` (trigger,
 *   pre_tokens), caused by the event of its `logicalParentUuid`, holding the summary row that
 *   follows it (`summary_record`); interruption markers -> `stop` of kind `interruption`, API-error
 *   rows -> `stop` of kind `api_error`;
 * - tokens: per API message (`message.id`), its final usage by kind (`usage`: input, cache write =
 *   cache creation, cache read, output) on the response's model call (its first event), whose own
 *   `tokens` are the output (the context it read is the call's, never the event's); `trace.costs`
 *   sums them all (tokens = input + cache creation + cache read + output, the same sum Claude Code
 *   reports as a sub-agent's `totalTokens`).
 * - background runs and their `<task-notification>` rows (background.ts), a sub-agent resumed with
 *   `SendMessage` (returns.ts), side-channel records such as `mode` or `bridge-session`
 *   (side-records.ts): see those files;
 * Time `t`: seconds since the earliest record timestamp of the session and its sub-agent files.
 */
import { firstJsonLines, registerFormat, type FileAccess, type TraceFormat } from '../../formats';
import type { LoadedTrace } from '../../model';
import { isObject, readJsonlRecords } from '../jsonl-records';
import { RECORD_TYPES } from './model';
import { GrowingClaudeCode } from './growing';
import { ClaudeImport } from './session';

export { localCommand, MAIN_LANE, mapStopReason, usageTokens } from './model';

/**
 * Reads a Claude Code session and its sub-agent files.
 * @param text the session file's content; @param fileName its path (sub-agent files are looked up
 * beside it, in `<name without .jsonl>/subagents/`); @param files access to those files (none: the
 * sub-agents are built from what the session itself records).
 * @returns the trace (format `claude-code`), origins of every event (line of its record; `file` for
 * sub-agent files) and positioned problems. Never throws for bad content.
 */
export function readClaudeCode(text: string, fileName: string, files?: FileAccess): LoadedTrace {
  return new ClaudeImport(readJsonlRecords(text), fileName, files).run();
}

/** True when the first lines are Claude Code session records (by content; the file name is not used). */
export function isClaudeCodeText(text: string): boolean {
  const lines = firstJsonLines(text, 8);
  return lines.some(
    (l) =>
      isObject(l) &&
      typeof l.type === 'string' &&
      RECORD_TYPES.has(l.type) &&
      !('payload' in l) &&
      ((typeof l.sessionId === 'string' && ('uuid' in l || 'parentUuid' in l || l.type === 'queue-operation')) ||
        (l.type === 'summary' && 'leafUuid' in l) ||
        (l.type === 'file-history-snapshot' && isObject(l.snapshot))),
  );
}

/** The Claude Code session format. */
export const claudeCodeFormat: TraceFormat = {
  id: 'claude-code',
  label: 'Claude Code session JSONL',
  detect: (text) => isClaudeCodeText(text),
  read: readClaudeCode,
  grow: (fileName, files) => new GrowingClaudeCode(fileName, files),
};

registerFormat(claudeCodeFormat, true);

