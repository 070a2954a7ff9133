/**
 * Importer of Kimi Code sessions (MoonshotAI/kimi-code, the TypeScript CLI: `~/.kimi-code/sessions/
 * <bucket>/<session id>/`): one `agents/<agent id>/wire.jsonl` per agent (`main` and each sub-agent),
 * and `state.json` (its `agents` map: type and `parentAgentId`), read through the {@link FileAccess}
 * given to `read`. Opening a sub-agent's wire reads it alone and says whose it is.
 *
 * The record format (kimi-code packages/agent-core-v2: docs/wire-manifest.d.ts, protocol 1.0-1.5;
 * src/agent/contextMemory/loopEventFold.ts, src/agent/loop/loopService.ts, src/agent/tools/agent/
 * agentTool.ts and subagent-task.ts, src/agent/task/, src/wire/migration/): a first line
 * `{"type": "metadata", "protocol_version", "created_at"}`, then one record a line, `{"type", ...payload,
 * "time": <epoch ms>}`. The records read (the rest are the agent's configuration and bookkeeping,
 * kept as session metadata, or unknown types, read as meta rows):
 * - `turn.prompt {input, origin}` opens a turn (`origin` other than the user: the harness's prompt),
 *   `turn.steer` adds input to it, `turn.ended {reason: completed | cancelled | failed | blocked, error}`
 *   ends it;
 * - `context.append_loop_event {event}`: `step.begin {step}`, `content.part {part}` (text, think),
 *   `tool.call {toolCallId, name, args}`, `tool.result {toolCallId, result: {output, isError, note}}`,
 *   `step.end {usage: {inputOther, output, inputCacheRead, inputCacheCreation}, finishReason, messageId}`;
 * - `context.append_message {message: {role, content, toolCalls, toolCallId, origin}}`: the prompt's
 *   own copy (the first user message after a `turn.prompt`: skipped), an injected message (a harness
 *   row), or, in older files with no `turn.prompt`, the user's prompts, the assistant's messages and
 *   tool results (`toolCalls[].function.{name, arguments}` before protocol 1.1);
 * - `context.apply_compaction {summary, compactedCount}`; `permission.record_approval_result
 *   {toolCallId, result: {decision}}` (`rejected`: the user refused the call);
 * - `task.started {info: {kind: "agent", agentId, subagentType, parentToolCallId}}`: the `Agent` call
 *   `parentToolCallId` started (or resumed) the sub-agent whose records are in `agents/<agentId>/wire.jsonl`.
 *
 * Mapping: the records are translated into the kimi-cli wire messages and read by {@link WireReader}
 * (kimi/wire.ts; lanes, spawns, returns, stops, tokens as there). A sub-agent's records are read
 * when its `task.started` is, up to the end of its turn (a resumed agent: its next turn at the next
 * `task.started`), so a foreground agent's answer is read before its call's result and returns with
 * it. Sub-agent files no `task.started` names are read after the main wire (state.json's
 * `parentAgentId` is their caller), said in one info.
 */
import { firstJsonLines, registerFormat, type FileAccess, type TraceFormat } from '../../formats';
import type { LoadedTrace, Problem } from '../../model';
import { baseName, dirName, isObject, joinPath, lineRange, num, readJsonlRecords, str, TraceAssembler, type JsonlRecord } from '../jsonl-records';
import { summarize, wireCosts } from './index';
import { inputText, MAIN_LANE, WireReader, type Lane } from './wire';

type Json = Record<string, unknown>;

/** The record types of a Kimi Code wire (docs/wire-manifest.d.ts, protocol 1.5), the metadata line's aside. */
export const KIMI_CODE_TYPES = new Set([
  'config.update', 'context.append_loop_event', 'context.append_message', 'context.apply_compaction', 'context.clear', 'context.undo',
  'cron.add', 'cron.cursor', 'cron.delete', 'forked', 'full_compaction.begin', 'full_compaction.cancel', 'full_compaction.complete',
  'goal.clear', 'goal.create', 'goal.update', 'interaction.request', 'interaction.resolved', 'interruptionReminder.recorded',
  'llm.request', 'llm.tools_snapshot', 'mcp.tools_discovered', 'permission.record_approval_result', 'permission.set_mode',
  'plan_mode.cancel', 'plan_mode.enter', 'plan_mode.exit', 'plan.revision', 'plugin.session_start', 'profile.bind', 'prompt.accepted',
  'runtime.set_binding', 'staleGuard.cleared', 'staleGuard.recorded', 'swarm_mode.enter', 'swarm_mode.exit', 'task.started',
  'task.terminated', 'task.waitDelivered', 'token_counting.measured', 'token_counting.rebased', 'token_counting.truncated',
  'token_counting.turn_recorded', 'tools.register_user_tool', 'tools.reset_active_tools', 'tools.set_active_tools',
  'tools.unregister_user_tool', 'tools.update_store', 'tower_mode.enter', 'tower_mode.exit', 'turn.cancel', 'turn.ended',
  'turn.prompt', 'turn.steer', 'usage.record',
]);

