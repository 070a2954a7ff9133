/**
 * Importer of GitHub Copilot CLI session logs (`~/.copilot/session-state/<session id>/events.jsonl`).
 *
 * The record format is the CLI's session events, published as a JSON Schema
 * (`session-events.schema.json`; read here from its generated TypeScript, github/copilot-sdk
 * `nodejs/src/generated/session-events.ts`): every line is `{type, id, parentId, timestamp, data,
 * agentId?}`, `agentId` naming the sub-agent instance an event is from (absent for the main agent;
 * older files put `data.parentToolCallId` on a sub-agent's events instead).
 *
 * Mapping to the trace (main lane `copilot`; a sub-agent's lane is its `agentName`, `#2`, `#3` for a
 * second and third instance of one name):
 * - `session.start` -> `metadata.copilot_cli` (session id, CLI version, model, working directory);
 * - `user.message` -> `message` from `user` (a sub-agent's: from the lane that spawned it);
 * - `assistant.message` -> `message` from its lane (text, else the tool calls it asks for; `tokens` =
 *   `outputTokens`); `assistant.usage` (when written) puts the call's tokens by kind (`usage`: input
 *   less cache read and write, output, cache read, cache write, reasoning) on its lane's last message;
 * - `tool.execution_start` -> `tool_call` (id = `toolCallId`), or `spawn` when a `subagent.started`
 *   names that call; `tool.execution_complete` -> `tool_result` (`<toolCallId>:result`, `error` when
 *   `success` is false), joined to its call by a `tool_dependency` edge; a call with no completion in
 *   the file gets `call_status: "no_result"`;
 * - `subagent.started` -> (the spawn above; a `spawn` edge to the sub-agent's first event);
 *   `subagent.completed` / `subagent.failed` -> `return` from the sub-agent to its caller (`error` on
 *   a failure, then also a `stop` of reason error in the sub-agent's lane);
 * - `hook.start` / `hook.end` -> `tool_call` / `tool_result` of tool `hook:<hookType>`;
 * - `assistant.turn_start` / `assistant.turn_end` delimit a turn (`turn_id` on its events);
 * - `session.idle` -> `stop` of the main lane with `scope: "turn"` (handed back to the user):
 *   reason user_abort after an abort (`data.aborted`, or an `abort` event since the last stop), else
 *   task_complete; `session.error` -> `stop` (error, budget_exhausted for quota / rate / context
 *   limits) with `scope: "turn"`; `session.task_complete` -> `stop` (task_complete; error when
 *   `success` is false) with `scope: "turn"`; a file with no `session.idle` at all (the current
 *   schema marks it ephemeral: not written to disk) ends a turn at the main lane's last
 *   `assistant.turn_end` before the next prompt or the end of the file, unless an error or task
 *   complete already ended it;
 * - `session.compaction_complete` -> `orchestrator_decision` (kind compaction, the summary);
 * - `session.shutdown` -> `trace.costs` (tokens by kind over its `modelMetrics`) and
 *   `metadata.copilot_cli.model_metrics`;
 * - records of other types give no event: counted by type in one info, never a warning per record.
 * Time `t`: seconds since the first record's timestamp. Never throws: bad or cut-off lines are
 * positioned errors and the rest loads.
 */
import { registerFormat, firstJsonLines, type TraceFormat } from '../formats';
import type { LoadedTrace, Origin, Problem, Range } from '../model';
import type { StopReason, TraceEvent, TokenUsage } from '../schema';
import { addTo } from '../counts';
import { usageFrom } from '../tokens';
import { isObject, num, readJsonlRecords, recordOrigin, recordSeconds, setContent, str, TraceAssembler, type JsonlRecord, type RecordClock } from './jsonl-records';

export const COPILOT_CLI_FORMAT = 'copilot-cli';

/** The main agent's lane. */
export const COPILOT_LANE = 'copilot';

type Json = Record<string, unknown>;

