/**
 * The sub-agents of a Gemini CLI session, each read from its own file into its own lane.
 *
 * Layout (google-gemini/gemini-cli at 5411f113: `services/chatRecordingService.ts` `initialize`,
 * `agents/local-executor.ts`, `agents/local-invocation.ts`, `core/geminiChat.ts`): a sub-agent's
 * executor records its chat with `kind: "subagent"` and `sessionId` = its `agentId` (a random UUID)
 * in `chats/<parent session id>/<agentId>.jsonl`, both names through `sanitizeFilenamePart`
 * (every character but `[a-zA-Z0-9_-]` becomes `_`). The parent session id is always the main
 * session's (`parentSessionId: context.parentSessionId || context.promptId`), so a sub-agent's own
 * sub-agents sit in the same folder. The call that ran it (the tool named after the agent) records
 * `agentId` (its result's `data.agentId`), and its result is the sub-agent's report
 * ("Subagent '<name>' finished. Termination Reason: ... Result: ...").
 *
 * Mapping: the call becomes a `spawn` (to the sub-agent's lane, `role` = the tool's name; its text the
 * one text input when the call has one, the `args` kept) with a
 * `spawn` edge to the sub-agent's first event; the sub-agent's first user message (its task) comes
 * from the caller; the report it submitted with `complete_task` (gemini-cli tools/complete-task.ts:
 * `{result}`, or the output its definition names, e.g. `{report}`) is a `return` to the caller with
 * a `return` edge to the call's result (when the call has one); a sub-agent that made no such call
 * returns its last `gemini` answer. A file that is missing, unreadable or holds no message
 * is an info problem at the call; the rest loads.
 */
import type { FileAccess } from '../formats';
import type { Origin } from '../model';
import type { TraceEvent } from '../schema';
import { baseName, dirName, isObject, joinPath, setContent, str, type TraceAssembler } from './jsonl-records';

type Json = Record<string, unknown>;

/** A tool call that ran a sub-agent (`agentId` set): the call's and its result's event ids, where it was written. */
export interface SubAgentCall {
  callId: string;
  resultId?: string;
  agentId: string;
  tool: string;
  /** The call's `args` (the sub-agent's inputs). */
  args?: unknown;
  origin: Origin;
}

/** The tool a Gemini CLI sub-agent ends with, submitting its report (gemini-cli tools/complete-task.ts). */
export const COMPLETE_TASK = 'complete_task';

/** A `complete_task` call: its event id, its args (the report: `result`, or the agent's output name), time and place. */
export interface SubAgentCompletion {
  callId: string;
  args: unknown;
  t: number;
  origin: Origin;
}

/** What the importer read of one lane: its sub-agent calls, first event and last answer. */
export interface LaneRead {
  readonly lane: string;
  readonly subAgentCalls: readonly SubAgentCall[];
  readonly firstEvent: string | undefined;
  readonly lastAnswer: string | undefined;
  /** Its last `complete_task` call, when it made one. */
  readonly completion?: SubAgentCompletion;
  /** Number of tool calls the lane read. */
  readonly toolCallCount: number;
}

/**
 * Reads a sub-agent file into a lane of the same trace.
 * @param text the file's content; @param lane the lane's name; @param file its path.
 * @returns what was read, or undefined when the file holds no session record.
 */
export type OpenLane = (text: string, lane: string, file: string) => LaneRead | undefined;

/** Deepest chain of sub-agents followed (a guard against cycles in odd files). */
const MAX_DEPTH = 8;

