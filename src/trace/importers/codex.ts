/**
 * Importer of OpenAI Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`).
 *
 * The record format (codex-rs `RolloutItem`, as written by Codex CLI / Desktop 0.4x-0.10x; described
 * in the corpus' SOURCE.md): every line is `{timestamp, type, payload}` with `type` one of
 * `session_meta` (the first line), `turn_context`, `response_item` (model I/O: `message`,
 * `reasoning`, `function_call` / `function_call_output`, `custom_tool_call` /
 * `custom_tool_call_output`, `local_shell_call`, `web_search_call`, `compaction`, ...),
 * `event_msg` (`task_started`, `user_message`, `agent_message`, `token_count`, `task_complete`,
 * `turn_aborted`, `context_compacted`, `error`, ...) and `compacted` (the summary that replaces the
 * history).
 *
 * Mapping to the trace (one lane, `codex`):
 * - turns: `task_started` opens a turn (`turn_id` on every event of it, `metadata.turns` lists them);
 *   `task_complete` -> `stop` (task_complete, content = last agent message); `turn_aborted` ->
 *   `stop` (interrupted / replaced -> user_abort); an `error` event -> `stop` (error, or
 *   budget_exhausted for context window / usage limits); a turn that started and has none of these
 *   ends with no stop recorded;
 * - prompts: `event_msg/user_message` -> `message` from `user` (the `response_item` user and
 *   developer messages are injected context and repeat the prompt; they are used only when the file
 *   has no user_message events); assistant `response_item/message` -> `message` (`phase` kept);
 *   `agent_message` / `agent_reasoning` events repeat response items and give no event;
 * - tool calls: every `*_call` response item -> `tool_call` (id = `call_id`), every `*_call_output`
 *   -> `tool_result` (id `<call_id>:result`, `causes` = the call) with a `tool_dependency` edge,
 *   paired by `call_id` however many calls run in parallel; a `web_search_call` has no result;
 * - causes: a model output (message or call) is caused by the prompt and results received since the
 *   previous output;
 * - tokens: `token_count` whose cumulative `total_token_usage.total_tokens` grew puts
 *   `last_token_usage.total_tokens` (input incl. cached + output) on the last model output since the
 *   previous count; `trace.costs` takes the last cumulative usage;
 * - compaction: `compacted` -> `message` from `compaction` (the summary) and `context_compacted` /
 *   a `compaction` response item -> `orchestrator_decision`, all with `compaction: true`.
 * - multi-agent rollouts: a `spawn_agent` call is a `spawn` (id = call_id) to the worker's lane
 *   (`<role>:<nickname>`, from `collab_agent_spawn_end` or the call's output `{agent_id, nickname}`);
 *   the child rollouts beside the parent (`rollout-*-<thread id>.jsonl` in the same folder, their
 *   `session_meta.source.subagent.thread_spawn.parent_thread_id` naming the parent) are read into
 *   those lanes (ids prefixed `<nickname>/`), their last assistant message becoming a `return` to
 *   the parent; a `wait_agent` call's output is an `aggregate` (the join) caused by the workers'
 *   returns. A child rollout opened alone gets an info problem naming its parent thread.
 * - records that give no event are counted by kind in one warning.
 * Time `t`: seconds since the first record's timestamp (a record stamped earlier reads 0, never
 * negative); child rollouts share the parent's time base.
 */
import { firstJsonLines, registerFormat, type FileAccess, type GrowingImport, type TraceFormat } from '../formats';
import { GrowingRecords, type GrowingFiles, type JsonlParts } from '../jsonl-feed';
import type { LoadedTrace, Origin, Problem } from '../model';
import type { StopReason, TraceEvent } from '../schema';
import { baseName, setContent, dirName, isObject, joinPath, lineRange, num, parseTimestamp, readJsonlRecords, recordOrigin, secondsSince, str, TraceAssembler, type JsonlRecord } from './jsonl-records';

/** The lane of the Codex agent. */
export const CODEX_LANE = 'codex';

/** Top-level record types of a rollout. */
const RECORD_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);

