/**
 * Importer of Kimi Code CLI sessions (MoonshotAI/kimi-cli: `~/.kimi/sessions/<work dir hash>/<session id>/`):
 * the session's `wire.jsonl`, and the sub-agent folders beside it (`subagents/<agent id>/wire.jsonl`
 * with `meta.json`), read through the {@link FileAccess} given to `read`. Opening the session folder
 * opens its `wire.jsonl` (the folder's other files, `context.jsonl`, `state.json`, are not traces).
 *
 * The record format (kimi-cli src/kimi_cli/wire/file.py and types.py; docs/en/customization/wire-mode.md,
 * wire 1.0-1.10): a first line `{"type": "metadata", "protocol_version": "1.10"}` (written since
 * January 2026; older files start with the records), then one record a line,
 * `{"timestamp": <epoch seconds>, "message": {"type": <wire message type>, "payload": {...}}}`,
 * each a whole message (text and tool call fragments are merged before they are written):
 * TurnBegin `{user_input}` / TurnEnd, SteerInput, StepBegin `{n}` / StepInterrupted / StepRetry
 * (1.10), ContentPart (`text` / `think` / media), ToolCall `{id, function: {name, arguments}}`,
 * ToolResult `{tool_call_id, return_value: {is_error, output, message, display}}`, StatusUpdate
 * `{token_usage: {input_other, output, input_cache_read, input_cache_creation}, message_id, ...}`,
 * CompactionBegin / CompactionEnd, ApprovalRequest `{id, tool_call_id, ...}` / ApprovalResponse
 * `{request_id, response}` (`ApprovalRequestResolved` before 1.1), and SubagentEvent
 * `{parent_tool_call_id, agent_id, subagent_type, event: {type, payload}}` (before 1.6:
 * `task_tool_call_id` and no agent id), which wraps each event of a foreground sub-agent.
 *
 * Mapping to the trace:
 * - lanes: `main`, and one per sub-agent, `<subagent_type>:<agent_id>` (before wire 1.6,
 *   `<subagent_name>:<Task call id>`); a foreground sub-agent's events are its SubagentEvents in the
 *   session's file (its own folder repeats them and is not read again); a background agent's
 *   (`run_in_background`) are in its folder only, read into its lane (origins in that file);
 * - an `Agent` (`Task` before 1.6) call is a `spawn` (id = call id, content = the prompt, `role` =
 *   the sub-agent type) to the lane its SubagentEvents name (`parent_tool_call_id`, exact), or the
 *   result names (`agent_id: …`, a background agent); a call with `resume` is a `delegate` to the
 *   agent it resumes; edges: spawn (delegate: message) -> the sub-agent's first event of that run;
 *   the sub-agent's last text of the run is its `return` to the caller, with a `return` edge to the
 *   call's result (a background agent's answer returns with no edge: it comes back later);
 * - TurnBegin -> `message` from `user` (a sub-agent's: from its caller), SteerInput -> `message` from
 *   `user`; text ContentParts -> `message` from the lane; ToolCall -> `tool_call` (id = call id),
 *   ToolResult -> `tool_result` (id `<call id>:result`, `is_error` when the call failed) with a
 *   `tool_dependency` edge; an approval the user rejected -> `call_status: denied` on the call and
 *   `denied` on its result; a model output is caused by the prompt and results since the previous one;
 * - stops (one per turn): TurnEnd -> `stop` (task_complete when the turn's last output is an
 *   answer; unknown when it ended after a tool call: max steps or a cancel), `scope: "turn"` in the
 *   main lane (a hand-back to the user, never a run verdict; a sub-agent's has no scope: its lane's
 *   run ends there); StepInterrupted -> `stop` of kind `interruption` (user_abort), or of kind
 *   `api_error` (error) when the step was retried before (StepRetry: the API kept failing);
 * - tokens: a StatusUpdate's `token_usage` by kind (`usage`: input = input_other, output, cache_read
 *   = input_cache_read, cache_write = input_cache_creation) goes on the step's model call (the
 *   first output since the previous count), whose own `tokens` are the output; `trace.costs` sums them;
 * - CompactionBegin/End -> one `orchestrator_decision` of kind `compaction` (`duration_s`);
 *   Notification, PlanDisplay, HookResolved, QuestionRequest, BtwBegin/End -> `message` of kind
 *   `meta` from `harness`; thinking parts are counted (`metadata.reasoning_parts`); a record of a type
 *   this reader does not know -> a meta row with its payload, all of them said in one info problem.
 * Time `t`: seconds since the earliest record of the session and its sub-agent files.
 */