/** Event types this importer maps or reads (the others are counted in one info). */
const KNOWN = new Set([
  'session.start', 'session.resume', 'user.message', 'assistant.message', 'assistant.usage', 'assistant.turn_start', 'assistant.turn_end',
  'tool.execution_start', 'tool.execution_complete', 'subagent.started', 'subagent.completed', 'subagent.failed', 'hook.start', 'hook.end',
  'session.idle', 'session.error', 'session.task_complete', 'abort', 'session.compaction_complete', 'session.shutdown',
]);

/** Errors that mean a limit was reached, not a failure of the agent. */
const BUDGET_ERROR = /quota|rate.?limit|context.?limit|context window|too many tokens|usage limit/i;

/** One sub-agent instance: its lane, the call that spawned it, the lane that called it. */
interface SubAgent {
  lane: string;
  callId: string;
  caller: string;
  firstEventId?: string;
  spawnEventId?: string;
}

/**
 * Reads a Copilot CLI `events.jsonl`.
 * @param text the file's content; @param fileName its path (for the trace id when the file names no session).
 * @returns the trace (format `copilot-cli`), the origin of every event (the line of its record) and
 * positioned problems (bad or cut-off lines, results of unknown calls, unknown record types). Never throws.
 */
export function readCopilotCli(text: string, fileName = ''): LoadedTrace {
  const { records, problems } = readJsonlRecords(text);
  const out = new TraceAssembler(problems.slice());
  const r = new CliReader(out, records);
  for (const rec of records) r.read(rec);
  return r.finish(fileName);
}

/** The state of reading one events.jsonl (see the file comment). */
class CliReader {
  /** The first and the last record time read (ms since the epoch). */
  private readonly clock: RecordClock = { base: undefined, lastMs: undefined };
  private t = 0;
  private origin: Origin = recordOrigin({ line: 0, start: 0, length: 0, value: {} });
  /** Sub-agents by the id their events carry (`agentId`, else the spawning call's id). */
  private readonly subs = new Map<string, SubAgent>();
  /** Sub-agents by the tool call that spawned them (read ahead: the call comes before `subagent.started`). */
  private readonly spawnedBy = new Map<string, { agentName: string; agentId?: string }>();
  private readonly calls = new Map<string, { id: string; tool: string; lane: string }>();
  private readonly hooks = new Map<string, string>();
  private readonly lastMessage = new Map<string, string>();
  private readonly laneNames = new Map<string, number>();
  private readonly unknown: Record<string, number> = {};
  private firstUnknown: Range | undefined;
  private turn: string | undefined;
  private aborted = false;
  private session: Json | undefined;
  private shutdown: Json | undefined;
  private toolCalls = 0;
  /** Lines of the `assistant.turn_end` records that end a turn in a file that writes no `session.idle`. */
  private readonly turnEndsWithoutIdle = new Set<number>();

  constructor(
    private readonly out: TraceAssembler,
    records: readonly JsonlRecord[],
  ) {
    for (const rec of records) {
      const d = isObject(rec.value.data) ? rec.value.data : undefined;
      if (rec.value.type === 'subagent.started' && d && typeof d.toolCallId === 'string') {
        this.spawnedBy.set(d.toolCallId, { agentName: str(d.agentName) ?? str(d.agentDisplayName) ?? 'subagent', agentId: str(rec.value.agentId) });
      }
    }
    if (!records.some((rec) => rec.value.type === 'session.idle')) this.findTurnEnds(records);
  }

  /**
   * Without `session.idle` records, the turn ends are the main lane's last `assistant.turn_end` before
   * each next prompt (or the end of the file): one model turn per request, several per prompt.
   */
  private findTurnEnds(records: readonly JsonlRecord[]): void {
    let last: number | undefined;
    for (const rec of records) {
      const v = rec.value;
      const d = isObject(v.data) ? v.data : {};
      if (v.agentId !== undefined || d.parentToolCallId !== undefined) continue; // a sub-agent's
      if (v.type === 'assistant.turn_end') last = rec.line;
      else if (v.type === 'session.error' || v.type === 'session.task_complete') last = undefined; // already a turn end
      else if (v.type === 'user.message') {
        if (last !== undefined) this.turnEndsWithoutIdle.add(last);
        last = undefined;
      }
    }
    if (last !== undefined) this.turnEndsWithoutIdle.add(last);
  }

