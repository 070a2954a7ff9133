/**
 * Reading one Codex rollout's records into a trace (see codex.ts for the format and the mapping):
 * {@link RolloutReader} holds what reading needs between records (the open turn, the calls waiting
 * for their output, the inputs of the next model output, the compaction waiting for its summary,
 * token counts), takes the records one at a time, by kind ({@link RolloutReader.readRecord}), and
 * can be copied ({@link RolloutReader.fork}) so a growing import finishes a copy and reads on.
 * What must be known before any record is read (calls declined, workers spawned, prompts) is read
 * ahead ({@link lookAhead}).
 *
 * Pure: imports nothing from `vscode`.
 */
import type { LoadedTrace, Origin, Problem, Range } from '../model';
import type { StopReason, TraceEvent } from '../schema';
import { isObject, num, ownKindsMessage, parseTimestamp, recordOrigin, recordSeconds, setContent, str, type JsonlRecord, type TraceAssembler } from './jsonl-records';
import { addTo } from '../counts';
import { firstJsonLines } from '../formats';
import { addUsage, usageFrom } from '../tokens';
import { endEventExitCode, outputExitCode } from './codex-exit-code';
import { compactionText, copyInherited, inheritedText, inheritRecord, REPLAY_GAP_MS, uuidV7Ms, type InheritedHistory } from './codex-history';

type Json = Record<string, unknown>;

/** Top-level record types of a rollout. */
export const RECORD_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);

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
 * Puts a command's exit code on its result: `exit_code`, and `is_error` when it is not 0 (an exit
 * code read later that is 0 takes back the failure an earlier one gave).
 */
function setExitCode(e: Json, code: number): void {
  const before = e.exit_code;
  e.exit_code = code;
  if (code !== 0) e.is_error = true;
  else if (typeof before === 'number' && before !== 0) delete e.is_error;
}

/**
 * The inter-agent message an assistant-role item carries as its only text (multi-agent v2 writes a
 * received `InterAgentCommunication` into the history as JSON `{author, recipient, other_recipients,
 * content, trigger_turn}`, openai/codex `to_response_input_item`), or undefined for any other item.
 */
