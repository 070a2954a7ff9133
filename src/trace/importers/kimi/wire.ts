/**
 * Reading the records of Kimi Code CLI `wire.jsonl` files into lanes (see index.ts for the format
 * and the mapping): {@link WireReader} keeps what reading needs between records (each lane's open
 * turn and step, the model output waiting for its token count, the inputs of the next output, the
 * calls waiting for their result, approvals, sub-agent lanes by agent id and by spawning call) and
 * takes the records one at a time, from the session's file and from sub-agent files.
 *
 * Pure: imports nothing from `vscode`.
 */
import type { Origin, Problem, Range } from '../../model';
import type { StopReason, TraceEvent } from '../../schema';
import { addTo } from '../../counts';
import { usageFrom } from '../../tokens';
import { isObject, num, parseTimestamp, recordOrigin, secondsSince, setContent, str, type JsonlRecord, type TraceAssembler } from '../jsonl-records';

type Json = Record<string, unknown>;
type Draft = Partial<TraceEvent> & Pick<TraceEvent, 'id' | 'type'> & Json;

/** Lane of the main agent. */
export const MAIN_LANE = 'main';

/** Wire message types kimi-cli writes (wire 1.0-1.10, src/kimi_cli/wire/types.py), legacy names included. */
export const WIRE_TYPES = new Set([
  'TurnBegin', 'TurnEnd', 'SteerInput', 'StepBegin', 'StepInterrupted', 'StepRetry', 'CompactionBegin', 'CompactionEnd',
  'StatusUpdate', 'ContentPart', 'ToolCall', 'ToolCallPart', 'ToolResult', 'ApprovalResponse', 'ApprovalRequestResolved',
  'SubagentEvent', 'ApprovalRequest', 'ToolCallRequest', 'QuestionRequest', 'HookRequest', 'HookTriggered', 'HookResolved',
  'MCPLoadingBegin', 'MCPLoadingEnd', 'Notification', 'PlanDisplay', 'BtwBegin', 'BtwEnd',
]);

/** Types that give no event of their own: structure (steps, streaming fragments, loading) or read into other events. */
const STRUCTURE = new Set(['StepBegin', 'ToolCallPart', 'MCPLoadingBegin', 'MCPLoadingEnd', 'HookTriggered', 'HookRequest', 'ToolCallRequest']);

/** Tools that start a sub-agent: `Agent` (wire 1.6+), `Task` before. */
export const AGENT_TOOLS = new Set(['Agent', 'Task']);

/** One lane while its records are read. */
export interface Lane {
  name: string;
  /** Ids of its events are prefixed with this (sub-agents: `<agent id>/`). */
  prefix: string;
  /** The lane that spawned it. */
  caller?: string;
  turn?: { id: string; stopped: boolean; lastOutput?: 'text' | 'call' | 'result'; lastFinish?: string };
  step: number;
  /** A StepRetry in the current step: the error it retried. */
  retried?: string;
  /** The first model output since the last token count: the model call its tokens go on. */
  pendingCall?: string;
  /** Results and prompts received since its last output: the causes of its next output. */
  inputs: string[];
  /** Its last assistant text since it was last started: its answer. */
  lastText?: string;
  firstEventId?: string;
  /** The call that started (or resumed) it, waiting for the run's first event: the spawn or message edge. */
  startedBy?: Call;
  compaction?: { id: string; t: number };
  turns: number;
}

/** A tool call and what became of it. */
export interface Call {
  eventId: string;
  tool: string;
  lane: string;
  args?: Json;
  resultId?: string;
  denied?: boolean;
  /** An Agent / Task call: the lane it started (once its events name it). */
  subLane?: string;
}

/** A sub-agent seen in the records. */
export interface SubAgent {
  agentId?: string;
  type?: string;
  lane: string;
  /** Read from its own folder (a background agent), not from the session's SubagentEvents. */
  file?: string;
}

