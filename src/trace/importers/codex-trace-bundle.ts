/**
 * Importer of Codex rollout-trace bundles: the diagnostic recording Codex writes when
 * `CODEX_ROLLOUT_TRACE_ROOT` is set (openai/codex, crate `codex-rs/rollout-trace`: README.md,
 * bundle.rs, raw_event.rs, writer.rs, inference.rs, thread.rs). A bundle is a folder:
 * - `manifest.json`: `{schema_version, trace_id, rollout_id, root_thread_id, started_at_unix_ms,
 *   raw_event_log: "trace.jsonl", payloads_dir: "payloads"}`;
 * - `trace.jsonl`: raw events `{schema_version, seq, wall_time_unix_ms, rollout_id, thread_id,
 *   codex_turn_id, payload: {type, …}}` in `seq` order (`rollout_started`, `thread_started`
 *   `{thread_id, agent_path, metadata_payload}`, `codex_turn_started` / `codex_turn_ended {status}`,
 *   `inference_started {request_payload}` / `inference_completed {response_payload}`,
 *   `tool_call_started {tool_call_id, model_visible_call_id, kind, summary, invocation_payload}` /
 *   `tool_call_ended {status, result_payload}`, `agent_result_observed {child_thread_id,
 *   parent_thread_id, message}`, `compaction_installed {checkpoint_payload}`, …);
 * - `payloads/<n>.json`: the raw evidence the events point at (`{raw_payload_id, kind, path}`).
 * Child threads spawned by multi-agent v2 share their root's bundle, so one bundle is one trace.
 * Opening `trace.jsonl` or `manifest.json` reads the bundle (the payloads through the file access).
 *
 * Mapping: one lane per thread (the root `codex`, a child `<role>:<nickname>` from its metadata
 * payload, else `agent:<last segment of its agent path>`); a turn's end -> `stop` (`completed`:
 * task_complete, `failed`: error, else unknown); an inference's response output items -> the
 * model's messages and tool calls (its `token_usage` by kind on the last of them); the request's
 * new user-role items -> prompts (injected context, `<environment_context>` and the like, -> `meta`
 * rows from `harness`); a tool call's end -> `tool_result` (`is_error` when it failed, the exit
 * code from its output's header); a `spawn_agent` call -> `spawn` to the lane of the thread at its
 * target path; `agent_result_observed` -> a `message` from the child's lane to its parent's.
 * Records that give no event and say nothing the trace keeps are counted in one warning.
 *
 * Pure: imports nothing from `vscode`.
 */
import { firstJsonLines, registerFormat, type FileAccess, type TraceFormat } from '../formats';
import type { LoadedTrace, Problem } from '../model';
import type { StopReason, TraceEvent } from '../schema';
import { addTo } from '../counts';
import { usageFrom } from '../tokens';
import { childLane, ROOT_LANE, ROOT_PATH } from './codex-rollout';
import { outputExitCode } from './codex-exit-code';
import { compactionText } from './codex-history';
import { baseName, dirName, isObject, joinPath, lineRange, num, readJsonlRecords, recordOrigin, setContent, str, TraceAssembler, type JsonlRecord } from './jsonl-records';

type Json = Record<string, unknown>;

/** True for a bundle's manifest (`trace_id`, `rollout_id`, `root_thread_id`, `raw_event_log`). */
export function isBundleManifest(v: unknown): v is Json {
  return isObject(v) && typeof v.trace_id === 'string' && typeof v.rollout_id === 'string' && typeof v.root_thread_id === 'string' && typeof v.raw_event_log === 'string';
}

/** True for one raw event of a bundle's `trace.jsonl` (`seq`, `wall_time_unix_ms`, `rollout_id`, a typed `payload`). */
export function isRawTraceEvent(v: unknown): v is Json {
  return isObject(v) && typeof v.seq === 'number' && typeof v.wall_time_unix_ms === 'number' && typeof v.rollout_id === 'string' && isObject(v.payload) && typeof v.payload.type === 'string';
}