import { firstJsonLines, registerFormat, type FileAccess, type TraceFormat } from '../../formats';
import type { LoadedTrace, Problem, Range } from '../../model';
import { baseName, dirName, isObject, joinPath, lineRange, ownKindsMessage, readJsonlRecords, str, TraceAssembler, type JsonlRecord } from '../jsonl-records';
import { MAIN_LANE, WIRE_TYPES, WireReader, type WireSource } from './wire';

export { inputText, MAIN_LANE } from './wire';

type Json = Record<string, unknown>;

/** A sub-agent folder of the session: `subagents/<agent id>/` with its wire and meta.json. */
interface SubFolder {
  agentId: string;
  path: string;
  records: readonly JsonlRecord[];
  problems: Problem[];
  meta?: Json;
}

/**
 * Reads a Kimi Code CLI session: its `wire.jsonl` and the sub-agent folders beside it.
 * @param text the wire file's content; @param fileName its path (sub-agent folders are looked up in
 *   `<its folder>/subagents/`); @param files access to those files (none: foreground sub-agents
 *   are still read from the session's own SubagentEvents).
 * @returns the trace (format `kimi`), the origin of every event (line of its record; `file` for a
 *   sub-agent's own file) and positioned problems (bad or cut-off lines, results of unknown calls,
 *   record types not known). Never throws for bad content.
 */
export function readKimi(text: string, fileName = '', files?: FileAccess): LoadedTrace {
  const parsed = readJsonlRecords(text);
  const problems: Problem[] = parsed.problems.slice();
  const cutOff = problems.some((p) => p.message.startsWith('last line is cut off'));
  const own = ownAgent(fileName, files);
  const folders = own ? [] : subFolders(fileName, files);
  for (const f of folders) problems.push(...f.problems);
  const base = earliest([parsed.records, ...folders.map((f) => f.records)]);
  const out = new TraceAssembler(problems);
  const reader = new WireReader(out, problems, base, own?.lane ?? MAIN_LANE);
  const main = reader.lanes.get(own?.lane ?? MAIN_LANE)!;
  reader.readSource({ records: parsed.records }, main);
  // Background agents: their events are in their own folder only.
  const fromFolders: Json[] = [];
  for (const f of folders) {
    const type = str(f.meta?.subagent_type);
    const known = reader.subAgents.get(f.agentId);
    const laneName = known?.lane ?? `${type ?? 'subagent'}:${f.agentId}`;
    const entry: Json = { agent_id: f.agentId, lane: laneName, file: f.path };
    if (type) entry.subagent_type = type;
    for (const k of ['description', 'status']) if (typeof f.meta?.[k] === 'string') entry[k] = f.meta[k];
    if (reader.lanes.get(laneName)?.firstEventId !== undefined) {
      entry.read_from = 'SubagentEvent records of the session';
      fromFolders.push(entry);
      continue;
    }
    const lane = reader.laneOf(laneName, `${f.agentId}/`, main.name);
    if (!known) {
      reader.subAgents.set(f.agentId, { agentId: f.agentId, type, lane: laneName, file: f.path });
      problems.push({ severity: 'info', message: `sub-agent ${f.agentId}${type ? ` (${type})` : ''} has a folder in this session but no Agent call of the session names it: its lane has no spawn`, range: lineRange(0, 0), file: f.path });
    }
    entry.read_from = 'its own wire.jsonl';
    fromFolders.push(entry);
    reader.readSource({ records: f.records, path: f.path } satisfies WireSource, lane);
  }
  // a background agent the session started whose own wire is not beside it: its work is in no file read (it read "2 agents", silently)
  if (files && !own) {
    for (const sub of reader.subAgents.values()) {
      if (sub.agentId === undefined || folders.some((f) => f.agentId === sub.agentId) || reader.lanes.get(sub.lane)?.firstEventId !== undefined) continue;
      problems.push({ severity: 'info', message: `sub-agent ${sub.agentId}${sub.type ? ` (${sub.type})` : ''} worked on its own (a background agent), and its wire (subagents/${sub.agentId}/wire.jsonl) is not beside this one: its work is not shown`, range: lineRange(0, 0) });
    }
  }
  reader.finish(cutOff);
  if (own) problems.push({ severity: 'info', message: `this is the wire of sub-agent ${own.agentId}${own.type ? ` (${own.type})` : ''}; open the session's wire.jsonl (two folders up) to see it in its run`, range: lineRange(0, 0) });
  summarize(reader, problems);
  return out.finish('kimi', header(reader, out, fileName, base, fromFolders, own?.agentId));
}