  /** The sub-agent an event is from, by its `agentId` or (older files) `data.parentToolCallId`. */
  private subOf(v: Json, d: Json): SubAgent | undefined {
    const key = str(v.agentId) ?? str(d.parentToolCallId);
    return key === undefined ? undefined : this.subs.get(key) ?? this.subByCall(key);
  }

  private subByCall(callId: string): SubAgent | undefined {
    for (const s of this.subs.values()) if (s.callId === callId) return s;
    return undefined;
  }

  /** A lane name for a new sub-agent instance: its name, `#n` from its second instance on. */
  private newLane(name: string): string {
    const n = (this.laneNames.get(name) ?? 0) + 1;
    this.laneNames.set(name, n);
    return n === 1 ? name : `${name}#${n}`;
  }

  private add(e: Partial<TraceEvent> & Pick<TraceEvent, 'id' | 'type' | 'agent'>, sub?: SubAgent): string {
    const ev = e as TraceEvent & Json;
    ev.t = this.t;
    if (this.turn !== undefined && !sub) ev.turn_id = this.turn;
    const id = this.out.add(ev, this.origin);
    if (sub && !sub.firstEventId) {
      sub.firstEventId = id;
      if (sub.spawnEventId) this.out.edge(sub.spawnEventId, id, 'spawn');
    }
    return id;
  }