function interAgentEnvelope(content: unknown): Json | undefined {
  if (!Array.isArray(content) || content.length !== 1 || !isObject(content[0]) || typeof content[0].text !== 'string') return undefined;
  const text = content[0].text.trim();
  if (!text.startsWith('{') || !text.includes('"recipient"')) return undefined;
  const v = safeJson(text);
  return isObject(v) && typeof v.author === 'string' && typeof v.recipient === 'string' && typeof v.content === 'string' && typeof v.trigger_turn === 'boolean' ? v : undefined;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** The lane of a worker: `<role>:<nickname>` (`agent:<nickname>` without a role). */
export function childLane(role: string | undefined, nickname: string): string {
  return `${role ?? 'agent'}:${nickname}`;
}

/** The lane of the root agent of a rollout tree (a rollout no other thread spawned). */
export const ROOT_LANE = 'codex';

/** The agent path of the root thread (openai/codex `AgentPath::root()`); a sub-agent's is `/root/<task name>`. */
export const ROOT_PATH = '/root';

/**
 * What a rollout's `session_meta` says of the thread that spawned it: `source.subagent.thread_spawn`
 * (`parent_thread_id`, `depth`, `agent_path`, `agent_nickname`, `agent_role`; openai/codex
 * `SubAgentSource::ThreadSpawn`), each falling back on the `session_meta`'s own `agent_nickname`,
 * `agent_role`, `agent_path`; the parent also from `forked_from_id` when `thread_source` is `subagent`.
 * All fields undefined for a rollout no thread spawned (or an absent `session_meta`).
 */
export function threadSpawnOf(meta: Json | undefined): { parent_thread_id?: string; depth?: number; agent_path?: string; agent_nickname?: string; agent_role?: string } {
  const source = meta && isObject(meta.source) ? meta.source : undefined;
  const sub = source && isObject(source.subagent) ? source.subagent : undefined;
  const spawn = sub && isObject(sub.thread_spawn) ? sub.thread_spawn : undefined;
  const parent = str(spawn?.parent_thread_id) ?? (meta?.thread_source === 'subagent' ? str(meta.forked_from_id) : undefined);
  return {
    parent_thread_id: parent,
    depth: num(spawn?.depth),
    agent_path: str(spawn?.agent_path) ?? str(meta?.agent_path),
    agent_nickname: str(spawn?.agent_nickname) ?? str(meta?.agent_nickname),
    agent_role: str(spawn?.agent_role) ?? str(meta?.agent_role),
  };
}

/**
 * The thread that spawned the rollout whose first lines are `head` (its first `session_meta`'s
 * parent thread id), or undefined for a rollout no thread spawned, or a text that is none.
 */
export function parentThreadOfText(head: string): string | undefined {
  const meta = firstJsonLines(head, 5).find((r) => isObject(r) && r.type === 'session_meta' && isObject(r.payload)) as Json | undefined;
  return meta ? threadSpawnOf(meta.payload as Json).parent_thread_id : undefined;
}

/** The last segment of an agent path (`/root/researcher` -> `researcher`). */
function pathName(path: string): string {
  const parts = path.split('/').filter((x) => x !== '');
  return parts[parts.length - 1] ?? path;
}

/** What a parent rollout records of one `spawn_agent` call. */
export interface Spawn {
  eventId: string;
  thread?: string;
  nickname?: string;
  role?: string;
  /** The worker's agent path (multi-agent v2: the output's `task_name`, e.g. `/root/researcher`). */
  path?: string;
  lane?: string;
  returnId?: string;
}

/** Where one rollout is read into. */
export interface RolloutContext {
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
  /** This rollout's agent path (`/root` for the root thread), to place inter-agent messages. */
  path?: string;
  /** The agent path of the thread that spawned this one. */
  callerPath?: string;
}

/** What reading a rollout found, for linking it with its parent or children. */
export interface RolloutRead {
  header: Omit<LoadedTrace['trace'], 'events' | 'edges'>;
  base?: number;
  spawns: Map<string, Spawn>;
  waits: { resultId: string; targets: string[] }[];
  firstEventId?: string;
  /** The last assistant message (the final answer). */
  finalId?: string;
  firstSkipped?: Range;
}

/** What the records of a rollout say before they are read (see {@link lookAhead}). */
export interface LookAhead {
  /** Calls whose approval the user declined (an `*_end` event or item with status declined/rejected). */
  declined: Set<string>;
  /** Spawns of workers (call_id -> thread, nickname, role). */
  spawns: Map<string, Spawn>;
  /** Prompts as the user_message events give them (trimmed). */
  prompts: Set<string>;
  /** User-role response items repeating the user_message written just after them. */
  repeatsPrompt: Set<JsonlRecord>;
  /** The rollout has user_message events (then user-role response items are not prompts). */
  userMessages: boolean;
}

/** Reads what the records of a rollout say before they are read. */
export function lookAhead(records: readonly JsonlRecord[], userMessages: boolean): LookAhead {
  const scan = new LookAheadScan();
  scan.add(records, records.length);
  return scan.ahead(records, userMessages);
}

/**
 * The look-ahead of a rollout's records, taken a part at a time as lines are appended (a growing
 * import scans each record once); {@link lookAhead} is one scan of all records.
 */
export class LookAheadScan {
  private readonly found: LookAhead = { declined: new Set(), spawns: new Map(), prompts: new Set(), repeatsPrompt: new Set(), userMessages: false };
  private scanned = 0;

  /** Scans records up to `to` (exclusive), from where the last call stopped. */
  add(records: readonly JsonlRecord[], to: number): void {
    for (; this.scanned < to; this.scanned++) this.record(records, this.scanned);
  }

  /**
   * The look-ahead of all `records` (those after the ones scanned, a pending last line's, taken
   * into a copy), with `userMessages` as the text says.
   */
  ahead(records: readonly JsonlRecord[], userMessages: boolean): LookAhead {
    const copy = new LookAheadScan();
    const f = this.found;
    Object.assign(copy.found, { declined: new Set(f.declined), spawns: new Map(f.spawns), prompts: new Set(f.prompts), repeatsPrompt: new Set(f.repeatsPrompt), userMessages });
    copy.scanned = this.scanned;
    copy.add(records, records.length);
    return copy.found;
  }

  /** What record `k` says; and whether record `k - 1` repeats the prompt `k` is. */
  private record(records: readonly JsonlRecord[], k: number): void {
    const found = this.found;
    const p = isObject(records[k].value.payload) ? records[k].value.payload : undefined;
    if (!p) return;
    const item = isObject(p.item) ? p.item : p;
    const callOf = str(p.call_id) ?? str(item.call_id);
    if (callOf && (item.status === 'declined' || item.status === 'rejected' || item.status === 'denied')) found.declined.add(callOf);
    if (p.type === 'collab_agent_spawn_end' && typeof p.call_id === 'string') {
      const known = found.spawns.get(p.call_id);
      found.spawns.set(p.call_id, { eventId: '', thread: str(p.new_thread_id) ?? known?.thread, nickname: str(p.new_agent_nickname) ?? known?.nickname, role: str(p.new_agent_role) ?? known?.role, path: known?.path });
    } else if (p.type === 'function_call_output' && typeof p.call_id === 'string') {
      // The spawn_agent output: `{agent_id, nickname}` (v1) or `{task_name, nickname}` (multi-agent v2).
      const o = typeof p.output === 'string' && p.output.trim().startsWith('{') ? safeJson(p.output) : undefined;
      const known = found.spawns.get(p.call_id);
      if (isObject(o) && (typeof o.agent_id === 'string' || typeof o.task_name === 'string')) {
        found.spawns.set(p.call_id, { eventId: '', thread: known?.thread ?? str(o.agent_id), nickname: known?.nickname ?? str(o.nickname), role: known?.role, path: str(o.task_name) ?? known?.path });
      }
    }
    // A user-role response item repeating a prompt (or written just before one) is that prompt; any
    // other user-role item is injected context (meta).
    if (p.type === 'user_message' && typeof p.message === 'string') found.prompts.add(p.message.trim());
    const before = k > 0 && isObject(records[k - 1].value.payload) ? (records[k - 1].value.payload as Json) : undefined;
    if (p.type === 'user_message' && before?.type === 'message' && before.role === 'user') found.repeatsPrompt.add(records[k - 1]);
  }
}

/** The state of the reading of one rollout (see the file comment). */
export class RolloutReader {
  /** The time base: the first record's timestamp (earlier ones, if any, read as 0). */
  base: number | undefined;
  firstSkipped: Range | undefined;
  spawns: Map<string, Spawn>;
  waits: { resultId: string; targets: string[] }[] = [];
  waitTargets = new Map<string, string[]>();
  /** The last compaction event while nothing else followed it: its marker and its summary are one event. */
  compaction: { id: string; summary: boolean; marker: boolean } | undefined;
  firstEventId: string | undefined;
  finalId: string | undefined;
  calls = new Map<string, { id: string; tool: string }>();
  turns: Turn[] = [];
  models = new Set<string>();
  turn: Turn | undefined;
  inputs: string[] = [];
  lastOutputId: string | undefined;
  lastCountedOutputId: string | undefined;
  lastTotal = -1;
  totalUsage: Json | undefined;
  unattributedTokens = 0;
  toolCalls = 0;
  reasoning = 0;
  compactions = 0;
  compactionMarkers = 0;
  metaRows = 0;
  deniedCalls = 0;
  interruptions = 0;
  firstKind: Range | undefined;
  session: Json | undefined;
  lastMs: number | undefined;
  lastT = 0;
  /** Call ids whose output was read (a call declined later must be read again). */
  outputsRead = new Set<string>();
  /** Texts of user-role response items read as meta (a prompt naming one later must read it again). */
  metaUserTexts = new Set<string>();
  /** Line of the last record read. */
  lastLine = -1;
  /** Exit codes of `exec_command_end` events (and failures of `patch_apply_end`), by call id. */
  exitCodes = new Map<string, number>();
  /** The result event of each call id whose output was read. */
  results = new Map<string, string>();
  /** The parent's history a forked rollout replays (from its second `session_meta`). */
  inherited: InheritedHistory | undefined;
  /** Where the replay starts (its `session_meta`'s line), for the info. */
  inheritedAt: Range | undefined;
  /** A second `session_meta` of this same thread (not a replay), for the info. */
  repeatedMeta: Range | undefined;
  // The record being read: its time and origin.
  private t = 0;
  private origin: Origin = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, record: 0 };

  /** @param ctx where the events go; @param ahead what the records say before they are read. */
  constructor(
    readonly ctx: RolloutContext,
    public ahead: LookAhead,
  ) {
    this.base = ctx.base;
    // The reader adds to the spawns it read ahead (event ids, roles): its own copies.
    this.spawns = new Map([...ahead.spawns].map(([id, s]) => [id, { ...s }]));
  }

  /**
   * A copy of this reader writing into `ctx` (a copy of the trace so far): everything reading
   * changes is copied, so the copy can read on and finish while this one is kept.
   */
  fork(ctx: RolloutContext): RolloutReader {
    const f = new RolloutReader(ctx, this.ahead);
    const turns = new Map(this.turns.map((x) => [x, { ...x }]));
    Object.assign(f, this, {
      ctx,
      spawns: new Map([...this.spawns].map(([id, s]) => [id, { ...s }])),
      waits: this.waits.map((w) => ({ ...w })),
      waitTargets: new Map(this.waitTargets),
      compaction: this.compaction && { ...this.compaction },
      calls: new Map(this.calls),
      turns: [...turns.values()],
      turn: this.turn && turns.get(this.turn),
      models: new Set(this.models),
      inputs: this.inputs.slice(),
      outputsRead: new Set(this.outputsRead),
      metaUserTexts: new Set(this.metaUserTexts),
      exitCodes: new Map(this.exitCodes),
      results: new Map(this.results),
      inherited: this.inherited && copyInherited(this.inherited),
    });
    return f;
  }

  private skip(k: string): void {
    addTo(this.ctx.skipped, k);
    this.firstSkipped ??= this.origin.range;
  }

  /** Adds an event of the current record to the lane (in the open turn). */
  private add(draft: Draft): string {
    const { ctx } = this;
    const e = draft as TraceEvent & Json;
    e.id = ctx.idPrefix + e.id;
    if (Array.isArray(e.causes)) e.causes = e.causes.map((c) => (c.startsWith(ctx.idPrefix) ? c : ctx.idPrefix + c));
    e.t = this.t;
    e.agent = ctx.lane;
    if (this.turn) e.turn_id = this.turn.turn_id;
    this.compaction = undefined;
    const id = ctx.out.add(e, this.origin);
    this.firstEventId ??= id;
    return id;
  }

  /** A model output: caused by what came in since the previous one. */
  private output(event: Draft): string {
    if (this.inputs.length) event.causes = event.causes ? [...event.causes, ...this.inputs] : this.inputs;
    this.inputs = [];
    const id = this.add(event);
    this.lastOutputId = id;
    return id;
  }

  /** Reads one record into the trace (records come in line order): its time, then the handler of its type. */
  readRecord(r: JsonlRecord): void {
    const v = r.value;
    const before = this.lastMs;
    this.t = recordSeconds(this, v.timestamp);
    this.lastT = this.t;
    this.lastLine = r.line;
    this.origin = recordOrigin(r, this.ctx.file);
    const type = str(v.type) ?? '(none)';
    const p = isObject(v.payload) ? v.payload : undefined;
    if (this.inherited?.open && this.replayGoesOn(type, p, parseTimestamp(v.timestamp), before)) {
      inheritRecord(this.inherited, r.line, type, p, this.ahead.userMessages);
      return;
    }
    if (this.inherited?.open) this.closeInherited(true);
    if (type === 'session_meta') this.sessionMeta(r, p);
    else if (type === 'turn_context') {
      if (typeof p?.model === 'string') this.models.add(p.model);
    } else if (type === 'compacted') this.compacted(r, p);
    else if (type === 'response_item' && p) this.responseItem(r, p);
    else if (type === 'event_msg' && p) this.eventMsg(r, p);
    else if (type === 'inter_agent_communication' && p) this.interAgent(r, isObject(p.communication) ? p.communication : p);
    else if (type === 'inter_agent_communication_metadata') return; // only says whether the message above started a turn
    else this.skip(RECORD_TYPES.has(type) ? `${type}/no-payload` : `unknown/${type}`);
  }

  /**
   * A `session_meta`: the first is the rollout's own; a later one with another thread's id starts
   * the replay of that thread's history (a fork, see codex-history.ts), read into one event until
   * the replay ends ({@link replayGoesOn}); a later one of this same thread is only noted.
   */
  private sessionMeta(r: JsonlRecord, p: Json | undefined): void {
    if (!this.session) {
      this.session = p;
      return;
    }
    const id = str(p?.id);
    if (id === undefined || id === str(this.session.id)) {
      this.repeatedMeta ??= this.origin.range;
      return;
    }
    const ev: Draft & Json = { id: `inherited:L${r.line}`, type: 'message', kind: 'meta', from: 'harness', to: this.ctx.lane, inherited: true, forked_from: this.forkedFrom() ?? id };
    const h: InheritedHistory = { threadId: id, threads: [], eventId: '', firstLine: r.line, lastLine: r.line, records: 0, turns: 0, lines: [], open: true };
    inheritRecord(h, r.line, 'session_meta', p, this.ahead.userMessages);
    h.eventId = this.add(ev);
    // The rollout's first event is its own first (a worker's spawn points there, its first prompt is its caller's).
    if (this.firstEventId === h.eventId) this.firstEventId = undefined;
    this.inherited = h;
    this.inheritedAt = this.origin.range;
  }

  /** The thread this rollout was forked from (its first `session_meta`'s `forked_from_id`). */
  private forkedFrom(): string | undefined {
    return str(this.session?.forked_from_id);
  }

  /**
   * True while a record still belongs to a fork's replay: it follows the one before within
   * {@link REPLAY_GAP_MS}, and it starts no turn whose id (a UUID v7) was made after this thread's.
   * @param ms the record's time; @param before the time of the record before it (epoch ms).
   */
  private replayGoesOn(type: string, p: Json | undefined, ms: number | undefined, before: number | undefined): boolean {
    if (ms !== undefined && before !== undefined && ms - before > REPLAY_GAP_MS) return false;
    const startsTurn = type === 'turn_context' || (type === 'event_msg' && (p?.type === 'task_started' || p?.type === 'turn_started'));
    if (startsTurn) {
      const turn = uuidV7Ms(str(p?.turn_id));
      const own = uuidV7Ms(str(this.session?.id));
      if (turn !== undefined && own !== undefined && turn >= own) return false;
    }
    return true;
  }

  /**
   * The replay ended: its event gets the transcript and its counts. When the fork's own records
   * follow (`ownStart`), the event moves to where they start (the replay is context the fork's work
   * starts from, not time it spent; `replayed_t` keeps when it was written).
   */
  private closeInherited(ownStart = false): void {
    const h = this.inherited;
    if (!h) return;
    h.open = false;
    // The fork's counts go on from the parent's last cumulative usage: only what grows past it is the fork's own.
    const total = num(h.usage?.total_tokens);
    if (total !== undefined && total > this.lastTotal) this.lastTotal = total;
    const e = this.ctx.out.get(h.eventId) as (TraceEvent & Json) | undefined;
    if (!e) return;
    setContent(e, inheritedText(h, this.forkedFrom()));
    if (ownStart && this.t > e.t) {
      e.replayed_t = e.t;
      e.t = this.t;
    }
    e.inherited_turns = h.turns;
    e.inherited_records = h.records;
    e.inherited_threads = h.threads;
  }

  /**
   * A message between agents (multi-agent v2 `InterAgentCommunication`: `author`, `recipient`
   * agent paths, `content`, `trigger_turn`), as a `message` from the author's lane to the
   * recipient's; one this rollout received is an input of its next output.
   */
  private interAgent(r: JsonlRecord, c: Json): void {
    const author = str(c.author);
    const recipient = str(c.recipient);
    const from = this.laneOfPath(author) ?? 'unknown';
    const to = this.laneOfPath(recipient) ?? this.ctx.lane;
    const ev: Draft & Json = { id: `agent-message:L${r.line}`, type: 'message', from, to };
    const content = typeof c.content === 'string' && c.content !== '' ? c.content : Array.isArray(c.content) ? partsText(c.content) : typeof c.encrypted_content === 'string' ? '[encrypted message]' : undefined;
    setContent(ev, content);
    if (author) ev.author_path = author;
    if (recipient) ev.recipient_path = recipient;
    if (typeof c.trigger_turn === 'boolean') ev.trigger_turn = c.trigger_turn;
    const id = this.add(ev);
    if (from !== this.ctx.lane) this.inputs.push(id);
  }

  /** The lane of an agent path: this rollout's, its caller's, a worker it spawned, the root, else `agent:<last segment>`. */
  private laneOfPath(path: string | undefined): string | undefined {
    if (path === undefined || path === '') return undefined;
    const { ctx } = this;
    if (path === (ctx.path ?? threadSpawnOf(this.session).agent_path)) return ctx.lane;
    if (ctx.callerPath !== undefined && path === ctx.callerPath && ctx.callerLane) return ctx.callerLane;
    for (const s of this.spawns.values()) if (s.path === path) return childLane(s.role, s.nickname ?? s.thread ?? pathName(path));
    return path === ROOT_PATH ? ROOT_LANE : childLane(undefined, pathName(path));
  }

  /** `compacted`: the summary that replaces the history (inside the compaction event when one waits for it). */
  private compacted(r: JsonlRecord, p: Json | undefined): void {
    const history = p?.replacement_history;
    this.compactions++;
    if (this.compaction && !this.compaction.summary) {
      const e = this.ctx.out.get(this.compaction.id) as (TraceEvent & Json) | undefined;
      if (e) {
        setContent(e, compactionText(str(p?.message), history));
        e.content_is_summary = true;
        e.summary_record = r.line;
        if (Array.isArray(history)) e.replacement_items = history.length;
        this.compaction.summary = true;
        return;
      }
    }
    const ev: Draft & Json = { id: `compacted:L${r.line}`, type: 'orchestrator_decision', kind: 'compaction', compaction: true, content_is_summary: true };
    setContent(ev, compactionText(str(p?.message), history));
    if (Array.isArray(history)) ev.replacement_items = history.length;
    const id = this.add(ev);
    this.inputs.push(id);
    this.compaction = { id, summary: true, marker: false };
  }

  /** `response_item`: model input and output (messages, calls, their outputs, reasoning, compaction). */
  private responseItem(r: JsonlRecord, p: Json): void {
    const ptype = str(p.type) ?? '';
    const envelope = ptype === 'message' && p.role === 'assistant' ? interAgentEnvelope(p.content) : undefined;
    if (envelope) this.interAgent(r, envelope);
    else if (ptype === 'message') this.message(r, p);
    else if (ptype === 'agent_message' || ptype === 'inter_agent_communication') this.interAgent(r, isObject(p.communication) ? p.communication : p);
    else if (ptype === 'reasoning') this.reasoning++;
    else if (ptype === 'compaction' || ptype === 'compaction_summary') {
      const ev = { id: `compaction:L${r.line}`, type: 'orchestrator_decision', kind: 'compaction', compaction: true, content: 'context compacted (encrypted summary)' } as Draft;
      const id = this.add(ev);
      this.inputs.push(id);
      this.compaction = { id, summary: true, marker: false };
      this.compactions++;
    } else if (ptype.endsWith('_call_output')) this.callOutput(r, p, ptype);
    else if (ptype.endsWith('_call')) this.call(r, p, ptype);
    else this.skip(`response_item/${ptype || '?'}`);
  }

  /** A message response item: the assistant's text, a prompt (when the rollout has no user_message events), or injected context. */
  private message(r: JsonlRecord, p: Json): void {
    const lane = this.ctx.lane;
    const role = str(p.role);
    const text = partsText(p.content);
    const useResponseUserMessages = !this.ahead.userMessages;
    if (role === 'assistant') {
      const ev: Draft & Json = { id: `msg:L${r.line}`, type: 'message', from: lane };
      setContent(ev, text);
      if (typeof p.phase === 'string') ev.phase = p.phase;
      this.finalId = this.output(ev);
    } else if (role === 'user' && useResponseUserMessages && text.trim() !== '') {
      const ev: Draft = { id: `user:L${r.line}`, type: 'message', from: 'user', to: lane };
      setContent(ev, text);
      this.inputs.push(this.add(ev));
    } else if (role === 'user' && !useResponseUserMessages && (this.ahead.repeatsPrompt.has(r) || this.ahead.prompts.has(text.trim()))) {
      // repeats a user_message event, which is shown
    } else if (role === 'developer' || role === 'system' || role === 'user') {
      // Injected context (developer instructions, AGENTS.md, environment context): a meta row, not a message of the conversation.
      if (role === 'user') this.metaUserTexts.add(text.trim());
      const ev: Draft & Json = { id: `meta:L${r.line}`, type: 'message', kind: 'meta', from: 'harness', to: lane, role };
      setContent(ev, text);
      this.add(ev);
      this.metaRows++;
      this.firstKind ??= this.origin.range;
    } else this.skip(`response_item/message/${role ?? '?'}`);
  }

  /** A `*_call_output`: the result of its call (refused when the user declined the call). */
  private callOutput(r: JsonlRecord, p: Json, ptype: string): void {
    const { out, problems } = this.ctx;
    const id = str(p.call_id) ?? str(p.id) ?? `L${r.line}`;
    this.outputsRead.add(id);
    const call = this.calls.get(id);
    const { text: body, failed } = outputText(p.output);
    const ev: Draft & Json = { id: `${id}:result`, type: 'tool_result', tool: call?.tool ?? 'unknown' };
    setContent(ev, body);
    if (failed) ev.is_error = true;
    // The exit code: the `exec_command_end` paired by call_id, else the output's header (never its free text).
    const exitCode = this.exitCodes.get(id) ?? outputExitCode(body);
    if (exitCode !== undefined) setExitCode(ev, exitCode);
    if (call && (this.ahead.declined.has(id) || DENIED_OUTPUT.test(body.trimStart()))) {
      // The user refused the call (an approval declined): the user's decision, not a failure of the agent.
      ev.denied = true;
      const e = out.get(call.id);
      if (e) e.call_status = 'denied';
      this.deniedCalls++;
      this.firstKind ??= this.origin.range;
    }
    if (call) ev.causes = [call.id];
    else problems.push({ severity: 'warning', message: `${ptype} for call_id "${id}", which no call of this rollout started`, range: this.origin.range });
    const rid = this.add(ev);
    this.results.set(id, rid);
    if (call) out.edge(call.id, rid, 'tool_dependency');
    this.inputs.push(rid);
    if (this.waitTargets.has(id)) this.waits.push({ resultId: rid, targets: this.waitTargets.get(id)! });
  }

  /** A `*_call`: a tool call, or the spawn of a worker (`spawn_agent`). */
  private call(r: JsonlRecord, p: Json, ptype: string): void {
    const callId = str(p.call_id) ?? str(p.id);
    const tool = str(p.name) ?? (ptype === 'local_shell_call' ? 'local_shell' : ptype.slice(0, -'_call'.length));
    const id = callId ?? `${ptype}:L${r.line}`;
    const args = p.arguments ?? p.input ?? p.action;
    const spawn = callId && tool === 'spawn_agent' ? this.spawns.get(callId) ?? { eventId: '' } : undefined;
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
    const cid = this.output(ev);
    if (callId) this.calls.set(callId, { id: cid, tool });
    if (spawn && callId) {
      spawn.eventId = cid;
      this.spawns.set(callId, spawn);
    }
    if (callId && tool === 'wait_agent' && isObject(parsedArgs) && Array.isArray(parsedArgs.targets)) this.waitTargets.set(callId, parsedArgs.targets.filter((x): x is string => typeof x === 'string'));
    if (callId && tool === 'wait_agent' && !this.waitTargets.has(callId)) this.waitTargets.set(callId, []);
    this.toolCalls++;
  }

  /** `event_msg`: turns, prompts, stops, compaction markers, token counts. */
  private eventMsg(r: JsonlRecord, p: Json): void {
    const ptype = str(p.type) ?? '';
    switch (ptype) {
      case 'task_started':
      case 'turn_started':
        if (this.turn) this.turn.end_t ??= this.t;
        this.turn = { turn_id: str(p.turn_id) ?? `turn@L${r.line}`, start_t: this.t, stop: null, line: r.line };
        this.turns.push(this.turn);
        break;
      case 'user_message': {
        const ev: Draft = { id: `user:L${r.line}`, type: 'message', from: this.ctx.callerLane && this.firstEventId === undefined ? this.ctx.callerLane : 'user', to: this.ctx.lane };
        setContent(ev, str(p.message));
        this.inputs.push(this.add(ev));
        break;
      }
      case 'task_complete':
      case 'turn_complete':
      case 'turn_aborted':
      case 'error':
        this.turnEnd(r, p, ptype);
        break;
      case 'context_compacted': {
        this.compactionMarkers++;
        if (this.compaction && !this.compaction.marker) {
          this.compaction.marker = true;
          break;
        }
        const id = this.add({ id: `compaction:L${r.line}`, type: 'orchestrator_decision', kind: 'compaction', compaction: true, content: 'context compacted' } as Draft);
        this.inputs.push(id);
        this.compaction = { id, summary: false, marker: true };
        break;
      }
      case 'token_count':
        this.tokenCount(p);
        break;
      case 'agent_message':
      case 'agent_reasoning':
        break; // repeat response items (assistant messages, reasoning), which are read
      case 'exec_command_end':
      case 'patch_apply_end':
        this.commandEnd(p);
        break;
      case 'collab_agent_spawn_end':
      case 'collab_waiting_begin':
      case 'collab_waiting_end':
        break; // read ahead: they name the workers a spawn or wait concerns
      default:
        this.skip(`event_msg/${ptype || '?'}`);
    }
  }

  /**
   * `exec_command_end` (its `exit_code`) or `patch_apply_end` (`success: false` reads as exit code 1):
   * the status of the call with its `call_id`, put on its result when that was read already (a
   * command that outlived its first output), else when it is read.
   */
  private commandEnd(p: Json): void {
    const callId = str(p.call_id);
    if (this.ahead.declined.has(callId ?? '')) return; // refused by the user: denied, not failed
    const code = p.type === 'patch_apply_end' ? (p.success === false ? 1 : p.success === true ? 0 : undefined) : endEventExitCode(p);
    if (callId === undefined || code === undefined) return;
    this.exitCodes.set(callId, code);
    const rid = this.results.get(callId);
    const e = rid === undefined ? undefined : (this.ctx.out.get(rid) as (TraceEvent & Json) | undefined);
    if (e) setExitCode(e, code);
  }

  /** The end of a turn: completed, aborted, or an error (the first of them stops the turn). */
  private turnEnd(r: JsonlRecord, p: Json, ptype: string): void {
    const lane = this.ctx.lane;
    const turn = this.turn;
    if (turn && turn.stop !== null) return;
    let ev: Draft;
    if (ptype === 'task_complete' || ptype === 'turn_complete') {
      ev = { id: `stop:${str(p.turn_id) ?? turn?.turn_id ?? `L${r.line}`}`, type: 'stop', reason: 'task_complete', decided_by: lane, detail: ptype };
      setContent(ev, str(p.last_agent_message));
    } else if (ptype === 'turn_aborted') {
      const reason = abortReason(p.reason);
      ev = { id: `stop:${str(p.turn_id) ?? turn?.turn_id ?? `L${r.line}`}`, type: 'stop', reason, decided_by: reason === 'user_abort' ? 'user' : lane, detail: `turn aborted: ${String(p.reason)}` };
      if (p.reason === 'interrupted') {
        ev.kind = 'interruption'; // the user stopped it (Esc), as Claude Code's marker
        this.interruptions++;
        this.firstKind ??= this.origin.range;
      }
    } else {
      const message = str(p.message) ?? '';
      const reason: StopReason = BUDGET_ERROR.test(message) ? 'budget_exhausted' : 'error';
      ev = { id: `stop:${turn?.turn_id ?? 'error'}:L${r.line}`, type: 'stop', reason, decided_by: 'codex', detail: 'error event' };
      setContent(ev, message);
    }
    // a turn's end hands back to the user, who may go on; a worker's (spawned by another thread) is left to the analysis
    if (!this.ctx.callerLane) ev.scope = 'turn';
    this.add(ev);
    if (turn) {
      turn.stop = ev.reason!;
      turn.end_t = this.t;
    }
  }

  /**
   * A `token_count` whose cumulative total grew: the last call's usage by kind goes on the last
   * model output since the previous count (`usage`), its output as the event's own `tokens`.
   */
  private tokenCount(p: Json): void {
    const info = isObject(p.info) ? p.info : undefined;
    const total = isObject(info?.total_token_usage) ? info.total_token_usage : undefined;
    const last = isObject(info?.last_token_usage) ? info.last_token_usage : undefined;
    const totalTokens = num(total?.total_tokens);
    if (totalTokens === undefined || totalTokens <= this.lastTotal) return;
    this.lastTotal = totalTokens;
    this.totalUsage = total;
    const spent = num(last?.total_tokens) ?? 0;
    const target = this.lastOutputId !== this.lastCountedOutputId ? this.lastOutputId : undefined;
    const e = target ? this.ctx.out.get(target) : undefined;
    if (e && spent > 0) {
      const byKind = usageFrom({ input: num(last!.input_tokens), cache_read: num(last!.cached_input_tokens), output: num(last!.output_tokens), reasoning: num(last!.reasoning_output_tokens) }, true) ?? {};
      e.usage = e.usage ? addUsage(e.usage, byKind) : byKind;
      e.tokens = (e.tokens ?? 0) + (byKind.output ?? 0);
      this.lastCountedOutputId = target;
    } else this.unattributedTokens += spent;
  }

  /** The infos on a second `session_meta`: the replay of a parent's history a fork holds, or a repeated one. */
  private forkProblems(): void {
    const { ctx } = this;
    const file = ctx.file ? { file: ctx.file } : {};
    const h = this.inherited;
    if (h) {
      const from = this.forkedFrom() ?? h.threadId;
      ctx.problems.push({
        severity: 'info',
        message: `a second session_meta (thread ${h.threadId}): this rollout is a fork of thread ${from}; lines ${h.firstLine + 1}–${h.lastLine + 1} replay its history (${h.turns} turn${h.turns === 1 ? '' : 's'}), shown as one inherited-context event, not counted as this rollout's turns, tokens or time`,
        range: this.inheritedAt ?? this.origin.range,
        ...file,
      });
    }
    if (this.repeatedMeta) ctx.problems.push({ severity: 'info', message: 'a second session_meta of this same thread (read as the first)', range: this.repeatedMeta, ...file });
  }

  /** After the last record: the open turn's end, the kinds read, the costs and the trace fields. Changes this reader: finish a {@link fork} to read on. */
  finish(): RolloutRead {
    const { ctx } = this;
    if (this.inherited?.open) this.closeInherited();
    if (this.turn) this.turn.end_t ??= this.lastT;
    const kinds = [
      [this.metaRows, 'meta row (injected context: developer instructions, AGENTS.md, environment)', 'meta rows (injected context: developer instructions, AGENTS.md, environment)'],
      [this.deniedCalls, 'call refused by the user', 'calls refused by the user'],
      [this.interruptions, 'user interruption', 'user interruptions'],
    ] as const;
    const message = ownKindsMessage(kinds);
    if (message && this.firstKind) ctx.problems.push({ severity: 'info', message, range: this.firstKind, ...(ctx.file ? { file: ctx.file } : {}) });

    this.forkProblems();
    const costs: Record<string, number> = { tool_calls: this.toolCalls };
    if (this.totalUsage) {
      // A fork's counts start from its parent's: the replayed usage is taken off (when the counts went on from it).
      const inherited = this.inherited?.usage;
      const goesOn = inherited !== undefined && (num(this.totalUsage.total_tokens) ?? 0) >= (num(inherited.total_tokens) ?? 0);
      for (const k of ['total_tokens', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens']) {
        const n = num(this.totalUsage[k]);
        if (n !== undefined) costs[k === 'total_tokens' ? 'tokens' : k] = goesOn ? Math.max(0, n - (num(inherited[k]) ?? 0)) : n;
      }
    }
    costs.unattributed_tokens = this.unattributedTokens;
    let end = 0;
    for (const e of ctx.out.events) end = Math.max(end, e.t);
    costs.wall_clock_s = end;
    const metadata: Json = {
      source_format: 'codex',
      turns: this.turns,
      turns_without_stop: this.turns.filter((x) => x.stop === null).length,
      compactions: this.compactions || this.compactionMarkers,
      reasoning_items: this.reasoning,
      skipped_records: ctx.skipped,
      time_base: this.base === undefined ? null : new Date(this.base).toISOString(),
    };
    if (this.models.size) metadata.models = [...this.models];
    const session = this.session;
    if (session) {
      for (const k of ['id', 'forked_from_id', 'cwd', 'originator', 'cli_version', 'source', 'model_provider', 'git']) if (session[k] !== undefined) metadata[k === 'id' ? 'session_id' : k] = session[k];
    }
    const h = this.inherited;
    if (h) {
      const tokens = num(h.usage?.total_tokens);
      metadata.inherited = { event: h.eventId, threads: h.threads, turns: h.turns, records: h.records, first_line: h.firstLine, last_line: h.lastLine, ...(tokens !== undefined ? { tokens } : {}) };
    }
    const header: Omit<LoadedTrace['trace'], 'events' | 'edges'> = { system: 'codex', costs, metadata };
    if (typeof session?.id === 'string') header.trace_id = session.id;
    return { header, base: this.base, spawns: this.spawns, waits: this.waits, firstEventId: this.firstEventId, finalId: this.finalId, firstSkipped: this.firstSkipped };
  }
}