/** What the reader found, for the trace fields. */
export interface WireSummary {
  protocolVersion?: string;
  turns: { lane: string; turn_id: string; start_t: number; stop: StopReason | null; line: number; file?: string }[];
  steps: number;
  retries: number;
  compactions: number;
  toolCalls: number;
  reasoningParts: number;
  deniedCalls: number;
  interruptions: number;
  /** Steps interrupted after StepRetry: the API kept failing. */
  failedSteps: number;
  /** Turns that ended failed (Kimi Code `turn.ended` with `reason: failed`). */
  failedTurns: number;
  unattributedTokens: number;
}

/** Where a file's records come from: the opened file or a sub-agent's (then `path` is set). */
export interface WireSource {
  records: readonly JsonlRecord[];
  path?: string;
}

/** Reads wire records into a {@link TraceAssembler} (see the file comment). */
export class WireReader {
  readonly lanes = new Map<string, Lane>();
  /** Calls by `<lane>\u0000<call id>` (ids are only unique within one agent's conversation). */
  readonly calls = new Map<string, Call>();
  /** Sub-agents by agent id (or, before wire 1.6, by the spawning call's key). */
  readonly subAgents = new Map<string, SubAgent>();
  readonly summary: WireSummary = { turns: [], steps: 0, retries: 0, compactions: 0, toolCalls: 0, reasoningParts: 0, deniedCalls: 0, interruptions: 0, failedSteps: 0, failedTurns: 0, unattributedTokens: 0 };
  /** Records of types this reader does not know, by type (read as meta rows). */
  readonly unknown: Record<string, number> = {};
  firstUnknown?: { range: Range; file?: string };
  /** Lines that are JSON but no wire record, and the first of them. */
  notRecords = 0;
  firstNotRecord?: { range: Range; file?: string };
  firstKind?: { range: Range; file?: string };
  /** Approval requests by id: the call they ask about. */
  private readonly approvals = new Map<string, string>();
  private origin: Origin = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, record: 0 };
  private t = 0;
  private lastMs: number | undefined;
  private line = 0;
  private file: string | undefined;

  /** @param out where events go; @param problems the import's problems; @param base time base (epoch ms). */
  constructor(
    readonly out: TraceAssembler,
    readonly problems: Problem[],
    readonly base: number | undefined,
    mainLane = MAIN_LANE,
  ) {
    this.laneOf(mainLane, '');
  }

  /** The lane named `name`, made on first use. */
  laneOf(name: string, prefix: string, caller?: string): Lane {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = { name, prefix, caller, step: 0, inputs: [], turns: 0 };
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /** Reads every record of a file into `lane` (the main lane, or a background sub-agent's). */
  readSource(source: WireSource, lane: Lane): void {
    this.file = source.path;
    this.lastMs = undefined;
    for (const r of source.records) this.readRecord(r, lane);
  }

  /** Reads one record: its time and origin, then its message into `lane`. */
  private readRecord(r: JsonlRecord, lane: Lane): void {
    const v = r.value;
    this.line = r.line;
    this.origin = recordOrigin(r, this.file);
    if (v.type === 'metadata') {
      if (this.file === undefined && typeof v.protocol_version === 'string') this.summary.protocolVersion ??= v.protocol_version;
      return;
    }
    const ms = typeof v.timestamp === 'number' && Number.isFinite(v.timestamp) ? v.timestamp * 1000 : parseTimestamp(v.timestamp);
    const at = ms ?? this.lastMs;
    this.lastMs = at;
    this.t = this.base === undefined || at === undefined ? 0 : secondsSince(this.base, at);
    const message = isObject(v.message) ? v.message : undefined;
    if (!message || typeof message.type !== 'string') {
      this.notRecords++;
      this.firstNotRecord ??= this.here();
      return;
    }
    this.readMessage(message.type, isObject(message.payload) ? message.payload : {}, lane, 0);
  }

  /**
   * Reads one message of another record layout (the Kimi Code `agents/<id>/wire.jsonl` records,
   * translated by kimi/code.ts) at the position of `r` in `file` (undefined: the opened file).
   * @param ms the record's time (epoch ms; undefined: the previous record's); @param type a wire
   * message type of {@link WIRE_TYPES}; @param payload its payload; @param lane where it goes.
   */
  readTranslated(r: JsonlRecord, file: string | undefined, ms: number | undefined, type: string, payload: Json, lane: Lane): void {
    this.at(r, file, ms);
    this.readMessage(type, payload, lane, 0);
  }

  /** Sets the current record: its line, origin and time (`ms` undefined: the previous record's). */
  private at(r: JsonlRecord, file: string | undefined, ms: number | undefined): void {
    this.line = r.line;
    this.file = file;
    this.origin = recordOrigin(r, file);
    const at = ms ?? this.lastMs;
    this.lastMs = at;
    this.t = this.base === undefined || at === undefined ? 0 : secondsSince(this.base, at);
  }

  /** The call `toolCallId` of `lane`, once its ToolCall was read. */
  callOf(lane: Lane, toolCallId: string): Call | undefined {
    return this.calls.get(this.callKey(lane, toolCallId));
  }

  /** A call of `lane` the user refused at approval (Kimi Code `permission.record_approval_result`): the call and its result are marked denied. */
  refuse(lane: Lane, toolCallId: string): void {
    this.denyCall(this.calls.get(this.callKey(lane, toolCallId)));
  }

  /** Adds a harness row (an injected message, a notification) to `lane`, made from record `r` (arguments as {@link readTranslated}). */
  harness(r: JsonlRecord, file: string | undefined, ms: number | undefined, lane: Lane, what: string, text: string | undefined): void {
    this.at(r, file, ms);
    this.meta(lane, `L${this.line}`, what, text);
  }

  private here(): { range: Range; file?: string } {
    return this.file === undefined ? { range: this.origin.range } : { range: this.origin.range, file: this.file };
  }

  /** Adds an event of the current record to `lane`. */
  private add(lane: Lane, draft: Draft): string {
    const e = draft as TraceEvent & Json;
    e.id = lane.prefix + e.id;
    e.t = this.t;
    e.agent = lane.name;
    if (lane.turn) e.turn_id = lane.turn.id;
    const id = this.out.add(e, this.origin);
    lane.firstEventId ??= id;
    const call = lane.startedBy;
    if (call) {
      lane.startedBy = undefined;
      this.out.edge(call.eventId, id, this.out.get(call.eventId)?.type === 'spawn' ? 'spawn' : 'message');
    }
    return id;
  }

  /** A model output of `lane` (text or call): caused by what came in since its last output; the first since the last token count is the model call. */
  private output(lane: Lane, draft: Draft): string {
    if (lane.inputs.length) draft.causes = [...(draft.causes ?? []), ...lane.inputs];
    lane.inputs = [];
    const id = this.add(lane, draft);
    lane.pendingCall ??= id;
    return id;
  }

  /** Reads one wire message (`depth`: how many SubagentEvents it is nested in). */
  private readMessage(type: string, p: Json, lane: Lane, depth: number): void {
    const key = `L${this.line}${depth ? `.${depth}` : ''}`;
    switch (type) {
      case 'TurnBegin':
      case 'SteerInput':
        return this.prompt(type, p, lane, key);
      case 'TurnEnd':
        // Kimi Code's turn.ended says why (`reason`); kimi-cli's TurnEnd has no payload.
        if (p.reason === 'cancelled') return this.interrupted(lane, key);
        if (p.reason === 'failed' || p.reason === 'blocked') return this.turnFailed(p, lane, key);
        return this.turnEnd(lane, key);
      case 'StepBegin':
        lane.step = num(p.n) ?? lane.step + 1;
        lane.retried = undefined;
        this.summary.steps++;
        return;
      case 'StepRetry':
        lane.retried = `${str(p.error_type) ?? 'error'}${num(p.status_code) !== undefined ? ` (HTTP ${num(p.status_code)})` : ''}`;
        this.summary.retries++;
        return;
      case 'StepInterrupted':
        return this.interrupted(lane, key);
      case 'CompactionBegin': {
        const summary = str(p.summary);
        const id = this.add(lane, { id: `compaction:${key}`, type: 'orchestrator_decision', kind: 'compaction', compaction: true, content: summary ? `context compacted; summary: ${summary}` : 'context compacted (the wire does not record the summary)' });
        lane.inputs.push(id);
        lane.compaction = { id, t: this.t };
        this.summary.compactions++;
        return;
      }
      case 'CompactionEnd': {
        const c = lane.compaction;
        const e = c && this.out.get(c.id);
        if (e) e.duration_s = Math.round((this.t - c.t) * 1000) / 1000;
        lane.compaction = undefined;
        return;
      }
      case 'StatusUpdate':
        return this.status(p, lane);
      case 'ContentPart':
        return this.content(p, lane, key);
      case 'ToolCall':
        return this.toolCall(p, lane, key);
      case 'ToolResult':
        return this.toolResult(p, lane, key);
      case 'ApprovalRequest':
        if (typeof p.id === 'string' && typeof p.tool_call_id === 'string') this.approvals.set(p.id, this.callKey(this.approvalLane(p, lane), p.tool_call_id));
        return;
      case 'ApprovalResponse':
      case 'ApprovalRequestResolved':
        return this.approval(p);
      case 'SubagentEvent':
        return this.subagentEvent(p, lane, depth);
      case 'Notification':
        return this.meta(lane, key, 'notification', [str(p.title), str(p.body)].filter((x) => x).join(': '));
      case 'PlanDisplay':
        return this.meta(lane, key, 'plan', str(p.content));
      case 'HookResolved':
        return this.meta(lane, key, 'hook', `hook ${str(p.event) ?? '?'}${p.target ? ` on ${String(p.target)}` : ''}: ${str(p.action) ?? 'allow'}${p.reason ? ` (${String(p.reason)})` : ''}`);
      case 'QuestionRequest':
        return this.meta(lane, key, 'question', Array.isArray(p.questions) ? p.questions.map((q) => (isObject(q) ? str(q.question) : undefined)).filter((x) => x).join('\n') : undefined);
      case 'BtwBegin':
        return this.meta(lane, key, 'side question', str(p.question));
      case 'BtwEnd':
        return this.meta(lane, key, 'side answer', str(p.response) ?? str(p.error));
      default:
        if (STRUCTURE.has(type)) return;
        // A type this reader does not know (a later wire version): a meta row with its payload, counted in one info.
        addTo(this.unknown, type);
        this.firstUnknown ??= this.here();
        this.meta(lane, key, type, JSON.stringify(p));
    }
  }

  /** A row the harness wrote (not a message of the conversation). */
  private meta(lane: Lane, key: string, what: string, text: string | undefined): void {
    const ev: Draft = { id: `meta:${key}`, type: 'message', kind: 'meta', from: 'harness', to: lane.name, role: what };
    setContent(ev, text);
    this.add(lane, ev);
  }

  /** TurnBegin / SteerInput: a prompt (a sub-agent's turn is started by its caller); TurnBegin opens a turn. */
  private prompt(type: string, p: Json, lane: Lane, key: string): void {
    if (type === 'TurnBegin') {
      lane.turns++;
      const id = `turn-${lane.turns}`;
      lane.turn = { id, stopped: false };
      this.summary.turns.push({ lane: lane.name, turn_id: id, start_t: this.t, stop: null, line: this.line, ...(this.file ? { file: this.file } : {}) });
      lane.lastText = undefined;
    }
    // Kimi Code names a prompt's origin: one the harness wrote (a task's notification, a cron job, a hook) says so in `from`.
    const from = type === 'TurnBegin' && lane.caller ? lane.caller : str(p.from) ?? 'user';
    const ev: Draft = { id: `${type === 'TurnBegin' ? 'prompt' : 'steer'}:${key}`, type: 'message', from, to: lane.name };
    if (typeof p.origin === 'string') ev.role = p.origin;
    setContent(ev, inputText(p.user_input));
    const id = this.add(lane, ev);
    lane.inputs.push(id);
  }

  /** TurnEnd: the turn handed back (to the user, or to the calling agent); one stop per turn. */
  private turnEnd(lane: Lane, key: string): void {
    const turn = lane.turn;
    if (turn?.stopped) return;
    // A turn ends when the model answers without calling a tool; one that ends after a call or a
    // result was cut short (max steps reached, or cancelled: the wire does not say which).
    const answered = turn?.lastOutput === undefined || turn.lastOutput === 'text';
    const ev: Draft = answered
      ? { id: `stop:${key}`, type: 'stop', reason: 'task_complete', decided_by: lane.name, detail: 'TurnEnd' }
      : { id: `stop:${key}`, type: 'stop', reason: 'unknown', decided_by: 'kimi', detail: 'TurnEnd after a tool call with no answer (max steps reached or cancelled: the wire does not say which)' };
    if (!lane.caller) ev.scope = 'turn';
    this.stop(lane, ev);
  }

  /** StepInterrupted: the step was stopped by the user, or failed after retries (an error). */
  private interrupted(lane: Lane, key: string): void {
    if (lane.turn?.stopped) return;
    const ev: Draft = lane.retried
      ? { id: `stop:${key}`, type: 'stop', reason: 'error', decided_by: 'api', kind: 'api_error', detail: `step ${lane.step} interrupted after retries: ${lane.retried}` }
      : { id: `stop:${key}`, type: 'stop', reason: 'user_abort', decided_by: 'user', kind: 'interruption', detail: `step ${lane.step} interrupted` };
    if (lane.retried) this.summary.failedSteps++;
    else this.summary.interruptions++;
    this.firstKind ??= this.here();
    if (!lane.caller) ev.scope = 'turn';
    this.stop(lane, ev);
  }

  /** A turn that ended failed (`reason: failed`, with the error) or blocked (by a hook or a policy). */
  private turnFailed(p: Json, lane: Lane, key: string): void {
    if (lane.turn?.stopped) return;
    const err = isObject(p.error) ? p.error : undefined;
    const what = err ? [str(err.code), str(err.message)].filter((x) => x).join(': ') : undefined;
    const ev: Draft = p.reason === 'blocked'
      ? { id: `stop:${key}`, type: 'stop', reason: 'unknown', decided_by: 'kimi', detail: `turn blocked${what ? `: ${what}` : ''}` }
      : { id: `stop:${key}`, type: 'stop', reason: 'error', decided_by: 'kimi', detail: `turn failed${what ? `: ${what}` : ''}` };
    if (p.reason !== 'blocked') {
      this.summary.failedTurns++;
      this.firstKind ??= this.here();
    }
    if (!lane.caller) ev.scope = 'turn';
    this.stop(lane, ev);
  }

  private stop(lane: Lane, ev: Draft): void {
    if (lane.inputs.length) ev.causes = lane.inputs;
    lane.inputs = [];
    this.add(lane, ev);
    if (lane.turn) {
      lane.turn.stopped = true;
      const turns = this.summary.turns;
      for (let i = turns.length - 1; i >= 0; i--) {
        if (turns[i].lane === lane.name && turns[i].turn_id === lane.turn.id) {
          turns[i].stop = ev.reason ?? null;
          break;
        }
      }
    }
  }

  /** StatusUpdate: the step's token usage by kind goes on its model call (the step's first output). */
  private status(p: Json, lane: Lane): void {
    // Kimi Code's step.end says why the model stopped (`end_turn`, `tool_use`...): the last one may end a turn the file records no end of
    if (lane.turn && typeof p.finish_reason === 'string') lane.turn.lastFinish = p.finish_reason;
    const u = isObject(p.token_usage) ? p.token_usage : undefined;
    if (!u) return;
    const usage = usageFrom({ input: num(u.input_other), output: num(u.output), cache_read: num(u.input_cache_read), cache_write: num(u.input_cache_creation) }, false);
    const e = lane.pendingCall ? this.out.get(lane.pendingCall) : undefined;
    lane.pendingCall = undefined;
    if (!usage) return;
    if (e) {
      e.usage = usage;
      e.tokens = usage.output ?? 0;
      if (typeof p.message_id === 'string') (e as Json).model_call = p.message_id;
    } else this.summary.unattributedTokens += (usage.input ?? 0) + (usage.output ?? 0) + (usage.cache_read ?? 0) + (usage.cache_write ?? 0);
  }

  /** ContentPart: assistant text (or media) is a message; thinking is counted. */
  private content(p: Json, lane: Lane, key: string): void {
    if (p.type === 'think') {
      this.summary.reasoningParts++;
      return;
    }
    const text = typeof p.text === 'string' ? p.text : typeof p.type === 'string' && p.type.endsWith('_url') ? `[${p.type.slice(0, -'_url'.length)}]` : undefined;
    if (text === undefined) return;
    const ev: Draft = { id: `msg:${key}`, type: 'message', from: lane.name };
    setContent(ev, text);
    lane.lastText = this.output(lane, ev);
    if (lane.turn) lane.turn.lastOutput = 'text';
  }

  private callKey(lane: Lane, id: string): string {
    return `${lane.name}\u0000${id}`;
  }

  /** ToolCall: a tool call, or the start of a sub-agent (an Agent / Task call: a spawn, or a message to the agent it resumes). */
  private toolCall(p: Json, lane: Lane, key: string): void {
    const fn = isObject(p.function) ? p.function : {};
    const tool = str(fn.name) ?? 'unknown';
    const callId = str(p.id);
    const rawArgs = fn.arguments;
    const args = typeof rawArgs === 'string' ? safeJson(rawArgs) : isObject(rawArgs) ? rawArgs : undefined;
    const agent = AGENT_TOOLS.has(tool);
    const resumes = agent && isObject(args) ? str(args.resume) : undefined;
    const ev: Draft = agent ? { id: callId ?? `call:${key}`, type: resumes ? 'delegate' : 'spawn', tool } : { id: callId ?? `call:${key}`, type: 'tool_call', tool };
    if (agent && isObject(args) && typeof args.prompt === 'string') {
      setContent(ev, args.prompt);
      const role = str(args.subagent_type) ?? str(args.subagent_name);
      if (role) ev.role = role;
      if (typeof args.description === 'string') ev.description = args.description;
      if (args.run_in_background === true) ev.background = true;
    } else setContent(ev, typeof rawArgs === 'string' ? rawArgs : rawArgs === undefined || rawArgs === null ? undefined : JSON.stringify(rawArgs));
    const id = this.output(lane, ev);
    const call: Call = { eventId: id, tool, lane: lane.name, ...(isObject(args) ? { args } : {}) };
    if (callId) this.calls.set(this.callKey(lane, callId), call);
    if (resumes) this.bindAgent(call, resumes, undefined, lane);
    if (lane.turn) lane.turn.lastOutput = 'call';
    this.summary.toolCalls++;
  }

  /** ToolResult: the result of its call (failed when `is_error`; refused when the user rejected the call). */
  private toolResult(p: Json, lane: Lane, key: string): void {
    const callId = str(p.tool_call_id) ?? `?${key}`;
    const ck = this.callKey(lane, callId);
    const call = this.calls.get(ck);
    const rv = isObject(p.return_value) ? p.return_value : {};
    const output = inputText(rv.output);
    const text = output !== '' ? output : str(rv.message) ?? '';
    const ev: Draft = { id: `${callId}:result`, type: 'tool_result', tool: call?.tool ?? 'unknown' };
    setContent(ev, text);
    if (rv.is_error === true) ev.is_error = true;
    if (call) ev.causes = [call.eventId];
    else this.problems.push({ severity: 'warning', message: `ToolResult for tool_call_id "${callId}", which no ToolCall of this ${lane.caller ? 'sub-agent' : 'session'} started`, range: this.origin.range, ...(this.file ? { file: this.file } : {}) });
    if (call?.denied) ev.denied = true;
    const rid = this.add(lane, ev);
    lane.inputs.push(rid);
    if (lane.turn) lane.turn.lastOutput = 'result';
    if (!call) return;
    call.resultId = rid;
    this.out.edge(call.eventId, rid, 'tool_dependency');
    if (!AGENT_TOOLS.has(call.tool)) return;
    // The agent the call started: named in the result ("agent_id: a1b2c3d4") when no SubagentEvent named it.
    const named = /^agent_id: ([\w-]+)$/m.exec(output)?.[1];
    if (named && !call.subLane) this.bindAgent(call, named, /^actual_subagent_type: ([\w-]+)$/m.exec(output)?.[1], lane);
    // A foreground agent's answer returns to its caller with this result.
    const sub = call.subLane ? this.lanes.get(call.subLane) : undefined;
    if (sub?.lastText && call.args?.run_in_background !== true) {
      const fin = this.out.get(sub.lastText);
      if (fin && fin.type === 'message') {
        fin.type = 'return';
        fin.to = lane.name;
        this.out.edge(sub.lastText, rid, 'return');
      }
      sub.lastText = undefined;
    }
  }

  /** The lane of an approval request: a sub-agent's (wire 1.6 `agent_id`), else the one it was written in. */
  private approvalLane(p: Json, lane: Lane): Lane {
    const agentId = str(p.agent_id);
    const sub = agentId ? this.subAgents.get(agentId) : undefined;
    return (sub && this.lanes.get(sub.lane)) ?? lane;
  }

  /** ApprovalResponse (ApprovalRequestResolved before wire 1.1): a rejected call is refused by the user. */
  private approval(p: Json): void {
    const ck = typeof p.request_id === 'string' ? this.approvals.get(p.request_id) : undefined;
    if (p.response === 'reject') this.denyCall(ck ? this.calls.get(ck) : undefined);
  }

  private denyCall(call: Call | undefined): void {
    if (!call || call.denied) return;
    call.denied = true;
    const e = this.out.get(call.eventId);
    if (e) e.call_status = 'denied';
    const r = call.resultId ? this.out.get(call.resultId) : undefined;
    if (r) (r as Json).denied = true;
    this.summary.deniedCalls++;
    this.firstKind ??= this.here();
  }

  /**
   * A sub-agent's event, nested in the record of its caller: read into the sub-agent's lane
   * (`<subagent_type>:<agent_id>`; before wire 1.6, `<subagent_name>:<task call id>`), which the
   * call `parent_tool_call_id` (`task_tool_call_id` before 1.6) started.
   */
  private subagentEvent(p: Json, lane: Lane, depth: number): void {
    const inner = isObject(p.event) ? p.event : undefined;
    const parentId = str(p.parent_tool_call_id) ?? str(p.task_tool_call_id);
    if (!inner || typeof inner.type !== 'string') {
      this.notRecords++;
      this.firstNotRecord ??= this.here();
      return;
    }
    const call = parentId ? this.calls.get(this.callKey(lane, parentId)) : undefined;
    const agentId = str(p.agent_id);
    let sub: Lane;
    if (call?.subLane && (!agentId || this.subAgents.get(agentId)?.lane === call.subLane)) sub = this.lanes.get(call.subLane)!;
    else if (call) sub = this.bindAgent(call, agentId ?? parentId!, str(p.subagent_type), lane);
    else {
      // no call of the caller started it: a lane of its own, said once per parent id
      const name = `${str(p.subagent_type) ?? 'subagent'}:${agentId ?? parentId ?? '?'}`;
      if (!this.lanes.has(name)) this.problems.push({ severity: 'warning', message: `SubagentEvent for parent_tool_call_id "${parentId ?? ''}", which no Agent call of this session started: its events are in lane ${name}`, range: this.origin.range, ...(this.file ? { file: this.file } : {}) });
      sub = this.laneOf(name, `${agentId ?? parentId ?? 'sub'}/`, lane.name);
      if (agentId) this.subAgents.set(agentId, { agentId, type: str(p.subagent_type), lane: name });
    }
    this.readMessage(inner.type, isObject(inner.payload) ? inner.payload : {}, sub, depth + 1);
  }

  /** Binds an Agent / Task call to the sub-agent it started or resumed (its lane, made on first use); returns the lane. */
  bindAgent(call: Call, agentId: string, type: string | undefined, caller: Lane): Lane {
    const known = this.subAgents.get(agentId);
    const role = type ?? known?.type ?? (call.args && (str(call.args.subagent_type) ?? str(call.args.subagent_name))) ?? 'subagent';
    const name = known?.lane ?? `${role}:${agentId}`;
    const sub = this.laneOf(name, `${agentId}/`, caller.name);
    if (!known) this.subAgents.set(agentId, { agentId, type: role, lane: name });
    call.subLane = name;
    sub.startedBy = call;
    const e = this.out.get(call.eventId);
    if (e) e.to = name;
    return sub;
  }

  /**
   * After the last record: calls without a result (`no_result`, or `in_progress` when the file's
   * last line is cut off) and the last answer of each background agent, a return to its caller.
   */
  finish(cutOff: boolean): void {
    for (const lane of this.lanes.values()) {
      // a turn whose last step ended the turn (finishReason end_turn / stop) after an answer, with no turn.ended after it
      // (an older protocol's wire, or a writer that stopped): a hand-back, inferred, rather than "no stop at the end"
      const turn = lane.turn;
      if (cutOff || !turn || turn.stopped || turn.lastOutput !== 'text' || !END_OF_TURN.has(turn.lastFinish ?? '')) continue;
      const ev: Draft = { id: `stop:inferred:${turn.id}`, type: 'stop', reason: 'task_complete', decided_by: lane.name, detail: `inferred: the last step ended with finishReason ${turn.lastFinish} after an answer; no turn end recorded` };
      if (!lane.caller) ev.scope = 'turn';
      this.stop(lane, ev);
    }
    for (const call of this.calls.values()) {
      if (call.resultId) continue;
      const e = this.out.get(call.eventId);
      if (e && !e.call_status) e.call_status = cutOff ? 'in_progress' : 'no_result';
    }
    for (const lane of this.lanes.values()) {
      if (!lane.caller || !lane.lastText) continue;
      const fin = this.out.get(lane.lastText);
      if (fin && fin.type === 'message') {
        fin.type = 'return';
        fin.to = lane.caller;
      }
    }
  }
}

/** Finish reasons of a step that end the model's turn (Kimi Code's `step.end`; the Anthropic and OpenAI words). */
const END_OF_TURN = new Set(['end_turn', 'stop']);

/** The text of a `user_input` / tool `output`: a string, or content parts (text joined, media as `[image]`...). */
export function inputText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) return '';
  const out: string[] = [];
  for (const part of v) {
    if (typeof part === 'string') out.push(part);
    else if (isObject(part) && typeof part.text === 'string') out.push(part.text);
    else if (isObject(part) && typeof part.type === 'string' && part.type.endsWith('_url')) out.push(`[${part.type.slice(0, -'_url'.length)}]`);
  }
  return out.join('\n');
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