/** True when the text is a bundle's manifest or raw event log (by content). */
export function isCodexTraceBundleText(text: string): boolean {
  const head = text.trimStart();
  if (head.startsWith('{') && head.length < 1 << 16 && /"raw_event_log"\s*:/.test(head)) {
    try {
      if (isBundleManifest(JSON.parse(head))) return true;
    } catch {
      // not one JSON document: maybe JSON Lines
    }
  }
  return firstJsonLines(text, 3).some(isRawTraceEvent);
}

/** Statuses of a tool call or turn that say it failed (openai/codex rollout-trace `ExecutionStatus`). */
const FAILED = new Set(['failed', 'error', 'errored']);

/** Rows of injected context Codex sends as user-role items (not a prompt of the user). */
const INJECTED = /^\s*(<(environment_context|user_instructions|permissions|collaboration_mode|turn_aborted|subagent_notification|skill)\b|# AGENTS\.md)/;

/** A thread of the bundle. */
interface Thread {
  lane: string;
  path?: string;
  /** Texts of the user-role items already read from its requests (a full snapshot repeats them). */
  seen: Set<string>;
  /** What came in since its last output (prompts, results, messages): the causes of the next. */
  inputs: string[];
  lastOutput?: string;
  lastAnswer?: string;
  firstEvent?: string;
  /** The thread that spawned it (by agent path). */
  parentLane?: string;
}

/** Reads a bundle's raw event log into a trace (see the file comment). */
class BundleReader {
  readonly problems: Problem[] = [];
  readonly out: TraceAssembler;
  private readonly threads = new Map<string, Thread>();
  private readonly calls = new Map<string, string>();
  private readonly spawns: { eventId: string; target: string }[] = [];
  private readonly turns: { turn_id: string; thread: string; start_t: number; end_t?: number; stop: StopReason | null }[] = [];
  private readonly skipped: Record<string, number> = {};
  private readonly models = new Set<string>();
  private firstSkipped: JsonlRecord | undefined;
  private missingPayloads = 0;
  private base: number | undefined;
  private t = 0;
  private record!: JsonlRecord;
  private status: string | undefined;
  /** The root thread: the manifest's, else the `rollout_started` event's. */
  private rootThread: string | undefined;

  constructor(
    private readonly manifest: Json | undefined,
    /** The folder of the bundle (payload paths are relative to it). */
    private readonly dir: string,
    private readonly files: FileAccess | undefined,
    /** The event log, when it is not the opened file. */
    private readonly logFile: string | undefined,
  ) {
    this.out = new TraceAssembler(this.problems);
    this.rootThread = str(manifest?.root_thread_id);
  }

  /** The JSON of a payload reference `{raw_payload_id, kind, path}`, or undefined (a missing payload is counted). */
  private payload(ref: unknown): unknown {
    if (!isObject(ref) || typeof ref.path !== 'string') return undefined;
    // Inside the bundle only: a relative path without `..` (the bundle's files are untrusted).
    if (/^([\\/]|[A-Za-z]:)|(^|[\\/])\.\.([\\/]|$)/.test(ref.path)) {
      this.missingPayloads++;
      return undefined;
    }
    const text = this.files?.readText(joinPath(this.dir || ref.path, ...(this.dir ? [this.dir] : []), ref.path));
    if (text === undefined) {
      this.missingPayloads++;
      return undefined;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      this.missingPayloads++;
      return undefined;
    }
  }

  private thread(id: string | undefined): Thread {
    const key = id ?? '';
    let th = this.threads.get(key);
    if (!th) {
      const root = id === undefined || id === this.rootThread;
      th = { lane: root ? ROOT_LANE : childLane(undefined, id.slice(0, 8)), seen: new Set(), inputs: [] };
      if (root) th.path = ROOT_PATH;
      this.threads.set(key, th);
    }
    return th;
  }

  private add(th: Thread, draft: Partial<TraceEvent> & Json & Pick<TraceEvent, 'id' | 'type'>): string {
    const e = draft as TraceEvent & Json;
    e.t = this.t;
    e.agent = th.lane;
    const turn = str(this.record.value.codex_turn_id);
    if (turn) e.turn_id = turn;
    const id = this.out.add(e, recordOrigin(this.record, this.logFile));
    th.firstEvent ??= id;
    return id;
  }

  /** A model output: caused by what came in since the thread's previous one. */
  private output(th: Thread, draft: Partial<TraceEvent> & Json & Pick<TraceEvent, 'id' | 'type'>): string {
    if (th.inputs.length) draft.causes = [...(draft.causes ?? []), ...th.inputs];
    th.inputs = [];
    const id = this.add(th, draft);
    th.lastOutput = id;
    return id;
  }

  private skip(kind: string): void {
    addTo(this.skipped, kind);
    this.firstSkipped ??= this.record;
  }

  /** Reads one raw event. */
  read(r: JsonlRecord): void {
    this.record = r;
    const v = r.value;
    if (!isRawTraceEvent(v)) {
      this.skip('not a raw trace event');
      return;
    }
    const ms = v.wall_time_unix_ms as number;
    this.base ??= ms;
    this.t = Math.max(0, (ms - this.base) / 1000);
    const p = v.payload as Json;
    const th = this.thread(str(p.thread_id) ?? str(v.thread_id));
    switch (p.type) {
      case 'rollout_started':
        this.rootThread ??= str(p.root_thread_id);
        break;
      case 'codex_turn_started':
        this.turns.push({ turn_id: str(p.codex_turn_id) ?? `turn@L${r.line}`, thread: th.lane, start_t: this.t, stop: null });
        th.lastAnswer = undefined;
        break;
      case 'rollout_ended':
        this.status = str(p.status) ?? (isObject(p.status) ? str(p.status.type) : undefined);
        break;
      case 'thread_started':
        this.threadStarted(th, p);
        break;
      case 'thread_ended':
        break; // the turns' ends say how it went
      case 'codex_turn_ended':
        this.turnEnded(th, p);
        break;
      case 'inference_started':
        this.inferenceStarted(th, p);
        break;
      case 'inference_completed':
      case 'inference_failed':
      case 'inference_cancelled':
        this.inferenceEnded(th, p);
        break;
      case 'tool_call_started':
        this.toolStarted(th, p);
        break;
      case 'tool_call_ended':
        this.toolEnded(p);
        break;
      case 'agent_result_observed':
        this.agentResult(p);
        break;
      case 'compaction_installed': {
        const cp = this.payload(p.checkpoint_payload);
        const kept = isObject(cp) ? (cp.replacement_history ?? cp.history ?? cp.input) : undefined;
        const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: `compaction:${str(p.compaction_id) ?? `L${r.line}`}`, type: 'orchestrator_decision', kind: 'compaction', compaction: true };
        setContent(ev, compactionText(undefined, kept) ?? 'context compacted');
        th.inputs.push(this.add(th, ev));
        break;
      }
      default:
        this.skip(String(p.type));
    }
  }

  private threadStarted(th: Thread, p: Json): void {
    const meta = this.payload(p.metadata_payload);
    const m = isObject(meta) ? meta : {};
    const path = str(p.agent_path) ?? str(m.agent_path);
    if (path) th.path = path;
    // Its parent: the thread whose agent path is this one's without its last segment.
    const parentPath = path?.includes('/', 1) ? path.slice(0, path.lastIndexOf('/')) : undefined;
    const parent = parentPath ? [...this.threads.values()].find((x) => x.path === parentPath) : undefined;
    if (parent && parent !== th) th.parentLane = parent.lane;
    if (th.lane !== ROOT_LANE && path !== ROOT_PATH) {
      const name = str(m.nickname) ?? str(m.task_name) ?? (path ? path.split('/').filter((x) => x !== '').pop() : undefined);
      if (name) th.lane = childLane(str(m.agent_role), name);
    } else th.lane = ROOT_LANE;
    if (typeof m.model === 'string') this.models.add(m.model);
  }

  private turnEnded(th: Thread, p: Json): void {
    const turnId = str(p.codex_turn_id) ?? str(this.record.value.codex_turn_id);
    const status = str(p.status) ?? (isObject(p.status) ? str(p.status.type) : undefined) ?? 'unknown';
    const reason: StopReason = status === 'completed' ? 'task_complete' : FAILED.has(status) ? 'error' : 'unknown';
    const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: `stop:${turnId ?? `L${this.record.line}`}`, type: 'stop', reason, decided_by: th.lane, detail: `turn ${status}` };
    if (th.lane === ROOT_LANE) ev.scope = 'turn';
    setContent(ev, th.lastAnswer);
    this.add(th, ev);
    const turn = this.turns.find((x) => x.turn_id === turnId);
    if (turn) {
      turn.end_t = this.t;
      turn.stop = reason;
    }
  }

  /** The request's user-role items not read before: prompts (or injected context), the first of a child's from its parent. */
  private inferenceStarted(th: Thread, p: Json): void {
    if (typeof p.model === 'string') this.models.add(p.model);
    const req = this.payload(p.request_payload);
    const input = isObject(req) && Array.isArray(req.input) ? req.input : [];
    for (const item of input) {
      if (!isObject(item) || item.type !== 'message' || item.role !== 'user') continue;
      const text = messageText(item.content);
      if (text.trim() === '' || th.seen.has(text)) continue;
      th.seen.add(text);
      const injected = INJECTED.test(text);
      const from = injected ? 'harness' : th.parentLane && th.firstEvent === undefined ? th.parentLane : 'user';
      const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: `user:L${this.record.line}#${th.seen.size}`, type: 'message', from, to: th.lane };
      if (injected) ev.kind = 'meta';
      setContent(ev, text);
      const id = this.add(th, ev);
      if (!injected) th.inputs.push(id);
    }
  }

  /** The response's output items: messages and tool calls of the model, its token usage on the last. */
  private inferenceEnded(th: Thread, p: Json): void {
    const res = this.payload(p.response_payload ?? p.partial_response_payload);
    const items = isObject(res) && Array.isArray(res.output_items) ? res.output_items : [];
    let last: string | undefined;
    for (const item of items) {
      if (!isObject(item)) continue;
      const type = str(item.type) ?? '';
      if (type === 'message' && item.role === 'assistant') {
        const text = messageText(item.content);
        const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: `msg:L${this.record.line}#${items.indexOf(item)}`, type: 'message', from: th.lane };
        if (typeof item.phase === 'string') ev.phase = item.phase;
        setContent(ev, text);
        last = this.output(th, ev);
        th.lastAnswer = text;
      } else if (type.endsWith('_call') && !type.endsWith('_output')) {
        const callId = str(item.call_id) ?? str(item.id) ?? `call:L${this.record.line}#${items.indexOf(item)}`;
        const known = this.calls.get(callId);
        if (known) {
          last = known; // its tool_call_started came first
          continue;
        }
        const args = item.arguments ?? item.input ?? item.action;
        const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: callId, type: 'tool_call', tool: str(item.name) ?? type.slice(0, -'_call'.length) };
        setContent(ev, typeof args === 'string' ? args : args === undefined ? undefined : JSON.stringify(args));
        last = this.output(th, ev);
        this.calls.set(callId, last);
      }
    }
    const usage = isObject(res) && isObject(res.token_usage) ? res.token_usage : undefined;
    const e = last ? this.out.get(last) : undefined;
    if (e && usage) {
      const byKind = usageFrom({ input: num(usage.input_tokens), cache_read: num(usage.cached_input_tokens), output: num(usage.output_tokens), reasoning: num(usage.reasoning_output_tokens) }, true);
      if (byKind) {
        e.usage = byKind;
        e.tokens = byKind.output ?? 0;
      }
    }
    if (p.type === 'inference_failed' || p.type === 'inference_cancelled') {
      const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: `inference:L${this.record.line}`, type: 'orchestrator_decision', detail: p.type === 'inference_failed' ? 'model call failed' : 'model call cancelled' };
      setContent(ev, str(p.error) ?? str(p.reason));
      this.add(th, ev);
    }
  }

  /** A tool call: the model's (already read from its response, given its kind here) or one of its own (code mode). */
  private toolStarted(th: Thread, p: Json): void {
    const toolCallId = str(p.tool_call_id) ?? `L${this.record.line}`;
    const visible = str(p.model_visible_call_id);
    const kind = isObject(p.kind) ? p.kind : {};
    const kindName = str(kind.type) ?? 'other';
    const tool = kindName === 'mcp' ? `${str(kind.server) ?? 'mcp'}.${str(kind.tool) ?? ''}` : kindName === 'other' ? (str(kind.name) ?? 'other') : kindName;
    let id = visible ? this.calls.get(visible) : undefined;
    if (!id) {
      const inv = this.payload(p.invocation_payload);
      const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: visible ?? toolCallId, type: 'tool_call', tool };
      setContent(ev, inv === undefined ? undefined : typeof inv === 'string' ? inv : JSON.stringify(inv));
      id = this.output(th, ev);
    }
    this.calls.set(toolCallId, id);
    const summary = isObject(p.summary) ? p.summary : {};
    if (kindName === 'spawn_agent' && typeof summary.target_agent_path === 'string') {
      const e = this.out.get(id);
      if (e) {
        e.type = 'spawn';
        // What the worker was asked (as a rollout's spawn shows it), not the call's JSON.
        if (typeof summary.message_preview === 'string' && summary.message_preview !== '') setContent(e, summary.message_preview);
      }
      this.spawns.push({ eventId: id, target: summary.target_agent_path });
    }
  }

  private toolEnded(p: Json): void {
    const callId = this.calls.get(str(p.tool_call_id) ?? '');
    const call = callId ? this.out.get(callId) : undefined;
    const th = call ? ([...this.threads.values()].find((x) => x.lane === call.agent) ?? this.thread(undefined)) : this.thread(str(this.record.value.thread_id));
    const res = this.payload(p.result_payload);
    const text = typeof res === 'string' ? res : isObject(res) && typeof res.output === 'string' ? res.output : isObject(res) && typeof res.content === 'string' ? res.content : res === undefined ? undefined : JSON.stringify(res);
    const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: `${callId ?? str(p.tool_call_id) ?? `L${this.record.line}`}:result`, type: 'tool_result', tool: call?.tool ?? 'unknown' };
    setContent(ev, text);
    const status = str(p.status) ?? (isObject(p.status) ? str(p.status.type) : undefined);
    const code = text === undefined ? undefined : outputExitCode(text);
    if (code !== undefined) ev.exit_code = code;
    if ((status !== undefined && FAILED.has(status)) || (code !== undefined && code !== 0)) ev.is_error = true;
    if (callId) ev.causes = [callId];
    const id = this.add(th, ev);
    if (callId) this.out.edge(callId, id, 'tool_dependency');
    th.inputs.push(id);
  }

  /** A child's result delivered to its parent: a message from the child's lane into the parent's. */
  private agentResult(p: Json): void {
    const child = this.thread(str(p.child_thread_id));
    const parent = this.thread(str(p.parent_thread_id));
    const ev: Json & Pick<TraceEvent, 'id' | 'type'> = { id: `agent-result:L${this.record.line}`, type: 'message', from: child.lane, to: parent.lane };
    setContent(ev, str(p.message));
    const id = this.add(parent, ev);
    if (child.lastOutput) this.out.edge(child.lastOutput, id, 'return');
    parent.inputs.push(id);
  }

  /** After the last event: spawns to their threads, the problems, the trace. */
  finish(): LoadedTrace {
    for (const s of this.spawns) {
      const th = [...this.threads.values()].find((x) => x.path === s.target);
      const e = this.out.get(s.eventId);
      if (!th || !e) continue;
      e.to = th.lane;
      if (th.firstEvent) this.out.edge(s.eventId, th.firstEvent, 'spawn');
    }
    const kinds = Object.entries(this.skipped);
    if (kinds.length) {
      const total = kinds.reduce((n, [, c]) => n + c, 0);
      this.problems.push({ severity: 'warning', message: `${total} record${total > 1 ? 's' : ''} of ${kinds.length} kind${kinds.length > 1 ? 's' : ''} not shown: ${kinds.sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${c}`).join(', ')}`, range: this.firstSkipped ? recordOrigin(this.firstSkipped).range : lineRange(0, 0), ...(this.logFile ? { file: this.logFile } : {}) });
    }
    if (this.missingPayloads) this.problems.push({ severity: 'warning', message: `${this.missingPayloads} payload${this.missingPayloads > 1 ? 's' : ''} of the bundle could not be read (missing or not JSON): what they hold is not shown`, range: lineRange(0, 0), ...(this.logFile ? { file: this.logFile } : {}) });
    const metadata: Json = {
      source_format: 'codex-trace-bundle',
      turns: this.turns,
      threads: [...this.threads.entries()].filter(([id]) => id !== '').map(([id, th]) => ({ thread_id: id, lane: th.lane, agent_path: th.path ?? null })),
      time_base: this.base === undefined ? null : new Date(this.base).toISOString(),
    };
    if (this.manifest) for (const k of ['trace_id', 'rollout_id', 'root_thread_id']) if (this.manifest[k] !== undefined) metadata[k] = this.manifest[k];
    if (this.status) metadata.rollout_status = this.status;
    if (this.models.size) metadata.models = [...this.models];
    const header: Omit<LoadedTrace['trace'], 'events' | 'edges'> = { system: 'codex', metadata };
    const traceId = str(this.manifest?.rollout_id) ?? str(this.manifest?.trace_id);
    if (traceId) header.trace_id = traceId;
    return this.out.finish('codex-trace-bundle', header);
  }
}

/** The text of a Responses API `content` (a string, or parts with `text`). */
function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => (isObject(c) && typeof c.text === 'string' ? c.text : ''))
    .filter((x) => x !== '')
    .join('\n');
}

/**
 * Reads a Codex rollout-trace bundle from its `trace.jsonl` or its `manifest.json`.
 * @param text the opened file's content; @param fileName its path; @param files reads the bundle's
 * other files (the manifest, the event log, the payloads).
 * @returns the trace (format `codex-trace-bundle`, one lane per thread), every event's origin on its
 * raw event's line of `trace.jsonl`, positioned problems. Never throws.
 */
export function readCodexTraceBundle(text: string, fileName = '', files?: FileAccess): LoadedTrace {
  const dir = dirName(fileName);
  const at = (name: string) => joinPath(fileName || name, ...(dir ? [dir] : []), name);
  let manifest: Json | undefined;
  let logText = text;
  let logFile: string | undefined;
  const head = text.trimStart();
  if (head.startsWith('{') && !firstJsonLines(text, 1).some(isRawTraceEvent)) {
    try {
      const v = JSON.parse(head) as unknown;
      if (isBundleManifest(v)) manifest = v;
    } catch {
      // not the manifest
    }
  }
  if (manifest) {
    logFile = at(str(manifest.raw_event_log) ?? 'trace.jsonl');
    const log = files?.readText(logFile);
    if (log === undefined) {
      const reader = new BundleReader(manifest, dir, files, undefined);
      reader.problems.push({ severity: 'error', message: `the bundle's raw event log ${baseName(logFile)} could not be read`, range: lineRange(0, 0) });
      return reader.finish();
    }
    logText = log;
  } else {
    const m = files?.readText(at('manifest.json'));
    try {
      const v = m === undefined ? undefined : (JSON.parse(m) as unknown);
      if (isBundleManifest(v)) manifest = v;
    } catch {
      // a bundle without a readable manifest still reads
    }
  }
  const records = readJsonlRecords(logText, logFile);
  const reader = new BundleReader(manifest, dir, files, logFile);
  reader.problems.push(...records.problems);
  for (const r of records.records) reader.read(r);
  return reader.finish();
}

/** The Codex rollout-trace bundle format. */
export const codexTraceBundleFormat: TraceFormat = {
  id: 'codex-trace-bundle',
  label: 'Codex rollout-trace bundle',
  detect: (text) => isCodexTraceBundleText(text),
  read: (text, fileName, files) => readCodexTraceBundle(text, fileName, files),
};

registerFormat(codexTraceBundleFormat, true);