/** Types read into events, or into others' (the rest of {@link KIMI_CODE_TYPES} is configuration and bookkeeping). */
const READ = new Set(['turn.prompt', 'turn.steer', 'turn.ended', 'context.append_loop_event', 'context.append_message', 'context.apply_compaction', 'permission.record_approval_result', 'task.started']);

/** Prompt origins of a person (PromptOrigin, agent-core-v2): the others are written by the harness. */
const PERSON_ORIGINS = new Set(['user', 'skill_activation', 'plugin_command', 'shell_command']);

/** One agent's wire file while it is read: its records and how far. */
interface AgentFile {
  agentId: string;
  path: string;
  records: readonly JsonlRecord[];
  next: number;
  lane?: Lane;
}

/** An agent of state.json's `agents` map (its `type` is main, sub or independent: not the sub-agent's profile). */
interface StateAgent {
  parentAgentId?: string;
}

/** Reads the records of a session's agents into a {@link WireReader} (see the file comment). */
class SessionReader {
  /** Lanes whose last prompt's copy (the next user `context.append_message`) is still to come: it is not shown again. */
  private readonly copyDue = new Set<string>();
  /** Lanes whose wire records prompts (`turn.prompt`): their other user messages are injected context, not prompts. */
  private readonly prompted = new Set<string>();
  /** Record types kept as session metadata (configuration, bookkeeping), by type. */
  readonly metaTypes: Record<string, number> = {};
  /** Lines that are JSON but no record (no string `type`), and the first of them. */
  notRecords = 0;
  firstNotRecord?: { range: Problem['range']; file?: string };
  /** Agent files read (wholly or in part) when a `task.started` named them. */
  readonly started = new Set<string>();

  constructor(
    readonly reader: WireReader,
    readonly files: Map<string, AgentFile>,
    readonly state: Map<string, StateAgent>,
  ) {}

  /** Reads `file`'s records from where it stopped into `lane`; with `untilTurnEnd`, up to the end of the first turn that ends. */
  read(file: AgentFile, lane: Lane, path: string | undefined, untilTurnEnd: boolean): void {
    file.lane = lane;
    while (file.next < file.records.length) {
      const r = file.records[file.next++];
      this.record(r, lane, path);
      if (untilTurnEnd && r.value.type === 'turn.ended') return;
    }
  }