/** The problems that sum up kinds of records: unknown types (info), non-records (warning), kinds read as their own (info). */
export function summarize(reader: WireReader, problems: Problem[]): void {
  const at = (x: { range: Range; file?: string } | undefined) => (x ? { range: x.range, ...(x.file ? { file: x.file } : {}) } : { range: lineRange(0, 0) });
  const kinds = Object.entries(reader.unknown);
  if (kinds.length) {
    const n = kinds.reduce((s, [, c]) => s + c, 0);
    problems.push({ severity: 'info', message: `${n} record${n > 1 ? 's' : ''} of ${kinds.length} type${kinds.length > 1 ? 's' : ''} this reader does not know (a later wire version?) read as meta rows: ${kinds.sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${c}`).join(', ')}`, ...at(reader.firstUnknown) });
  }
  if (reader.notRecords) {
    const n = reader.notRecords;
    problems.push({ severity: 'warning', message: `${n} line${n > 1 ? 's are' : ' is'} JSON but not a wire record ({"timestamp", "message": {"type", "payload"}}): not shown`, ...at(reader.firstNotRecord) });
  }
  const s = reader.summary;
  const message = ownKindsMessage([
    [s.deniedCalls, 'call refused by the user', 'calls refused by the user'],
    [s.interruptions, 'step interrupted', 'steps interrupted'],
    [s.failedSteps, 'step failed after retries (an API error)', 'steps failed after retries (API errors)'],
    [s.failedTurns, 'turn failed (an error)', 'turns failed (errors)'],
  ]);
  if (message) problems.push({ severity: 'info', message, ...at(reader.firstKind) });
}

/** The trace fields: session id, costs (tokens by kind summed over the model calls), metadata. */
function header(reader: WireReader, out: TraceAssembler, fileName: string, base: number | undefined, subagents: Json[], ownAgentId: string | undefined): Omit<LoadedTrace['trace'], 'events' | 'edges'> {
  const costs = wireCosts(reader, out);
  const s = reader.summary;
  const metadata: Json = {
    source_format: 'kimi',
    protocol_version: s.protocolVersion ?? null,
    turns: s.turns,
    turns_without_stop: s.turns.filter((t) => t.stop === null).length,
    steps: s.steps,
    step_retries: s.retries,
    compactions: s.compactions,
    reasoning_parts: s.reasoningParts,
    subagents: subagents.length ? subagents : [...reader.subAgents.values()].map((a) => ({ agent_id: a.agentId, subagent_type: a.type, lane: a.lane })),
    time_base: base === undefined ? null : new Date(base).toISOString(),
  };
  const session = sessionId(fileName, ownAgentId !== undefined);
  if (session) metadata.session_id = session;
  if (ownAgentId) metadata.agent_id = ownAgentId;
  const h: Omit<LoadedTrace['trace'], 'events' | 'edges'> = { system: 'kimi-cli', costs, metadata };
  if (session) h.trace_id = ownAgentId ? `${session}/${ownAgentId}` : session;
  return h;
}

/**
 * The costs of a read wire: tokens by kind summed over the model calls' `usage` (tokens), tokens
 * no model call took, tool calls (count), and the wall clock (seconds, to the end of the last event).
 */
export function wireCosts(reader: WireReader, out: TraceAssembler): Record<string, number> {
  const sums = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
  let end = 0;
  for (const e of out.events) {
    end = Math.max(end, e.t + (e.duration_s ?? 0));
    const u = e.usage;
    if (!u) continue;
    sums.input += u.input ?? 0;
    sums.output += u.output ?? 0;
    sums.cache_read += u.cache_read ?? 0;
    sums.cache_write += u.cache_write ?? 0;
  }
  const s = reader.summary;
  const costs: Record<string, number> = {
    tokens: sums.input + sums.output + sums.cache_read + sums.cache_write,
    input_tokens: sums.input,
    output_tokens: sums.output,
    cache_read_tokens: sums.cache_read,
    cache_write_tokens: sums.cache_write,
    unattributed_tokens: s.unattributedTokens,
    tool_calls: s.toolCalls,
    wall_clock_s: Math.round(end * 1000) / 1000,
  };
  return costs;
}

/** The session id: the name of the wire file's folder (of the folder two up, for a sub-agent's own wire). */
function sessionId(fileName: string, ownWire: boolean): string | undefined {
  let dir = dirName(fileName);
  if (ownWire) dir = dirName(dirName(dir));
  const name = baseName(dir);
  return name !== '' && name !== '.' ? name : undefined;
}

/** The earliest record time (epoch ms) of the files, or undefined when none has one. */
function earliest(lists: (readonly JsonlRecord[])[]): number | undefined {
  let min = Infinity;
  for (const records of lists) {
    for (const r of records) {
      const ts = r.value.timestamp;
      if (typeof ts === 'number' && Number.isFinite(ts)) min = Math.min(min, ts * 1000);
    }
  }
  return Number.isFinite(min) ? min : undefined;
}

/** The sub-agent folders of the session whose wire is `fileName`, in name order. */
function subFolders(fileName: string, files: FileAccess | undefined): SubFolder[] {
  if (!files || baseName(fileName) !== 'wire.jsonl') return [];
  const dir = dirName(fileName);
  const root = joinPath(fileName, ...(dir ? [dir] : []), 'subagents');
  const names = files.list(root);
  if (!names) return [];
  const out: SubFolder[] = [];
  for (const agentId of [...names].sort()) {
    if (!/^[\w-]+$/.test(agentId)) continue;
    const path = joinPath(fileName, root, agentId, 'wire.jsonl');
    const text = files.readText(path);
    if (text === undefined) continue;
    const parsed = readJsonlRecords(text, path);
    out.push({ agentId, path, records: parsed.records, problems: parsed.problems, meta: readMeta(files, joinPath(fileName, root, agentId, 'meta.json')) });
  }
  return out;
}

/** A sub-agent's `meta.json` (agent_id, subagent_type, status, description, ...), or undefined. */
function readMeta(files: FileAccess, path: string): Json | undefined {
  const text = files.readText(path);
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** When the opened file is a sub-agent's own wire (`…/subagents/<agent id>/wire.jsonl`): its id, type and lane. */
function ownAgent(fileName: string, files: FileAccess | undefined): { agentId: string; type?: string; lane: string } | undefined {
  const dir = dirName(fileName);
  if (baseName(fileName) !== 'wire.jsonl' || baseName(dirName(dir)) !== 'subagents') return undefined;
  const agentId = baseName(dir);
  if (!/^[\w-]+$/.test(agentId)) return undefined;
  const type = files ? str(readMeta(files, joinPath(fileName, dir, 'meta.json'))?.subagent_type) : undefined;
  return { agentId, type, lane: `${type ?? 'subagent'}:${agentId}` };
}

/**
 * True when the first lines are Kimi wire records (by content: a record `{timestamp, message: {type,
 * payload}}` of a wire message type), or the metadata line of a session with no record yet.
 */
export function isKimiWireText(text: string): boolean {
  const lines = firstJsonLines(text, 5);
  const isRecord = (l: unknown) => isObject(l) && 'timestamp' in l && isObject(l.message) && typeof l.message.type === 'string' && WIRE_TYPES.has(l.message.type);
  if (lines.some(isRecord)) return true;
  const first = lines[0];
  // Kimi Code's metadata line has a `created_at` (kimi/code.ts)
  return isObject(first) && first.type === 'metadata' && typeof first.protocol_version === 'string' && !('created_at' in first) && lines.slice(1).every((l) => l === undefined);
}

/** The Kimi Code CLI session format. */
export const kimiFormat: TraceFormat = {
  id: 'kimi',
  label: 'Kimi Code CLI session wire.jsonl',
  detect: (text) => isKimiWireText(text),
  read: (text, fileName, files) => readKimi(text, fileName, files),
};

registerFormat(kimiFormat, true);