/** `sanitizeFilenamePart` of gemini-cli's utils/fileUtils.ts. */
export function sanitizeFilenamePart(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/**
 * The folder of a session's sub-agent files: `<chats>/<session id>/` beside a main session file,
 * the file's own folder for a sub-agent file (`kind: "subagent"`).
 * @param meta the session record's fields; @param fileName the session file's path.
 */
export function subAgentFolder(meta: Json, fileName: string): string | undefined {
  const dir = dirName(fileName);
  if (meta.kind === 'subagent') return dir;
  const id = str(meta.sessionId);
  return id ? joinPath(fileName, dir, sanitizeFilenamePart(id)) : undefined;
}

/**
 * Reads the sub-agents the lane's calls ran, and theirs, into the trace (see the file comment).
 * @param out the trace being assembled (its problems get the info about missing files);
 * @param main what was read of the opened file; @param meta its record's fields; @param fileName its
 * path; @param files access to the sub-agent files (none: nothing is read, the calls stay tool calls);
 * @param open reads one sub-agent file into a lane.
 * @returns the number of tool calls read in sub-agent files. Never throws.
 */
export function readSubAgents(out: TraceAssembler, main: LaneRead, meta: Json, fileName: string, files: FileAccess | undefined, open: OpenLane): number {
  const folder = subAgentFolder(meta, fileName);
  if (!files || folder === undefined) return 0;
  const seen = new Set<string>([str(meta.sessionId) ?? '']);
  const lanes = new Set<string>([main.lane]);
  let toolCalls = 0;
  const visit = (parent: LaneRead, depth: number): void => {
    for (const call of parent.subAgentCalls) {
      if (seen.has(call.agentId) || depth >= MAX_DEPTH) continue;
      seen.add(call.agentId);
      const path = joinPath(fileName, folder, `${sanitizeFilenamePart(call.agentId)}.jsonl`);
      const at = { range: call.origin.range, ...(call.origin.file ? { file: call.origin.file } : {}) };
      const text = files.readText(path);
      if (text === undefined) {
        out.problems.push({ severity: 'info', message: `the sub-agent ${call.tool} (agentId ${call.agentId}) has no file ${baseName(path)} in ${baseName(folder) || '.'}/: its steps are not shown`, ...at });
        continue;
      }
      let lane = call.tool;
      if (lanes.has(lane)) lane = `${call.tool}:${call.agentId.slice(0, 8)}`;
      lanes.add(lane);
      const sub = open(text, lane, path);
      if (!sub || sub.firstEvent === undefined) {
        out.problems.push({ severity: 'warning', message: `the sub-agent file ${baseName(path)} of ${call.tool} (agentId ${call.agentId}) holds no message Gemini CLI writes: its steps are not shown`, ...at });
        continue;
      }
      toolCalls += sub.toolCallCount;
      link(out, parent.lane, call, sub);
      visit(sub, depth + 1);
    }
  };
  visit(main, 0);
  return toolCalls;
}

/** The call becomes the spawn of the sub-agent's lane; its task comes from the caller; its last answer returns to the caller. */
function link(out: TraceAssembler, caller: string, call: SubAgentCall, sub: LaneRead): void {
  const spawn = out.get(call.callId) as unknown as Json | undefined;
  if (spawn) {
    spawn.type = 'spawn';
    spawn.to = sub.lane;
    spawn.role = call.tool;
    // The sub-agent's inputs (its definition's `inputConfig`): one text input is what it was asked.
    const values = isObject(call.args) ? Object.values(call.args) : [];
    if (values.length === 1 && typeof values[0] === 'string') {
      spawn.args = call.args;
      setContent(spawn as unknown as TraceEvent, values[0]);
    }
  }
  out.edge(call.callId, sub.firstEvent as string, 'spawn');
  const first = out.get(sub.firstEvent as string) as unknown as Json | undefined;
  if (first && first.type === 'message' && first.from === 'user') first.from = caller;
  if (sub.completion) return report(out, caller, call, sub.lane, sub.completion);
  if (sub.lastAnswer === undefined) return;
  const fin = out.get(sub.lastAnswer) as unknown as Json | undefined;
  if (!fin || !isObject(fin) || fin.type !== 'message') return;
  fin.type = 'return';
  fin.to = caller;
  if (call.resultId) out.edge(sub.lastAnswer, call.resultId, 'return');
}

/**
 * The report a sub-agent submitted with `complete_task` is its return: a `return` event to the caller
 * (id `<call id>:report`, at the call's time and place) whose text is the call's report (`result`, or
 * the one output the agent's definition names; several: their JSON), with a `return` edge to the
 * result of the call that ran the sub-agent.
 */
function report(out: TraceAssembler, caller: string, call: SubAgentCall, lane: string, done: SubAgentCompletion): void {
  const args = isObject(done.args) ? done.args : undefined;
  const values = args ? Object.values(args) : [];
  const value = args && typeof args.result === 'string' ? args.result : values.length === 1 ? values[0] : done.args;
  const ev: Json = { id: `${done.callId}:report`, t: done.t, type: 'return', agent: lane, from: lane, to: caller, tool: COMPLETE_TASK, causes: [done.callId] };
  setContent(ev as unknown as TraceEvent, typeof value === 'string' ? value : value === undefined ? undefined : JSON.stringify(value));
  const id = out.add(ev as unknown as TraceEvent, done.origin);
  out.edge(done.callId, id, 'causal');
  if (call.resultId) out.edge(id, call.resultId, 'return');
}