  /** Reads one record (in line order): its time, then its type's handler. */
  read(rec: JsonlRecord): void {
    const v = rec.value;
    this.t = recordSeconds(this.clock, v.timestamp);
    this.origin = recordOrigin(rec);
    const type = str(v.type) ?? '(no type)';
    const d: Json = isObject(v.data) ? v.data : {};
    const sub = this.subOf(v, d);
    const lane = sub?.lane ?? COPILOT_LANE;
    const at = `L${rec.line + 1}`;
    switch (type) {
      case 'session.start':
      case 'session.resume':
        this.session ??= d;
        break;
      case 'user.message': {
        const from = sub ? sub.caller : 'user';
        const ev: Json = { id: str(v.id) ?? `user:${at}`, type: 'message', agent: lane, from, to: lane };
        setContent(ev, str(d.content));
        this.add(ev as TraceEvent, sub);
        break;
      }
      case 'assistant.message': {
        const ev: Json = { id: str(v.id) ?? `msg:${at}`, type: 'message', agent: lane, from: lane };
        const requests = Array.isArray(d.toolRequests) ? d.toolRequests.filter(isObject) : [];
        const text = str(d.content) || requests.map((q) => `${str(q.name) ?? 'tool'}(${q.arguments === undefined ? '' : JSON.stringify(q.arguments)})`).join('\n');
        setContent(ev, text);
        if (num(d.outputTokens) !== undefined) ev.tokens = d.outputTokens;
        if (str(d.model)) ev.model = d.model;
        this.lastMessage.set(lane, this.add(ev as TraceEvent, sub));
        break;
      }
      case 'assistant.usage':
        this.usage(lane, d);
        break;
      case 'assistant.turn_start':
        if (!sub) this.turn = str(d.turnId) ?? at;
        break;
      case 'assistant.turn_end':
        if (!sub && this.turnEndsWithoutIdle.has(rec.line)) {
          const aborted = this.aborted;
          this.turnEnd(aborted ? 'user_abort' : 'task_complete', aborted ? 'the user aborted the turn (its last assistant.turn_end; the file has no session.idle)' : 'turn ended: the last assistant.turn_end before the next prompt (the file has no session.idle)', at, aborted ? 'user' : COPILOT_LANE);
        }
        break;
      case 'tool.execution_start':
        this.toolStart(d, lane, sub, at);
        break;
      case 'tool.execution_complete':
        this.toolEnd(d, lane, sub, at);
        break;
      case 'subagent.started':
        break; // read ahead: the spawning call became its spawn
      case 'subagent.completed':
      case 'subagent.failed':
        this.subEnd(type, d);
        break;
      case 'hook.start': {
        const id = str(d.hookInvocationId) ?? `hook:${at}`;
        const ev: Json = { id, type: 'tool_call', agent: lane, tool: `hook:${str(d.hookType) ?? '?'}`, from: lane, hook: true };
        if (d.input !== undefined) setContent(ev, JSON.stringify(d.input));
        this.hooks.set(id, this.add(ev as TraceEvent, sub));
        break;
      }
      case 'hook.end': {
        const callId = this.hooks.get(str(d.hookInvocationId) ?? '');
        const ev: Json = { id: `${str(d.hookInvocationId) ?? at}:result`, type: 'tool_result', agent: lane, tool: `hook:${str(d.hookType) ?? '?'}`, hook: true };
        if (d.output !== undefined) setContent(ev, JSON.stringify(d.output));
        if (d.success === false) ev.error = (isObject(d.error) ? str(d.error.message) : undefined) ?? 'hook failed';
        if (callId) ev.causes = [callId];
        const rid = this.add(ev as TraceEvent, sub);
        if (callId) this.out.edge(callId, rid, 'tool_dependency');
        break;
      }
      case 'abort':
        this.aborted = true;
        break;
      case 'session.idle':
        this.turnEnd(d.aborted === true || this.aborted ? 'user_abort' : 'task_complete', d.aborted === true || this.aborted ? 'the user aborted the turn; idle, waiting for the user' : 'idle: the agent handed back to the user', at, d.aborted === true || this.aborted ? 'user' : COPILOT_LANE);
        break;
      case 'session.error': {
        const message = str(d.message) ?? '';
        const reason: StopReason = BUDGET_ERROR.test(`${str(d.errorType) ?? ''} ${message}`) ? 'budget_exhausted' : 'error';
        this.turnEnd(reason, `session error (${str(d.errorType) ?? 'unknown'})`, at, COPILOT_LANE, message);
        break;
      }
      case 'session.task_complete':
        this.turnEnd(d.success === false ? 'error' : 'task_complete', `task complete${d.success === false ? ' rejected' : ''}`, at, COPILOT_LANE, str(d.summary));
        break;
      case 'session.compaction_complete': {
        const ev: Json = { id: str(v.id) ?? `compaction:${at}`, type: 'orchestrator_decision', agent: lane, kind: 'compaction', compaction: true };
        setContent(ev, str(d.summaryContent) ?? 'context compacted');
        if (d.success === false) ev.error = str(d.error) ?? 'compaction failed';
        this.add(ev as TraceEvent, sub);
        break;
      }
      case 'session.shutdown':
        this.shutdown = d;
        break;
      default:
        addTo(this.unknown, type);
        this.firstUnknown ??= this.origin.range;
    }
  }

  /** Tokens of one model call by kind, on its lane's last message (once: a second usage is added). */
  private usage(lane: string, d: Json): void {
    const target = this.lastMessage.get(lane);
    const e = target ? this.out.get(target) : undefined;
    const u = usageFrom({ input: num(d.inputTokens), output: num(d.outputTokens), cache_read: num(d.cacheReadTokens), cache_write: num(d.cacheWriteTokens), reasoning: num(d.reasoningTokens) }, true);
    if (!e || !u) return;
    e.usage = u;
    if (u.output !== undefined) e.tokens = u.output;
    this.lastMessage.delete(lane);
  }

  private toolStart(d: Json, lane: string, sub: SubAgent | undefined, at: string): void {
    const callId = str(d.toolCallId) ?? `call:${at}`;
    const tool = str(d.toolName) ?? 'tool';
    const spawned = this.spawnedBy.get(callId);
    const ev: Json = { id: callId, type: spawned ? 'spawn' : 'tool_call', agent: lane, tool, from: lane };
    if (d.arguments !== undefined) setContent(ev, typeof d.arguments === 'string' ? d.arguments : JSON.stringify(d.arguments));
    if (spawned) {
      const s: SubAgent = { lane: this.newLane(spawned.agentName), callId, caller: lane };
      ev.to = s.lane;
      this.subs.set(spawned.agentId ?? callId, s);
      if (spawned.agentId && spawned.agentId !== callId) this.subs.set(callId, s);
      s.spawnEventId = this.add(ev as TraceEvent, sub);
      this.calls.set(callId, { id: s.spawnEventId, tool, lane });
    } else this.calls.set(callId, { id: this.add(ev as TraceEvent, sub), tool, lane });
    this.toolCalls++;
  }