  private record(r: JsonlRecord, lane: Lane, path: string | undefined): void {
    const v = r.value;
    const type = typeof v.type === 'string' ? v.type : undefined;
    const ms = num(v.time);
    const read = (t: string, p: Json) => this.reader.readTranslated(r, path, ms, t, p, lane);
    if (type === 'metadata') {
      if (path === undefined && typeof v.protocol_version === 'string') this.reader.summary.protocolVersion ??= v.protocol_version;
      return;
    }
    if (type === undefined) {
      this.notRecords++;
      this.firstNotRecord ??= { range: lineRange(r.line, r.length), ...(path ? { file: path } : {}) };
      return;
    }
    if (KIMI_CODE_TYPES.has(type) && !READ.has(type)) {
      this.metaTypes[type] = (this.metaTypes[type] ?? 0) + 1;
      return;
    }
    switch (type) {
      case 'turn.prompt':
      case 'turn.steer': {
        const origin = isObject(v.origin) ? str(v.origin.kind) : str(v.origin);
        this.copyDue.add(lane.name);
        this.prompted.add(lane.name);
        const p: Json = { user_input: v.input };
        if (origin && !PERSON_ORIGINS.has(origin)) p.from = 'harness';
        if (origin) p.origin = origin;
        return read(type === 'turn.prompt' ? 'TurnBegin' : 'SteerInput', p);
      }
      case 'turn.ended':
        return read('TurnEnd', { reason: v.reason, ...(isObject(v.error) ? { error: v.error } : {}) });
      case 'context.append_loop_event':
        return this.loopEvent(isObject(v.event) ? v.event : {}, read);
      case 'context.append_message':
        return this.message(isObject(v.message) ? v.message : {}, lane, read, (what, text) => this.reader.harness(r, path, ms, lane, what, text));
      case 'context.apply_compaction': {
        const summary = isObject(v.summary) ? inputText(v.summary.content) : str(v.summary) ?? str(v.contextSummary);
        read('CompactionBegin', summary ? { summary } : {});
        return read('CompactionEnd', {});
      }
      case 'permission.record_approval_result':
        if (isObject(v.result) && v.result.decision === 'rejected' && typeof v.toolCallId === 'string') this.reader.refuse(lane, v.toolCallId);
        return;
      case 'task.started':
        return this.taskStarted(isObject(v.info) ? v.info : {}, lane);
      default:
        // a type of a later protocol: the reader makes it a meta row and counts it
        return read(type, v);
    }
  }

  /** One loop event, as the kimi-cli message it stands for. */
  private loopEvent(e: Json, read: (t: string, p: Json) => void): void {
    switch (e.type) {
      case 'step.begin':
        return read('StepBegin', num(e.step) !== undefined ? { n: e.step } : {});
      case 'content.part':
        return read('ContentPart', isObject(e.part) ? e.part : {});
      case 'tool.call':
        return read('ToolCall', { id: e.toolCallId, function: { name: e.name, arguments: e.args ?? null } });
      case 'tool.result': {
        const r = isObject(e.result) ? e.result : {};
        return read('ToolResult', { tool_call_id: e.toolCallId, return_value: { is_error: r.isError === true, output: r.output ?? '', message: r.note } });
      }
      case 'step.end': {
        const u = isObject(e.usage) ? e.usage : undefined;
        const finish = typeof e.finishReason === 'string' ? { finish_reason: e.finishReason } : undefined;
        if (!u) return finish ? read('StatusUpdate', finish) : undefined;
        return read('StatusUpdate', { token_usage: { input_other: u.inputOther, output: u.output, input_cache_read: u.inputCacheRead, input_cache_creation: u.inputCacheCreation }, message_id: e.messageId, ...finish });
      }
      default:
        return read(`loop event ${String(e.type)}`, e);
    }
  }

  /** A context message: the prompt's own copy (skipped), an injection, or (older files) the conversation itself. */
  private message(m: Json, lane: Lane, read: (t: string, p: Json) => void, harness: (what: string, text: string) => void): void {
    const text = inputText(m.content);
    const origin = isObject(m.origin) ? str(m.origin.kind) : str(m.origin);
    switch (m.role) {
      case 'user': {
        if (this.copyDue.delete(lane.name)) return;
        // older wires have no turn.prompt: the user's messages are the prompts
        if (!this.prompted.has(lane.name) && (origin === undefined || origin === 'user')) return read('TurnBegin', { user_input: m.content });
        return harness(`context (${origin ?? 'user'})`, text);
      }
      case 'assistant': {
        if (text) read('ContentPart', { type: 'text', text });
        for (const c of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
          if (!isObject(c)) continue;
          const fn = isObject(c.function) ? c.function : {}; // protocol 1.0: name and arguments under `function`
          read('ToolCall', { id: c.id, function: { name: c.name ?? fn.name, arguments: c.arguments ?? fn.arguments ?? null } });
        }
        return;
      }
      case 'tool':
        return read('ToolResult', { tool_call_id: m.toolCallId, return_value: { is_error: m.isError === true, output: m.content ?? '', message: m.note } });
      default:
        return; // the system prompt
    }
  }

