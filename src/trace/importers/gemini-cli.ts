/**
 * Importer of Gemini CLI saved chats: the session files its chat recording service writes
 * (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`, before April 2026 `session-*.json`;
 * a sub-agent's in `chats/<parent session id>/<session id>.jsonl`) and the `/chat save` checkpoints
 * (`checkpoint-<tag>.json`, read by ./gemini-checkpoint.ts).
 *
 * The format is the writer's code, google-gemini/gemini-cli
 * `packages/core/src/services/chatRecordingService.ts` and `chatRecordingTypes.ts` (read at commit
 * 5411f113cafae26161b4969b0237b8e1e024e2c2; the JSON layout at f744913584^): a `ConversationRecord`
 * `{sessionId, projectHash, startTime, lastUpdated, messages[], summary?, directories?, kind?}`.
 * - `.json` (legacy): the whole record, one JSON document (`JSON.stringify(record, null, 2)`).
 * - `.jsonl`: a first line of the record's fields without `messages`, then one line per written
 *   message (a message written again, with its tokens or tool calls, repeats its `id`: the last line
 *   wins, at the place of the first), `{"$set": {...}}` field updates (`$set.messages` replaces every
 *   message: a checkpoint after compression), `{"$rewindTo": id}` (drops that message and those after).
 *   The trace is the conversation as the writer's own loader rebuilds it (`loadConversationRecord`).
 * A message is `{id, timestamp, type: user|gemini|info|error|warning, content: PartListUnion}`; a
 * `gemini` message adds `toolCalls[{id, name, args, result: Part[], status, timestamp, agentId?}]`,
 * `thoughts[{subject, description, timestamp}]`, `tokens {input, output, cached, thoughts, tool,
 * total}` (the Gemini API's usageMetadata: promptTokenCount, candidatesTokenCount,
 * cachedContentTokenCount, thoughtsTokenCount, toolUsePromptTokenCount, totalTokenCount) and `model`.
 *
 * Mapping (the lane `gemini`, and one per sub-agent):
 * - `user` -> `message` from `user` (context the CLI injects, `<session_context>` / `<hook_context>`:
 *   `message` of kind `meta` from `harness`); `gemini` -> `message` from `gemini` (`thoughts`: the thought
 *   summaries, `model`, `usage`: input = prompt less cached, cache_read = cached, output =
 *   candidates + thoughts, reasoning = thoughts, as the API counts thoughts apart from candidates;
 *   `tokens` = output; `tool_use_prompt_tokens` when recorded);
 * - each tool call -> `tool_call` (id = its id, caused by its message; `agent_id` when it ran a
 *   sub-agent) and, for a finished one, `tool_result` (`<id>:result`, the function response's text;
 *   `error` for status error, `error` and `cancelled` for status cancelled) joined by a
 *   `tool_dependency` edge; an unfinished status (scheduled, executing, awaiting_approval, ...) gives
 *   `call_status: "no_result"`;
 * - `info` / `warning` / `error` -> `message` of kind `meta` from `harness` (`error` set for an error);
 * - a turn ends (a `stop` with `scope: "turn"`, never a verdict on the run) where the model hands
 *   back to the user: before each user message after the first and at the end of the file, when
 *   the turn's last message is a `gemini` answer with no tool calls (reason task_complete) or an
 *   `error` (reason error; budget_exhausted for quota / rate limits) or the `info` "Request
 *   cancelled." (reason user_abort, decided by the user: Esc);
 * - the record's fields -> `metadata.gemini_cli`.
 * - sub-agents: with file access, each call's `agentId` file (`chats/<session id>/<agentId>.jsonl`) is read
 *   into its own lane, the call its `spawn` and the sub-agent's last answer a `return` (./gemini-subagents.ts);
 *   a sub-agent file opened alone says so (info).
 * Time `t`: seconds since `startTime` (else the first timestamp). Never throws: lines or messages it
 * cannot read are positioned problems and the rest loads.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, firstJsonLines, type FileAccess, type TraceFormat } from '../formats';
import { COMPLETE_TASK, readSubAgents, type LaneRead, type SubAgentCall, type SubAgentCompletion } from './gemini-subagents';
import { isComplete, items, nodeRange, parseJsonDocument, properties, valueIn } from '../json-positions';
import type { LoadedTrace, Origin, Problem, Range } from '../model';
import type { StopReason, TraceEvent } from '../schema';
import { usageFrom } from '../tokens';
import { readGeminiCheckpoint, isGeminiCheckpointText } from './gemini-checkpoint';
import { injectedContext, partsOf, partsText, responseText } from './gemini-parts';
import { baseName, dirName, isObject, num, readJsonlRecords, recordOrigin, recordSeconds, setContent, str, TraceAssembler, type RecordClock } from './jsonl-records';

export const GEMINI_CLI_FORMAT = 'gemini-cli';

/** The agent's lane. */
export const GEMINI_LANE = 'gemini';