  private toolEnd(d: Json, lane: string, sub: SubAgent | undefined, at: string): void {
    const callId = str(d.toolCallId) ?? `call:${at}`;
    const call = this.calls.get(callId);
    const result = isObject(d.result) ? d.result : undefined;
    const ev: Json = { id: `${callId}:result`, type: 'tool_result', agent: call?.lane ?? lane, tool: call?.tool ?? 'unknown' };
    setContent(ev, str(result?.content) ?? (isObject(d.error) ? str(d.error.message) : undefined));
    if (d.success === false) ev.error = (isObject(d.error) ? str(d.error.message) : undefined) ?? 'the tool call failed';
    if (call) {
      ev.causes = [call.id];
      this.calls.delete(callId);
    } else this.out.problems.push({ severity: 'warning', message: `tool.execution_complete for toolCallId "${callId}", which no tool.execution_start of this file started`, range: this.origin.range });
    const rid = this.add(ev as TraceEvent, sub);
    if (call) this.out.edge(call.id, rid, 'tool_dependency');
  }

  /** A sub-agent's end: its return to the caller (and a stop when it failed). */
  private subEnd(type: string, d: Json): void {
    const s = this.subByCall(str(d.toolCallId) ?? '');
    if (!s) {
      this.out.problems.push({ severity: 'warning', message: `${type} for toolCallId "${str(d.toolCallId) ?? ''}", which no tool call of this file spawned`, range: this.origin.range });
      return;
    }
    const failed = type === 'subagent.failed';
    const ev: Json = { id: `${s.callId}:return`, type: 'return', agent: s.lane, from: s.lane, to: s.caller };
    const last = this.lastMessage.get(s.lane) ?? [...this.out.events].reverse().find((e) => e.agent === s.lane && e.type === 'message')?.id;
    const lastText = last ? this.out.get(last)?.content : undefined;
    setContent(ev, failed ? str(d.error) : lastText);
    if (failed) ev.error = str(d.error) ?? 'the sub-agent failed';
    if (d.cancelled === true) ev.cancelled = true;
    if (num(d.totalTokens) !== undefined) ev.total_tokens = d.totalTokens;
    if (last) ev.causes = [last];
    const rid = this.add(ev as TraceEvent, s);
    if (failed || d.cancelled === true) {
      const reason: StopReason = failed ? 'error' : 'user_abort';
      this.add({ id: `${s.callId}:stop`, type: 'stop', agent: s.lane, reason, decided_by: failed ? s.lane : 'user', detail: `${type}${d.cancelled === true ? ' (cancelled)' : ''}`, causes: [rid] } as TraceEvent, s);
    }
  }

  /** The main agent's turn ended: a `stop` with scope turn (handed back to the user). */
  private turnEnd(reason: StopReason, detail: string, at: string, decidedBy: string, content?: string): void {
    const ev: Json = { id: `stop:${at}`, type: 'stop', agent: COPILOT_LANE, reason, decided_by: decidedBy, detail, scope: 'turn' };
    if (reason === 'user_abort') ev.kind = 'interruption';
    setContent(ev, content);
    this.add(ev as TraceEvent);
    this.turn = undefined;
    this.aborted = false;
  }