type Json = Record<string, unknown>;

/** An event before its time and lane are set. */
type Draft = Partial<TraceEvent> & Pick<TraceEvent, 'id' | 'type'>;

/** One turn (`task_started` ... `task_complete`), for `metadata.turns`. */
interface Turn {
  turn_id: string;
  start_t: number;
  end_t?: number;
  stop: StopReason | null;
  /** 0-based line of the `task_started` record. */
  line: number;
}

/**
 * The output Codex gives a call whose approval the user declined ("exec command rejected by user",
 * "patch rejected by user", "unified exec command rejected by user"): at the start of the output.
 */
const DENIED_OUTPUT = /^[\w -]{0,40}\brejected by (?:the )?user\b/i;

const BUDGET_ERROR = /context window|context length|usage limit|rate limit|quota|too many tokens|exceeded/i;

/** The stop reason of a `turn_aborted` event's `reason` (interrupted / replaced: user_abort; else unknown). */
export function abortReason(reason: unknown): StopReason {
  return reason === 'interrupted' || reason === 'replaced' ? 'user_abort' : 'unknown';
}

/** The text of a Responses API `content` list (input_text / output_text parts joined). */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const p of content) {
    if (isObject(p) && typeof p.text === 'string') out.push(p.text);
    else if (isObject(p) && (p.type === 'input_image' || p.type === 'output_image')) out.push('[image]');
  }
  return out.join('\n');
}

/** A tool output: a string, or `{content, success}` (older rollouts). */
function outputText(output: unknown): { text: string; failed: boolean } {
  if (typeof output === 'string') return { text: output, failed: false };
  if (isObject(output)) {
    const text = typeof output.content === 'string' ? output.content : partsText(output.content_items ?? output.content);
    return { text, failed: output.success === false };
  }
  return { text: output === undefined ? '' : JSON.stringify(output), failed: false };
}

/**
 * Reads a Codex rollout file.
 * @param text the file's content.
 * @returns the trace (format `codex`, one lane `codex`), the origin of every event (the line of its
 * record) and positioned problems (bad or cut-off lines, outputs of unknown calls). Never throws.
 */
export function readCodex(text: string, fileName = '', files?: FileAccess): LoadedTrace {
  const parse = (t: string, path?: string): JsonlParts => ({ ...readJsonlRecords(t, path), marked: USER_MESSAGE.test(t) });
  return readCodexRecords(parse(text), fileName, files, (path) => {
    const child = files?.readText(path);
    return child === undefined ? undefined : parse(child, path);
  });
}

/**
 * The prompts are the user_message events; only a file without them (as JSON structure, not inside
 * a string, where the quotes would be escaped) has its prompts in the response items alone.
 */
const USER_MESSAGE = /"type"\s*:\s*"user_message"/;

/**
 * {@link readCodex} over the records of the rollout (`marked`: its text has a user_message event,
 * {@link USER_MESSAGE}); `recordsOf` gives those of a child rollout (its path put on its problems).
 */