type Json = Record<string, unknown>;

/** Message types the recording service writes (chatRecordingTypes.ts `ConversationRecordExtra`). */
const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);
/** The info row Gemini CLI writes when the user cancels a request (Esc). */
const CANCELLED = /^\s*request cancelled\.?\s*$/i;

/** Tool call statuses that end a call (scheduler/types.ts `CoreToolCallStatus`). */
const FINISHED = new Set(['success', 'error', 'cancelled']);

/** Errors that mean a limit was reached, not a failure of the agent. */
const BUDGET_ERROR = /quota|rate.?limit|resource.?exhausted|\b429\b|context window|token limit|usage limit/i;

/** The record's own fields kept in the metadata. */
const META_KEYS = ['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'summary', 'directories', 'kind'];

/** One message as the conversation holds it, with where its last version was written. */
export interface Held {
  value: Json;
  origin: Origin;
}

/**
 * Reads a Gemini CLI session file (`.jsonl` or legacy `.json`) or `/chat save` checkpoint.
 * @param text the file's content; @param fileName its path (the trace id when the file names no session).
 * @returns the trace (format `gemini-cli`), each event's origin (the line of its record, or the range
 * of its message in a JSON document) and positioned problems. Never throws.
 */
export function readGeminiCli(text: string, fileName = '', files?: FileAccess): LoadedTrace {
  if (isGeminiCheckpointText(text)) return readGeminiCheckpoint(text, fileName);
  const session = parseGeminiSession(text);
  const out = new TraceAssembler(session.problems);
  const clock: RecordClock = { base: undefined, lastMs: undefined };
  const reader = new SessionReader(out, session.meta, clock);
  reader.readMessages(session.messages);
  if (session.meta.kind === 'subagent') {
    const parent = baseName(dirName(fileName));
    const at = session.messages[0]?.origin.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
    out.problems.push({ severity: 'info', message: `this is a sub-agent's session (kind "subagent")${parent ? ` of session ${parent}` : ''}: open the parent session file (chats/session-*.jsonl) to see it in its run`, range: at });
  }
  const open = (subText: string, lane: string, file: string): LaneRead | undefined => {
    const sub = parseGeminiSession(subText);
    for (const p of sub.problems) out.problems.push({ ...p, file });
    if (!sub.messages.length) return undefined;
    const r = new SessionReader(out, sub.meta, clock, lane, file);
    r.readMessages(sub.messages);
    return r;
  };
  reader.addToolCalls(readSubAgents(out, reader, session.meta, fileName, files, open));
  return reader.finish(fileName);
}

/** A session file's record fields and conversation, as the writer's loader rebuilds them. */
export interface GeminiSession {
  /** The record's fields (`sessionId`, `projectHash`, `startTime`, `kind`, ...). */
  meta: Json;
  /** The conversation's messages in order, each with where its last version was written. */
  messages: Held[];
  /** Positioned problems of the file. */
  problems: Problem[];
}

/**
 * Parses a Gemini CLI session file (`.jsonl` or legacy `.json`; see the file comment) into its
 * conversation. @param text the file's content. @returns {@link GeminiSession}. Never throws.
 */
export function parseGeminiSession(text: string): GeminiSession {
  const first = firstJsonLines(text, 1)[0];
  const problems: Problem[] = [];
  const meta: Json = {};
  const held = new Map<string, Held>();
  const skipped: Record<string, number> = {};
  let firstSkipped: Range | undefined;
  const skip = (what: string, range: Range) => {
    skipped[what] = (skipped[what] ?? 0) + 1;
    firstSkipped ??= range;
  };
  const take = (m: unknown, origin: Origin, where: string) => {
    if (!isObject(m) || typeof m.id !== 'string' || m.id === '') {
      problems.push({ severity: 'warning', message: `${where} is not a message {id, timestamp, type, content}; skipped`, range: origin.range });
      return;
    }
    held.set(m.id, { value: m, origin });
  };
  if (isObject(first)) {
    // JSON Lines (or a legacy record written on one line)
    const recs = readJsonlRecords(text);
    problems.push(...recs.problems);
    for (const rec of recs.records) {
      const v = rec.value;
      const origin = recordOrigin(rec);
      const at = `line ${rec.line + 1}`;
      if (typeof v.$rewindTo === 'string') {
        const ids = [...held.keys()];
        const i = ids.indexOf(v.$rewindTo);
        const gone = i === -1 ? ids : ids.slice(i);
        for (const id of gone) held.delete(id);
        problems.push({ severity: 'info', message: `rewind to message "${v.$rewindTo}": ${gone.length} message${gone.length === 1 ? '' : 's'} dropped from the conversation${i === -1 ? ' (the message is not in the file: all of them, as Gemini CLI does)' : ''}`, range: origin.range });
      } else if (isObject(v.$set)) {
        const { messages, ...fields } = v.$set;
        Object.assign(meta, fields);
        if (Array.isArray(messages)) {
          held.clear();
          messages.forEach((m, k) => take(m, origin, `${at}: $set.messages[${k}]`));
        }
      } else if (typeof v.id === 'string' || typeof v.type === 'string') {
        take(v, origin, at);
      } else if (typeof v.sessionId === 'string' || typeof v.projectHash === 'string') {
        const { messages, ...fields } = v;
        Object.assign(meta, fields);
        if (Array.isArray(messages)) messages.forEach((m, k) => take(m, origin, `${at}: messages[${k}]`));
      } else skip('record with no message, $set, $rewindTo or session fields', origin.range);
    }
  } else {
    // legacy session-*.json: one ConversationRecord, messages positioned in the document
    const doc = parseJsonDocument(text);
    problems.push(...doc.problems);
    const root = doc.root;
    const fileStart: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
    if (!root || root.type !== 'object') {
      problems.push({ severity: 'error', message: 'a Gemini CLI session must be a JSON object {sessionId, projectHash, startTime, lastUpdated, messages[]} or JSON Lines of its records', range: root ? nodeRange(doc, root) : fileStart });
    } else {
      let messagesNode: Node | undefined;
      for (const [k, node] of properties(root)) {
        if (k === 'messages') messagesNode = node;
        else if (isComplete(doc, node)) meta[k] = valueIn(doc, node);
      }
      if (messagesNode && messagesNode.type !== 'array') problems.push({ severity: 'error', message: '"messages" must be an array of messages', range: nodeRange(doc, messagesNode) });
      items(messagesNode).forEach((node, k) => {
        const range = nodeRange(doc, node);
        if (!isComplete(doc, node)) problems.push({ severity: 'error', message: `messages[${k}] is cut off; skipped`, range });
        else take(valueIn(doc, node), { range, record: k }, `messages[${k}]`);
      });
    }
  }
  const kinds = Object.entries(skipped);
  if (kinds.length && firstSkipped) problems.push({ severity: 'info', message: `not shown: ${kinds.map(([k, n]) => `${n} ${k}`).join(', ')}`, range: firstSkipped });
  return { meta, messages: [...held.values()], problems };
}

/** Turns the conversation's messages into events (see the file comment). */
/** Turns the conversation's messages into events of one lane (see the file comment). */
export class SessionReader implements LaneRead {
  private readonly clock: RecordClock;
  private readonly unknown: Record<string, number> = {};
  private firstUnknown: Range | undefined;
  /** The last conversational message of the turn so far: a gemini answer or an error, and whether it ends the turn. */
  private last: { id: string; t: number; origin: Origin; reason?: StopReason; detail?: string; text?: string } | undefined;
  private toolCalls = 0;
  private userTurns = 0;
  /** The calls of this lane that ran a sub-agent, in order. */
  readonly subAgentCalls: SubAgentCall[] = [];
  /** Id of the lane's first event, and of its last `gemini` answer (the sub-agent's final answer). */
  firstEvent: string | undefined;
  lastAnswer: string | undefined;
  /** The lane's last `complete_task` call (a sub-agent's report to its caller): its event id and args. */
  completion: SubAgentCompletion | undefined;

  /**
   * @param out where the events go; @param meta the record's fields; @param base the clock whose
   * `base` (epoch ms) times are counted from (set from `startTime` when unset); @param lane the lane's
   * name; @param file the file's path when it is not the one opened (a sub-agent's), for problems.
   */
  constructor(
    private readonly out: TraceAssembler,
    private readonly meta: Json,
    base: RecordClock,
    readonly lane = GEMINI_LANE,
    private readonly file?: string,
  ) {
    if (base.base === undefined) recordSeconds(base, meta.startTime);
    this.clock = { base: base.base, lastMs: undefined };
    recordSeconds(this.clock, meta.startTime);
    if (base.base === undefined) base.base = this.clock.base;
  }

  /** Reads the messages into events, then ends the last turn. */
  readMessages(messages: readonly Held[]): void {
    for (const m of messages) this.message(m.value, m.origin);
    this.turnEnd();
    const kinds = Object.entries(this.unknown);
    if (kinds.length && this.firstUnknown) {
      const n = kinds.reduce((a, [, c]) => a + c, 0);
      this.problem({ severity: 'warning', message: `${n} message${n > 1 ? 's' : ''} of a type Gemini CLI does not write, not shown: ${kinds.map(([k, c]) => `${k} ${c}`).join(', ')}`, range: this.firstUnknown });
    }
  }

  /** Counts tool calls read by another reader into the same trace (a sub-agent's). */
  addToolCalls(n: number): void {
    this.toolCalls += n;
  }

  /** Number of tool calls read. */
  get toolCallCount(): number {
    return this.toolCalls;
  }

  /** The trace: the assembler's events with the header of this (the opened) file. */
  finish(fileName: string): LoadedTrace {
    const meta: Json = { source_format: GEMINI_CLI_FORMAT, layout: 'session' };
    for (const k of META_KEYS) if (this.meta[k] !== undefined) meta[k] = this.meta[k];
    let end = 0;
    for (const e of this.out.events) end = Math.max(end, e.t);
    const costs: Record<string, number> = { tool_calls: this.toolCalls, wall_clock_s: end };
    const name = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1).replace(/\.jsonl?$/, '');
    return this.out.finish(GEMINI_CLI_FORMAT, { trace_id: str(this.meta.sessionId) || name || 'gemini-cli', system: 'gemini-cli', costs, metadata: { gemini_cli: meta } });
  }

  private problem(p: Problem): void {
    this.out.problems.push(this.file ? { ...p, file: this.file } : p);
  }

  private add(e: Json, t: number, origin: Origin): string {
    e.t = t;
    const id = this.out.add(e as unknown as TraceEvent, this.file ? { ...origin, file: this.file } : origin);
    this.firstEvent ??= id;
    return id;
  }

  private message(v: Json, origin: Origin): void {
    const type = str(v.type) ?? '(no type)';
    const t = recordSeconds(this.clock, v.timestamp);
    const id = str(v.id) as string;
    if (!MESSAGE_TYPES.has(type)) {
      this.unknown[type] = (this.unknown[type] ?? 0) + 1;
      this.firstUnknown ??= origin.range;
      return;
    }
    const text = partsText(v.content);
    if (type === 'user' && injectedContext(text)) {
      const ev: Json = { id, type: 'message', kind: 'meta', agent: this.lane, from: 'harness', to: this.lane, role: 'user', injected: true };
      setContent(ev, text);
      this.add(ev, t, origin);
      return;
    }
    if (type === 'user') {
      // a user message hands the next turn to the model: the previous turn ended before it
      this.turnEnd();
      this.userTurns++;
      const ev: Json = { id, type: 'message', agent: this.lane, from: 'user', to: this.lane };
      setContent(ev, text);
      this.add(ev, t, origin);
      return;
    }
    if (type !== 'gemini') {
      const ev: Json = { id, type: 'message', kind: 'meta', agent: this.lane, from: 'harness', to: this.lane, role: type };
      setContent(ev, text);
      if (type === 'error') ev.error = text || 'error';
      const eid = this.add(ev, t, origin);
      if (type === 'error') this.last = { id: eid, t, origin, reason: BUDGET_ERROR.test(text) ? 'budget_exhausted' : 'error', detail: 'the turn ended on an error', text };
      // the user pressed Esc: Gemini CLI writes "Request cancelled." and the turn ends there, the user's doing
      else if (type === 'info' && CANCELLED.test(text)) this.last = { id: eid, t, origin, reason: 'user_abort', detail: 'the user cancelled the request', text };
      return;
    }
    const ev: Json = { id, type: 'message', agent: this.lane, from: this.lane };
    setContent(ev, text);
    const thoughts = Array.isArray(v.thoughts) ? v.thoughts.filter(isObject) : [];
    if (thoughts.length) ev.thoughts = thoughts.map((th) => [str(th.subject), str(th.description)].filter((s) => s).join(': ')).filter((s) => s);
    if (str(v.model)) ev.model = v.model;
    const tk = isObject(v.tokens) ? v.tokens : undefined;
    if (tk) {
      const reasoning = num(tk.thoughts);
      const candidates = num(tk.output);
      const output = candidates === undefined && reasoning === undefined ? undefined : (candidates ?? 0) + (reasoning ?? 0);
      const u = usageFrom({ input: num(tk.input), cache_read: num(tk.cached), output, reasoning }, true);
      if (u) {
        ev.usage = u;
        if (u.output !== undefined) ev.tokens = u.output;
      }
      if (num(tk.tool)) ev.tool_use_prompt_tokens = tk.tool;
    }
    const mid = this.add(ev, t, origin);
    this.lastAnswer = mid;
    const calls = Array.isArray(v.toolCalls) ? v.toolCalls : [];
    calls.forEach((c, k) => this.toolCall(c, k, mid, t, origin));
    this.last = calls.length ? undefined : { id: mid, t, origin, reason: 'task_complete', detail: 'the model answered with no tool call: handed back to the user' };
  }

  private toolCall(c: unknown, k: number, messageId: string, t: number, origin: Origin): void {
    if (!isObject(c)) {
      this.problem({ severity: 'warning', message: `toolCalls[${k}] of message "${messageId}" is not a tool call {id, name, args, status}; skipped`, range: origin.range });
      return;
    }
    const callId = str(c.id) || `${messageId}:call${k}`;
    const tool = str(c.name) ?? 'tool';
    const call: Json = { id: callId, type: 'tool_call', agent: this.lane, from: this.lane, tool, causes: [messageId] };
    if (c.args !== undefined) setContent(call, typeof c.args === 'string' ? c.args : JSON.stringify(c.args));
    if (str(c.agentId)) call.agent_id = c.agentId;
    const status = str(c.status);
    if (status) call.status = status;
    if (!status || !FINISHED.has(status)) call.call_status = 'no_result';
    const cid = this.add(call, t, origin);
    this.out.edge(messageId, cid, 'tool_dependency');
    this.toolCalls++;
    if (tool === COMPLETE_TASK) this.completion = { callId: cid, args: c.args, t, origin };
    const sub: SubAgentCall | undefined = str(c.agentId) ? { callId: cid, agentId: c.agentId as string, tool, args: c.args, origin } : undefined;
    if (sub) this.subAgentCalls.push(sub);
    if (!status || !FINISHED.has(status)) return;
    const ct = parseTimeAfter(this.clock, c.timestamp, t);
    const res: Json = { id: `${callId}:result`, type: 'tool_result', agent: this.lane, tool, causes: [cid] };
    const text = resultText(c);
    setContent(res, text);
    if (status === 'error') res.error = text || 'the tool call failed';
    if (status === 'cancelled') {
      res.error = text || 'the tool call was cancelled';
      res.cancelled = true;
    }
    const rid = this.add(res, ct, origin);
    this.out.edge(cid, rid, 'tool_dependency');
    if (sub) sub.resultId = rid;
  }

  /** Ends the turn so far when its last conversational message handed back to the user. */
  private turnEnd(): void {
    const l = this.last;
    this.last = undefined;
    if (!l?.reason) return;
    const ev: Json = { id: `${l.id}:turn_end`, type: 'stop', agent: this.lane, reason: l.reason, decided_by: l.reason === 'task_complete' ? this.lane : l.reason === 'user_abort' ? 'user' : 'harness', detail: l.detail, scope: 'turn', causes: [l.id] };
    setContent(ev, l.text);
    const sid = this.add(ev, l.t, l.origin);
    this.out.edge(l.id, sid, 'causal');
  }
}