  /** After the last record: the unknown types' info, costs from the shutdown, the trace fields. */
  finish(fileName: string): LoadedTrace {
    // calls still waiting for their completion: no result in the file (an aborted turn's, or a cut-off file's)
    for (const c of this.calls.values()) {
      const e = this.out.get(c.id);
      if (e && e.type === 'tool_call') e.call_status = 'no_result';
    }
    const kinds = Object.entries(this.unknown);
    if (kinds.length && this.firstUnknown) {
      const n = kinds.reduce((a, [, c]) => a + c, 0);
      const problem: Problem = { severity: 'info', message: `${n} record${n > 1 ? 's' : ''} of ${kinds.length} type${kinds.length > 1 ? 's' : ''} not shown: ${kinds.sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${c}`).join(', ')}`, range: this.firstUnknown };
      this.out.problems.push(problem);
    }
    const costs: Record<string, number> = { tool_calls: this.toolCalls };
    const meta: Json = { source_format: COPILOT_CLI_FORMAT, skipped_records: this.unknown };
    const s = this.session;
    if (s) {
      for (const k of ['sessionId', 'copilotVersion', 'producer', 'selectedModel', 'version']) if (s[k] !== undefined) meta[k] = s[k];
      if (isObject(s.context) && typeof s.context.cwd === 'string') meta.cwd = s.context.cwd;
    }
    if (this.shutdown) {
      const metrics = isObject(this.shutdown.modelMetrics) ? this.shutdown.modelMetrics : {};
      meta.model_metrics = metrics;
      let total: TokenUsage = {};
      for (const m of Object.values(metrics)) {
        const u = isObject(m) && isObject(m.usage) ? m.usage : undefined;
        if (!u) continue;
        const k = usageFrom({ input: num(u.inputTokens), output: num(u.outputTokens), cache_read: num(u.cacheReadTokens), cache_write: num(u.cacheWriteTokens), reasoning: num(u.reasoningTokens) }, true);
        if (k) total = { input: (total.input ?? 0) + (k.input ?? 0), output: (total.output ?? 0) + (k.output ?? 0), cache_read: (total.cache_read ?? 0) + (k.cache_read ?? 0), cache_write: (total.cache_write ?? 0) + (k.cache_write ?? 0) };
      }
      if (Object.keys(total).length) {
        costs.input_tokens = total.input ?? 0;
        costs.output_tokens = total.output ?? 0;
        costs.cache_read_tokens = total.cache_read ?? 0;
        costs.cache_write_tokens = total.cache_write ?? 0;
        costs.tokens = costs.input_tokens + costs.output_tokens + costs.cache_read_tokens + costs.cache_write_tokens;
      }
      if (typeof this.shutdown.shutdownType === 'string') meta.shutdown_type = this.shutdown.shutdownType;
    }
    let end = 0;
    for (const e of this.out.events) end = Math.max(end, e.t);
    costs.wall_clock_s = end;
    const base = fileName.replace(/[\\/]events\.jsonl$/, '');
    const trace_id = str(s?.sessionId) ?? base.slice(Math.max(base.lastIndexOf('/'), base.lastIndexOf('\\')) + 1) ?? 'copilot-cli';
    return this.out.finish(COPILOT_CLI_FORMAT, { trace_id: trace_id || 'copilot-cli', system: 'copilot-cli', costs, metadata: { copilot_cli: meta } });
  }
}

/** True when the text is a Copilot CLI events log: a first record of a session event type with `data`. */
export function isCopilotCliText(text: string, fileName = ''): boolean {
  const lines = firstJsonLines(text, 3);
  if (lines.some((l) => isObject(l) && l.type === 'session.start' && isObject(l.data) && ('copilotVersion' in l.data || 'producer' in l.data))) return true;
  // a session log whose first line is damaged or starts later (a resumed session): the name and the record shape together
  return /(^|[\\/])events\.jsonl$/.test(fileName) && lines.some((l) => isObject(l) && typeof l.type === 'string' && KNOWN.has(l.type) && isObject(l.data) && typeof l.timestamp === 'string');
}

/** The Copilot CLI session log format. */
export const copilotCliFormat: TraceFormat = {
  id: COPILOT_CLI_FORMAT,
  label: 'GitHub Copilot CLI session events (events.jsonl)',
  detect: (text, fileName) => isCopilotCliText(text, fileName),
  read: (text, fileName) => readCopilotCli(text, fileName),
};

registerFormat(copilotCliFormat, true);