  /** `task.started` of an agent task: binds the Agent call to its sub-agent and reads the sub-agent's turn. */
  private taskStarted(info: Json, caller: Lane): void {
    if (info.kind !== 'agent' || typeof info.agentId !== 'string') return;
    const agentId = info.agentId;
    const file = this.files.get(agentId);
    const callId = str(info.parentToolCallId);
    const call = callId ? this.reader.callOf(caller, callId) : undefined;
    const type = str(info.subagentType);
    const callEvent = call ? this.reader.out.get(call.eventId) : undefined;
    const firstTo = callEvent?.type === 'spawn' || callEvent?.type === 'delegate' ? callEvent.to : undefined;
    const lane = call ? this.reader.bindAgent(call, agentId, type, caller) : file?.lane ?? this.reader.laneOf(`${type ?? 'subagent'}:${agentId}`, `${agentId}/`, caller.name);
    if (callEvent) {
      // a call of another tool that started agents (a swarm): a spawn too; one call starting several keeps its first lane as `to`
      if (callEvent.type === 'tool_call') callEvent.type = 'spawn';
      if (firstTo && firstTo !== lane.name) callEvent.to = firstTo;
    }
    this.started.add(agentId);
    if (file) this.read(file, lane, file.path, true);
  }
}

/**
 * Reads a Kimi Code session from one agent's `wire.jsonl`.
 * @param text the wire's content; @param fileName its path (`<session>/agents/<agent id>/wire.jsonl`:
 *   the other agents' wires and `state.json` are read from `<session>`); @param files access to them
 *   (none: the opened wire alone).
 * @returns the trace (format `kimi-code`), the origin of every event (line of its record; `file` for
 *   another agent's wire) and positioned problems. Never throws for bad content.
 */
export function readKimiCode(text: string, fileName = '', files?: FileAccess): LoadedTrace {
  const parsed = readJsonlRecords(text);
  const problems: Problem[] = parsed.problems.slice();
  const cutOff = problems.some((p) => p.message.startsWith('last line is cut off'));
  const layout = sessionLayout(fileName);
  const state = layout && files ? readState(files, joinPath(fileName, layout.session, 'state.json')) : new Map<string, StateAgent>();
  const own = layout && layout.agentId !== MAIN_LANE ? layout.agentId : undefined;
  const others = new Map<string, AgentFile>();
  if (layout && files && !own) {
    const root = joinPath(fileName, layout.session, 'agents');
    for (const agentId of [...(files.list(root) ?? [])].sort()) {
      if (agentId === MAIN_LANE || !/^[\w.-]+$/.test(agentId)) continue;
      const path = joinPath(fileName, root, agentId, 'wire.jsonl');
      const t = files.readText(path);
      if (t === undefined) continue;
      const p = readJsonlRecords(t, path);
      problems.push(...p.problems);
      others.set(agentId, { agentId, path, records: p.records, next: 0 });
    }
  }
  const base = earliest([parsed.records, ...[...others.values()].map((f) => f.records)]);
  const out = new TraceAssembler(problems);
  const mainName = own ? `subagent:${own}` : MAIN_LANE;
  const reader = new WireReader(out, problems, base, mainName);
  const session = new SessionReader(reader, others, state);
  const main = reader.lanes.get(mainName)!;
  session.read({ agentId: own ?? MAIN_LANE, path: fileName, records: parsed.records, next: 0 }, main, undefined, false);
  // Agents no task.started named (or the rest of their records): after the main wire, in their own lanes.
  const unnamed: string[] = [];
  for (const f of others.values()) {
    if (f.next >= f.records.length) continue;
    if (!f.lane) {
      const caller = state.get(f.agentId)?.parentAgentId;
      const callerLane = caller && caller !== MAIN_LANE ? [...reader.lanes.values()].find((l) => l.name.endsWith(`:${caller}`)) : main;
      const known = reader.subAgents.get(f.agentId);
      f.lane = known ? reader.lanes.get(known.lane) : undefined;
      f.lane ??= reader.laneOf(`subagent:${f.agentId}`, `${f.agentId}/`, (callerLane ?? main).name);
      if (!session.started.has(f.agentId) && !known) unnamed.push(f.agentId);
    }
    session.read(f, f.lane, f.path, false);
  }
  if (unnamed.length) problems.push({ severity: 'info', message: `${unnamed.length} agent${unnamed.length > 1 ? 's have wires' : ' has a wire'} in this session that no Agent call of it started (no task.started names ${unnamed.length > 1 ? 'them' : 'it'}): ${unnamed.join(', ')}, read into ${unnamed.length > 1 ? 'lanes' : 'a lane'} with no spawn`, range: lineRange(0, 0) });
  reader.finish(cutOff);
  if (session.notRecords) problems.push({ severity: 'warning', message: `${session.notRecords} line${session.notRecords > 1 ? 's are' : ' is'} JSON but not a wire record ({"type", …, "time"}): not shown`, range: session.firstNotRecord!.range, ...(session.firstNotRecord!.file ? { file: session.firstNotRecord!.file } : {}) });
  if (own) problems.push({ severity: 'info', message: `this is the wire of sub-agent ${own}; open agents/main/wire.jsonl of its session to see it in its run`, range: lineRange(0, 0) });
  summarize(reader, problems);
  const s = reader.summary;
  const metadata: Json = {
    source_format: 'kimi-code',
    protocol_version: s.protocolVersion ?? null,
    turns: s.turns,
    turns_without_stop: s.turns.filter((t) => t.stop === null).length,
    steps: s.steps,
    compactions: s.compactions,
    reasoning_parts: s.reasoningParts,
    subagents: [...reader.subAgents.values()].map((a) => ({ agent_id: a.agentId, subagent_type: a.type, lane: a.lane, ...(others.get(a.agentId!) ? { file: others.get(a.agentId!)!.path } : {}) })),
    record_types_kept_as_metadata: session.metaTypes,
    time_base: base === undefined ? null : new Date(base).toISOString(),
  };
  const sessionId = layout ? baseName(layout.session) : undefined;
  if (sessionId) metadata.session_id = sessionId;
  if (own) metadata.agent_id = own;
  const header: Omit<LoadedTrace['trace'], 'events' | 'edges'> = { system: 'kimi-code', costs: wireCosts(reader, out), metadata };
  if (sessionId) header.trace_id = own ? `${sessionId}/${own}` : sessionId;
  return out.finish('kimi-code', header);
}