/** The text of a tool call's result: its function responses (the first part's `response`), else its display text. */
function resultText(c: Json): string | undefined {
  const parts = partsOf(c.result);
  const fromParts = parts.length ? partsText(c.result) : '';
  if (fromParts) return fromParts;
  if (typeof c.resultDisplay === 'string' && c.resultDisplay) return c.resultDisplay;
  return isObject(c.resultDisplay) ? responseText(c.resultDisplay) : undefined;
}

/** Seconds of a timestamp, never before `after` (a call's result does not precede its message). */
function parseTimeAfter(clock: RecordClock, timestamp: unknown, after: number): number {
  const keep = clock.lastMs;
  const t = recordSeconds(clock, timestamp);
  clock.lastMs = keep; // the messages' clock goes on from the last message, not from a call's time
  return Math.max(t, after);
}

/**
 * True when the text is a Gemini CLI saved chat: a session (a JSON record or first line with
 * `sessionId` and `projectHash` strings and the writer's `startTime`/`lastUpdated`/`messages`) or a
 * `/chat save` checkpoint ({@link isGeminiCheckpointText}).
 */
export function isGeminiCliText(text: string): boolean {
  const first = firstJsonLines(text, 1)[0];
  if (isObject(first)) return typeof first.sessionId === 'string' && typeof first.projectHash === 'string' && ('startTime' in first || 'lastUpdated' in first || Array.isArray(first.messages));
  const head = text.slice(0, 1 << 16);
  if (/^\s*\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"projectHash"\s*:\s*"/.test(head)) return true;
  return isGeminiCheckpointText(text);
}

/** The Gemini CLI saved chat format. */
export const geminiCliFormat: TraceFormat = {
  id: GEMINI_CLI_FORMAT,
  label: 'Gemini CLI saved chat (session-*.jsonl / .json, /chat save checkpoint)',
  detect: (text) => isGeminiCliText(text),
  read: (text, fileName, files) => readGeminiCli(text, fileName, files),
};

registerFormat(geminiCliFormat, true);