function readCodexRecords(records: JsonlParts, fileName: string, files: FileAccess | undefined, recordsOf: (path: string) => JsonlParts | undefined): LoadedTrace {
  const problems: Problem[] = [];
  const out = new TraceAssembler(problems);
  problems.push(...records.problems);
  const first = records.records.find((r) => r.value.type === 'session_meta');
  const meta = first && isObject(first.value.payload) ? first.value.payload : undefined;
  const spawnedBy = parentThreadOf(meta);
  const ownLane = spawnedBy ? childLane(spawnedBy.role, spawnedBy.nickname) : CODEX_LANE;
  const skipped: Record<string, number> = {};
  const main = readRollout(records.records, !!records.marked, { out, problems, lane: ownLane, idPrefix: '', skipped });
  const children: string[] = [];
  for (const spawn of main.spawns.values()) {
    if (!spawn.thread || !files) continue;
    const dir = dirName(fileName);
    const name = files.list(dir === '' ? '.' : dir)?.find((n) => n.startsWith('rollout-') && n.endsWith(`-${spawn.thread}.jsonl`));
    if (!name) continue;
    const path = joinPath(fileName, ...(dir ? [dir] : []), name);
    const child = recordsOf(path);
    if (child === undefined) continue;
    problems.push(...child.problems);
    const lane = childLane(spawn.role, spawn.nickname ?? spawn.thread);
    const read = readRollout(child.records, !!child.marked, { out, problems, lane, idPrefix: `${spawn.nickname ?? spawn.thread}/`, file: path, base: main.base, skipped, callerLane: ownLane });
    children.push(path);
    spawn.lane = lane;
    // spawn -> the child's first event; the child's final answer returns to the parent.
    out.edge(spawn.eventId, read.firstEventId, 'spawn');
    if (read.finalId) {
      const fin = out.get(read.finalId);
      if (fin) {
        fin.type = 'return';
        fin.to = ownLane;
      }
      spawn.returnId = read.finalId;
    }
  }
  // Joins: each wait_agent output is an aggregate of the returns of the workers it waited for.
  for (const w of main.waits) {
    const agg = out.get(w.resultId);
    if (!agg) continue;
    agg.type = 'aggregate';
    for (const spawn of main.spawns.values()) {
      if (!spawn.returnId || (w.targets.length && !w.targets.includes(spawn.thread ?? '') && !w.targets.includes(spawn.nickname ?? ''))) continue;
      agg.causes = [...(agg.causes ?? []), spawn.returnId];
      out.edge(spawn.returnId, w.resultId, 'return');
    }
  }
  for (const spawn of main.spawns.values()) {
    const e = out.get(spawn.eventId);
    if (e && spawn.lane) e.to = spawn.lane;
  }
  if (spawnedBy) {
    problems.push({ severity: 'info', message: `this rollout is the sub-agent ${spawnedBy.nickname ?? ''}${spawnedBy.role ? ` (${spawnedBy.role})` : ''} of thread ${spawnedBy.parent}; open the parent rollout to see it in its run`, range: first ? recordOrigin(first).range : lineRange(0, 0) });
  }
  const kinds = Object.entries(skipped);
  if (kinds.length) {
    const total = kinds.reduce((n, [, c]) => n + c, 0);
    problems.push({ severity: 'warning', message: `${total} record${total > 1 ? 's' : ''} of ${kinds.length} kind${kinds.length > 1 ? 's' : ''} not shown: ${kinds.sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${c}`).join(', ')}`, range: main.firstSkipped ?? lineRange(0, 0) });
  }
  const header = main.header;
  (header.metadata as Json).child_rollouts = children;
  if (spawnedBy) (header.metadata as Json).parent_thread_id = spawnedBy.parent;
  return out.finish('codex', header);
}

/** What a parent rollout records of one `spawn_agent` call. */
interface Spawn {
  eventId: string;
  thread?: string;
  nickname?: string;
  role?: string;
  lane?: string;
  returnId?: string;
}

/** The lane of a worker: `<role>:<nickname>` (`agent:<nickname>` without a role). */
function childLane(role: string | undefined, nickname: string): string {
  return `${role ?? 'agent'}:${nickname}`;
}

/** The parent of a child rollout, from `session_meta.source.subagent.thread_spawn`, or undefined. */
function parentThreadOf(meta: Json | undefined): { parent: string; nickname: string; role?: string } | undefined {
  const source = meta && isObject(meta.source) ? meta.source : undefined;
  const sub = source && isObject(source.subagent) ? source.subagent : undefined;
  const spawn = sub && isObject(sub.thread_spawn) ? sub.thread_spawn : undefined;
  const parent = str(spawn?.parent_thread_id) ?? (meta?.thread_source === 'subagent' ? str(meta.forked_from_id) : undefined);
  if (!parent) return undefined;
  return { parent, nickname: str(spawn?.agent_nickname) ?? str(meta?.id) ?? 'worker', role: str(spawn?.agent_role) };
}

/** Where one rollout is read into. */
interface RolloutContext {
  out: TraceAssembler;
  problems: Problem[];
  lane: string;
  /** Prefix of event ids (children: `<nickname>/`). */
  idPrefix: string;
  /** The file, when it is not the opened one. */
  file?: string;
  /** Time base (epoch ms) shared with the parent; else the rollout's first timestamp. */
  base?: number;
  skipped: Record<string, number>;
  /** The lane that spawned this one (the sender of its first prompt). */
  callerLane?: string;
}

/** What reading a rollout found, for linking it with its parent or children. */
interface RolloutRead {
  header: Omit<LoadedTrace['trace'], 'events' | 'edges'>;
  base?: number;
  spawns: Map<string, Spawn>;
  waits: { resultId: string; targets: string[] }[];
  firstEventId?: string;
  /** The last assistant message (the final answer). */
  finalId?: string;
  firstSkipped?: import('../model').Range;
}

/**
 * Reads the records of one rollout into `ctx.out`. Never throws.
 * @param userMessages true when the rollout's text has user_message events ({@link USER_MESSAGE}).
 */
function readRollout(records: JsonlRecord[], userMessages: boolean, ctx: RolloutContext): RolloutRead {
  const { out, problems } = ctx;
  // The time base is the first record's timestamp (earlier ones, if any, read as 0).
  let base: number | undefined = ctx.base;
  const useResponseUserMessages = !userMessages;

  const lane = ctx.lane;
  const skipped = ctx.skipped;
  let firstSkipped: import('../model').Range | undefined;
  const skip = (k: string) => {
    skipped[k] = (skipped[k] ?? 0) + 1;
    firstSkipped ??= origin.range;
  };
  // Calls whose approval the user declined (an `*_end` event or item with status declined/rejected), read ahead.
  const declined = new Set<string>();
  // Spawns of workers (call_id -> thread, nickname, role), read ahead of the calls.
  const spawns = new Map<string, Spawn>();
  const waits: { resultId: string; targets: string[] }[] = [];
  const waitTargets = new Map<string, string[]>();
  for (const r of records) {
    const p = isObject(r.value.payload) ? r.value.payload : undefined;
    if (!p) continue;
    const item = isObject(p.item) ? p.item : p;
    const callOf = str(p.call_id) ?? str(item.call_id);
    if (callOf && (item.status === 'declined' || item.status === 'rejected' || item.status === 'denied')) declined.add(callOf);
    if (p.type === 'collab_agent_spawn_end' && typeof p.call_id === 'string') {
      spawns.set(p.call_id, { eventId: '', thread: str(p.new_thread_id), nickname: str(p.new_agent_nickname), role: str(p.new_agent_role) });
    } else if (p.type === 'function_call_output' && typeof p.call_id === 'string' && !spawns.has(p.call_id)) {
      const o = typeof p.output === 'string' && p.output.trim().startsWith('{') ? safeJson(p.output) : undefined;
      if (isObject(o) && typeof o.agent_id === 'string') spawns.set(p.call_id, { eventId: '', thread: o.agent_id, nickname: str(o.nickname) });
    }
  }
  // Prompts as the user_message events give them: a user-role response item repeating one (or
  // written just before one) is that prompt; any other user-role item is injected context (meta).
  const prompts = new Set<string>();
  const repeatsPrompt = new Set<JsonlRecord>();
  records.forEach((r, k) => {
    const p = isObject(r.value.payload) ? r.value.payload : undefined;
    if (p?.type === 'user_message' && typeof p.message === 'string') prompts.add(p.message.trim());
    const next = isObject(records[k + 1]?.value.payload) ? (records[k + 1].value.payload as Json) : undefined;
    if (p?.type === 'message' && p.role === 'user' && next?.type === 'user_message') repeatsPrompt.add(r);
  });
  // The last compaction event while nothing else followed it: its marker and its summary are one event.
  let compaction: { id: string; summary: boolean; marker: boolean } | undefined;
  let firstEventId: string | undefined;
  let finalId: string | undefined;
  const calls = new Map<string, { id: string; tool: string }>();
  const turns: Turn[] = [];
  const models = new Set<string>();
  let turn: Turn | undefined;
  let inputs: string[] = [];
  let lastOutputId: string | undefined;
  let lastCountedOutputId: string | undefined;
  let lastTotal = -1;
  let totalUsage: Json | undefined;
  let unattributedTokens = 0;
  let toolCalls = 0;
  let reasoning = 0;
  let compactions = 0;
  let compactionMarkers = 0;
  let metaRows = 0;
  let deniedCalls = 0;
  let interruptions = 0;
  let firstKind: import('../model').Range | undefined;
  let session: Json | undefined;
  let lastMs: number | undefined;
  let lastT = 0;
  // The record being read: its time and origin.
  let t = 0;
  let origin: Origin = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, record: 0 };

  /** Adds an event of the current record to the lane (in the open turn). */
  const add = (draft: Draft): string => {
    const e = draft as TraceEvent & Json;
    e.id = ctx.idPrefix + e.id;
    if (Array.isArray(e.causes)) e.causes = e.causes.map((c) => (c.startsWith(ctx.idPrefix) ? c : ctx.idPrefix + c));
    e.t = t;
    e.agent = lane;
    if (turn) e.turn_id = turn.turn_id;
    compaction = undefined;
    const id = out.add(e, origin);
    firstEventId ??= id;
    return id;
  };
  /** A model output: caused by what came in since the previous one. */
  const output = (event: Draft): string => {
    if (inputs.length) event.causes = event.causes ? [...event.causes, ...inputs] : inputs;
    inputs = [];
    const id = add(event);
    lastOutputId = id;
    return id;
  };

  /** Reads one record into the trace (records come in line order). */
  const readRecord = (r: JsonlRecord): void => {
    const v = r.value;
    const own = parseTimestamp(v.timestamp);
    if (base === undefined && own !== undefined) base = own;
    const ms = own ?? lastMs ?? base;
    lastMs = ms;
    t = base === undefined || ms === undefined ? 0 : secondsSince(base, ms);
    lastT = t;
    origin = recordOrigin(r, ctx.file);
    const type = str(v.type) ?? '(none)';
    const p = isObject(v.payload) ? v.payload : undefined;
    const ptype = str(p?.type) ?? '';

    if (type === 'session_meta') {
      session ??= p;
      return;
    }
    if (type === 'turn_context') {
      if (typeof p?.model === 'string') models.add(p.model);
      return;
    }
    if (type === 'compacted') {
      const history = p?.replacement_history;
      compactions++;
      // The summary that replaces the history: inside the compaction event (docs/model.md).
      if (compaction && !compaction.summary) {
        const e = out.get(compaction.id) as (TraceEvent & Json) | undefined;
        if (e) {
          setContent(e, str(p?.message));
          e.content_is_summary = true;
          e.summary_record = r.line;
          if (Array.isArray(history)) e.replacement_items = history.length;
          compaction.summary = true;
          return;
        }
      }
      const ev: Draft & Json = { id: `compacted:L${r.line}`, type: 'orchestrator_decision', kind: 'compaction', compaction: true, content_is_summary: true };
      setContent(ev, str(p?.message));
      if (Array.isArray(history)) ev.replacement_items = history.length;
      const id = add(ev);
      inputs.push(id);
      compaction = { id, summary: true, marker: false };
      return;
    }
    if (type === 'response_item' && p) {
      const callId = str(p.call_id) ?? str(p.id);
      if (ptype === 'message') {
        const role = str(p.role);
        const text = partsText(p.content);
        if (role === 'assistant') {
          const ev: Draft & Json = { id: `msg:L${r.line}`, type: 'message', from: lane };
          setContent(ev, text);
          if (typeof p.phase === 'string') ev.phase = p.phase;
          finalId = output(ev);
        } else if (role === 'user' && useResponseUserMessages && text.trim() !== '') {
          const ev: Draft = { id: `user:L${r.line}`, type: 'message', from: 'user', to: lane };
          setContent(ev, text);
          inputs.push(add(ev));
        } else if (role === 'user' && !useResponseUserMessages && (repeatsPrompt.has(r) || prompts.has(text.trim()))) {
          // repeats a user_message event, which is shown
        } else if (role === 'developer' || role === 'system' || role === 'user') {
          // Injected context (developer instructions, AGENTS.md, environment context): a meta row, not a message of the conversation.
          const ev: Draft & Json = { id: `meta:L${r.line}`, type: 'message', kind: 'meta', from: 'harness', to: lane, role };
          setContent(ev, text);
          add(ev);
          metaRows++;
          firstKind ??= origin.range;
        } else skip(`response_item/message/${role ?? '?'}`);
      } else if (ptype === 'reasoning') {
        reasoning++;
      } else if (ptype === 'compaction' || ptype === 'compaction_summary') {
        const ev = { id: `compaction:L${r.line}`, type: 'orchestrator_decision', kind: 'compaction', compaction: true, content: 'context compacted (encrypted summary)' } as Draft;
        const id = add(ev);
        inputs.push(id);
        compaction = { id, summary: true, marker: false };
        compactions++;
      } else if (ptype.endsWith('_call_output')) {
        const id = callId ?? `L${r.line}`;
        const call = calls.get(id);
        const { text: body, failed } = outputText(p.output);
        const ev: Draft & Json = { id: `${id}:result`, type: 'tool_result', tool: call?.tool ?? 'unknown' };
        setContent(ev, body);
        if (failed) ev.is_error = true;
        if (call && (declined.has(id) || DENIED_OUTPUT.test(body.trimStart()))) {
          // The user refused the call (an approval declined): the user's decision, not a failure of the agent.
          ev.denied = true;
          const e = out.get(call.id);
          if (e) e.call_status = 'denied';
          deniedCalls++;
          firstKind ??= origin.range;
        }
        if (call) ev.causes = [call.id];
        else problems.push({ severity: 'warning', message: `${ptype} for call_id "${id}", which no call of this rollout started`, range: origin.range });
        const rid = add(ev);
        if (call) out.edge(call.id, rid, 'tool_dependency');
        inputs.push(rid);
        if (waitTargets.has(id)) waits.push({ resultId: rid, targets: waitTargets.get(id)! });
      } else if (ptype.endsWith('_call')) {
        const tool = str(p.name) ?? (ptype === 'local_shell_call' ? 'local_shell' : ptype.slice(0, -'_call'.length));
        const id = callId ?? `${ptype}:L${r.line}`;
        const args = p.arguments ?? p.input ?? p.action;
        const spawn = callId && tool === 'spawn_agent' ? spawns.get(callId) ?? { eventId: '' } : undefined;
        const ev: Draft & Json = spawn ? { id, type: 'spawn', tool, to: childLane(spawn.role, spawn.nickname ?? spawn.thread ?? id) } : { id, type: 'tool_call', tool };
        const parsedArgs = typeof args === 'string' ? safeJson(args) : args;
        if (spawn && isObject(parsedArgs) && typeof parsedArgs.message === 'string') {
          setContent(ev, parsedArgs.message);
          if (typeof parsedArgs.agent_type === 'string') {
            spawn.role ??= parsedArgs.agent_type;
            ev.to = childLane(spawn.role, spawn.nickname ?? spawn.thread ?? id);
            ev.role = parsedArgs.agent_type;
          }
        } else setContent(ev, typeof args === 'string' ? args : args === undefined ? undefined : JSON.stringify(args));
        if (typeof p.status === 'string') ev.status = p.status;
        const cid = output(ev);
        if (callId) calls.set(callId, { id: cid, tool });
        if (spawn && callId) {
          spawn.eventId = cid;
          spawns.set(callId, spawn);
        }
        if (callId && tool === 'wait_agent' && isObject(parsedArgs) && Array.isArray(parsedArgs.targets)) waitTargets.set(callId, parsedArgs.targets.filter((x): x is string => typeof x === 'string'));
        if (callId && tool === 'wait_agent' && !waitTargets.has(callId)) waitTargets.set(callId, []);
        toolCalls++;
      } else skip(`response_item/${ptype || '?'}`);
      return;
    }
    if (type === 'event_msg' && p) {
      switch (ptype) {
        case 'task_started':
        case 'turn_started': {
          if (turn) turn.end_t ??= t;
          turn = { turn_id: str(p.turn_id) ?? `turn@L${r.line}`, start_t: t, stop: null, line: r.line };
          turns.push(turn);
          break;
        }
        case 'user_message': {
          const ev: Draft = { id: `user:L${r.line}`, type: 'message', from: ctx.callerLane && firstEventId === undefined ? ctx.callerLane : 'user', to: lane };
          setContent(ev, str(p.message));
          inputs.push(add(ev));
          break;
        }
        case 'task_complete':
        case 'turn_complete': {
          if (turn && turn.stop !== null) break;
          const ev: Draft = { id: `stop:${str(p.turn_id) ?? turn?.turn_id ?? `L${r.line}`}`, type: 'stop', reason: 'task_complete', decided_by: lane, detail: ptype };
          setContent(ev, str(p.last_agent_message));
          add(ev);
          if (turn) {
            turn.stop = 'task_complete';
            turn.end_t = t;
          }
          break;
        }
        case 'turn_aborted': {
          if (turn && turn.stop !== null) break;
          const reason = abortReason(p.reason);
          const aborted: Draft = { id: `stop:${str(p.turn_id) ?? turn?.turn_id ?? `L${r.line}`}`, type: 'stop', reason, decided_by: reason === 'user_abort' ? 'user' : lane, detail: `turn aborted: ${String(p.reason)}` };
          if (p.reason === 'interrupted') {
            aborted.kind = 'interruption'; // the user stopped it (Esc), as Claude Code's marker
            interruptions++;
            firstKind ??= origin.range;
          }
          add(aborted);
          if (turn) {
            turn.stop = reason;
            turn.end_t = t;
          }
          break;
        }
        case 'error': {
          if (turn && turn.stop !== null) break;
          const message = str(p.message) ?? '';
          const reason: StopReason = BUDGET_ERROR.test(message) ? 'budget_exhausted' : 'error';
          const ev: Draft = { id: `stop:${turn?.turn_id ?? 'error'}:L${r.line}`, type: 'stop', reason, decided_by: 'codex', detail: 'error event' };
          setContent(ev, message);
          add(ev);
          if (turn) {
            turn.stop = reason;
            turn.end_t = t;
          }
          break;
        }
        case 'context_compacted': {
          compactionMarkers++;
          if (compaction && !compaction.marker) {
            compaction.marker = true;
            break;
          }
          const id = add({ id: `compaction:L${r.line}`, type: 'orchestrator_decision', kind: 'compaction', compaction: true, content: 'context compacted' } as Draft);
          inputs.push(id);
          compaction = { id, summary: false, marker: true };
          break;
        }
        case 'token_count': {
          const info = isObject(p.info) ? p.info : undefined;
          const total = isObject(info?.total_token_usage) ? info.total_token_usage : undefined;
          const last = isObject(info?.last_token_usage) ? info.last_token_usage : undefined;
          const totalTokens = num(total?.total_tokens);
          if (totalTokens === undefined || totalTokens <= lastTotal) break;
          lastTotal = totalTokens;
          totalUsage = total;
          const spent = num(last?.total_tokens) ?? 0;
          const target = lastOutputId !== lastCountedOutputId ? lastOutputId : undefined;
          const e = target ? out.get(target) : undefined;
          if (e && spent > 0) {
            e.tokens = (e.tokens ?? 0) + spent;
            lastCountedOutputId = target;
          } else unattributedTokens += spent;
          break;
        }
        case 'agent_message':
        case 'agent_reasoning':
          break; // repeat response items (assistant messages, reasoning), which are read
        case 'collab_agent_spawn_end':
        case 'collab_waiting_begin':
        case 'collab_waiting_end':
          break; // read ahead: they name the workers a spawn or wait concerns
        default:
          skip(`event_msg/${ptype || '?'}`);
      }
      return;
    }
    skip(RECORD_TYPES.has(type) ? `${type}/no-payload` : `unknown/${type}`);
  };
  for (const r of records) readRecord(r);

  if (turn) turn.end_t ??= lastT;
  const kinds = [
    [metaRows, 'meta row (injected context: developer instructions, AGENTS.md, environment)', 'meta rows (injected context: developer instructions, AGENTS.md, environment)'],
    [deniedCalls, 'call refused by the user', 'calls refused by the user'],
    [interruptions, 'user interruption', 'user interruptions'],
  ] as const;
  const said = kinds.filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n > 1 ? many : one}`);
  if (said.length && firstKind) problems.push({ severity: 'info', message: `read as their own kinds: ${said.join(', ')}`, range: firstKind, ...(ctx.file ? { file: ctx.file } : {}) });

  const costs: Record<string, number> = { tool_calls: toolCalls };
  if (totalUsage) {
    for (const k of ['total_tokens', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens']) {
      const n = num(totalUsage[k]);
      if (n !== undefined) costs[k === 'total_tokens' ? 'tokens' : k] = n;
    }
  }
  costs.unattributed_tokens = unattributedTokens;
  let end = 0;
  for (const e of out.events) end = Math.max(end, e.t);
  costs.wall_clock_s = end;
  const metadata: Json = {
    source_format: 'codex',
    turns,
    turns_without_stop: turns.filter((x) => x.stop === null).length,
    compactions: compactions || compactionMarkers,
    reasoning_items: reasoning,
    skipped_records: skipped,
    time_base: base === undefined ? null : new Date(base).toISOString(),
  };
  if (models.size) metadata.models = [...models];
  if (session) {
    for (const k of ['id', 'cwd', 'originator', 'cli_version', 'source', 'model_provider', 'git']) if (session[k] !== undefined) metadata[k === 'id' ? 'session_id' : k] = session[k];
  }
  const header: Omit<LoadedTrace['trace'], 'events' | 'edges'> = { system: 'codex', costs, metadata };
  if (typeof session?.id === 'string') header.trace_id = session.id;
  void problems;
  return { header, base, spawns, waits, firstEventId, finalId, firstSkipped };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** True when the text is a Codex rollout: a `session_meta` record among its first lines (by content). */
export function isCodexText(text: string, fileName = ''): boolean {
  const lines = firstJsonLines(text, 5);
  if (lines.some((l) => isObject(l) && l.type === 'session_meta' && isObject(l.payload))) return true;
  // A rollout whose first line is damaged: the name and the record shape together.
  return /^rollout-.*\.jsonl$/.test(baseName(fileName)) && lines.some((l) => isObject(l) && typeof l.type === 'string' && RECORD_TYPES.has(l.type) && isObject(l.payload) && typeof l.timestamp === 'string');
}

/** The Codex rollout format. */
/**
 * A Codex rollout read as it grows (and the child rollouts it spawned): each file's lines are
 * parsed once, as they are appended (src/trace/jsonl-feed.ts); each update runs the import over
 * the records kept, which gives what {@link readCodex} gives on the files now.
 */
export class GrowingCodex implements GrowingImport {
  private readonly records: GrowingRecords;

  /** @param fileName the rollout; @param files where it and its children are read as they grow. */
  constructor(
    private readonly fileName: string,
    private readonly files: GrowingFiles,
  ) {
    this.records = new GrowingRecords(files, USER_MESSAGE);
  }

  update(): LoadedTrace | undefined {
    const main = this.records.records(this.fileName);
    if (!main) return undefined;
    return readCodexRecords(main, this.fileName, this.files, (path) => this.records.records(path, path));
  }
}

export const codexFormat: TraceFormat = {
  id: 'codex',
  label: 'Codex rollout JSONL',
  detect: (text, fileName) => isCodexText(text, fileName),
  read: (text, fileName, files) => readCodex(text, fileName, files),
  grow: (fileName, files) => new GrowingCodex(fileName, files),
};

registerFormat(codexFormat, true);