/** `<session>/agents/<agent id>/wire.jsonl`: the session folder and the agent id, else undefined. */
function sessionLayout(fileName: string): { session: string; agentId: string } | undefined {
  if (baseName(fileName) !== 'wire.jsonl') return undefined;
  const agentDir = dirName(fileName);
  const agents = dirName(agentDir);
  if (baseName(agents) !== 'agents') return undefined;
  const session = dirName(agents);
  return session ? { session, agentId: baseName(agentDir) } : undefined;
}

/** state.json's agents (type, parent agent), or none when it is missing or not JSON. */
function readState(files: FileAccess, path: string): Map<string, StateAgent> {
  const out = new Map<string, StateAgent>();
  const text = files.readText(path);
  if (text === undefined) return out;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return out;
  }
  const agents = isObject(v) && isObject(v.agents) ? v.agents : {};
  for (const [id, a] of Object.entries(agents)) {
    if (!isObject(a)) continue;
    out.set(id, { parentAgentId: str(a.parentAgentId) });
  }
  return out;
}

/** The earliest record time (epoch ms) of the files, or undefined when none has one. */
function earliest(lists: (readonly JsonlRecord[])[]): number | undefined {
  let min = Infinity;
  for (const records of lists) {
    for (const r of records) {
      const t = num(r.value.time) ?? (r.value.type === 'metadata' ? num(r.value.created_at) : undefined);
      if (t !== undefined) min = Math.min(min, t);
    }
  }
  return Number.isFinite(min) ? min : undefined;
}

/**
 * True when the first lines are Kimi Code wire records: the metadata line with its `created_at`
 * (kimi-cli's has none), or a record `{type, …, time}` of a Kimi Code record type.
 */
export function isKimiCodeWireText(text: string): boolean {
  const lines = firstJsonLines(text, 5);
  const first = lines[0];
  if (isObject(first) && first.type === 'metadata' && typeof first.protocol_version === 'string' && typeof first.created_at === 'number') return true;
  return lines.some((l) => isObject(l) && typeof l.type === 'string' && KIMI_CODE_TYPES.has(l.type) && typeof l.time === 'number');
}

/** The Kimi Code (TypeScript CLI) session format. */
export const kimiCodeFormat: TraceFormat = {
  id: 'kimi-code',
  label: 'Kimi Code session agents/<agent>/wire.jsonl',
  detect: (text) => isKimiCodeWireText(text),
  read: (text, fileName, files) => readKimiCode(text, fileName, files),
};

registerFormat(kimiCodeFormat, true);
