/**
 * Importer of Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`) and
 * the sub-agent transcripts beside them (`<session>/subagents/agent-<agentId>.jsonl`), which are read
 * through the {@link FileAccess} given to `read` when the session is opened.
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
 *   internal compaction agent `agent-acompact-*`);
 * - a `Task` / `Agent` tool_use is a `spawn` (id `<tool_use_id>:spawn`) plus a `delegate` (id
 *   `<tool_use_id>`, content = the prompt) to the sub-agent whose records link back to it: the
 *   result's `toolUseResult.agentId` (or "agentId: X" in its text), `agent_progress` records
 *   (`data.agentId` + `parentToolUseID`), else the sub-agent's first prompt equal to the call's prompt;
 *   edges: spawn -> sub-agent's first event (`spawn`), delegate -> that event (`message`);
 * - the sub-agent's last text is its `return` (to the spawning lane), with a `return` edge to the
 *   call's `tool_result` (or, for an asynchronous agent, to the `<task-notification>` naming it);
 *   a sub-agent whose own file is absent gets its lane from the mirrored `agent_progress` records and
 *   its return from the call's result;
 * - other tool_use / tool_result blocks: `tool_call` (id = tool_use id) / `tool_result`
 *   (id `<tool_use_id>:result`, `causes` = the call), with a `tool_dependency` edge;
 * - assistant text: `message`; human prompts: `message` from `user`; thinking blocks, meta records,
 *   hook / bash progress, snapshots and queue operations give no event (counted in metadata);
 * - stops (one per turn at most): an assistant `stop_reason` (end_turn, stop_sequence ->
 *   task_complete; max_tokens, model_context_window_exceeded -> budget_exhausted; refusal -> error;
 *   tool_use and pause_turn are not stops), an API error message (-> error, or budget_exhausted for
 *   context / usage limits), "[Request interrupted by user" (-> user_abort), else the turn-end
 *   records `stop_hook_summary` / `turn_duration` (-> task_complete); a turn whose last output is
 *   text and that is followed by the next prompt also stops (task_complete, detail says inferred);
 *   a sub-agent stops at its final answer (task_complete; error / user_abort when its call's
 *   result is an error); a turn cut off at the end of the file has no stop;
 * - compaction: `compact_boundary` -> `orchestrator_decision` with `compaction: true` (trigger,
 *   pre_tokens), and the summary that continues the conversation -> `message` with `compaction: true`;
 * - tokens: per API message (`message.id`), input + cache creation + cache read + output tokens
 *   of its final usage (the same sum Claude Code reports as a sub-agent's `totalTokens`), put on the
 *   message's last event; `trace.costs` sums them all.
 * Time `t`: seconds since the earliest record timestamp of the session and its sub-agent files.
 */
import { firstJsonLines, registerFormat, type FileAccess, type TraceFormat } from '../formats';
import type { LoadedTrace, Origin, Problem } from '../model';
import type { StopReason, TraceEvent } from '../schema';
import {
  baseName,
  clipContent,
  dirName,
  isObject,
  joinPath,
  num,
  parseTimestamp,
  readJsonlRecords,
  recordOrigin,
  secondsSince,
  str,
  TraceAssembler,
  type JsonlRecord,
} from './jsonl-records';

/** Record types Claude Code writes to a session transcript. */
const RECORD_TYPES = new Set(['user', 'assistant', 'system', 'progress', 'summary', 'file-history-snapshot', 'queue-operation', 'attachment', 'fork-context-ref']);

/** Tool names that start a sub-agent (`Task` until 2.1.x, then `Agent`). */
const AGENT_TOOLS = new Set(['Task', 'Agent']);

/** Lane of the main agent. */
export const MAIN_LANE = 'main';

type Json = Record<string, unknown>;

/** One file of the session: the main transcript or a sub-agent's. */
interface SourceFile {
  /** Path for origins and problems; undefined for the opened file. */
  path?: string;
  records: JsonlRecord[];
  /** The sub-agent's id (from its records or its file name); undefined for the main file. */
  agentId?: string;
}

/** A Task / Agent call and what it links to. */
interface AgentCall {
  toolUseId: string;
  lane: string;
  input: Json;
  spawnId?: string;
  delegateId?: string;
  resultId?: string;
  resultError?: boolean;
  resultText?: string;
  /** `toolUseResult.usage`: the final usage of the sub-agent's last API message. */
  resultUsage?: Json;
  resultRecord?: { record: JsonlRecord; file?: string; ms: number };
  async?: boolean;
  agentId?: string;
  subLane?: string;
}

/** State of one lane while its records are read. */
interface LaneState {
  name: string;
  agentId?: string;
  subagentType?: string;
  file?: string;
  /** Lane that spawned it. */
  parent?: string;
  call?: AgentCall;
  /** Built from mirrored `agent_progress` records (its own file is absent). */
  mirrored?: boolean;
  firstEventId?: string;
  /** Last assistant text event (the final answer, when the lane ends). */
  lastTextId?: string;
  lastTextOrigin?: Origin;
  lastTextT?: number;
  /** The sub-agent's return event. */
  returnId?: string;
  /** API message (`message.id`) of the last assistant text. */
  lastTextKey?: string;
  lastEventId?: string;
  lastEventT: number;
  lastOrigin?: Origin;
  /** Whether the last event of the lane was assistant text with no tool call after it. */
  endsWithText: boolean;
  turnHasOutput: boolean;
  turnStopped: boolean;
  /** Results and prompts received since the agent last produced output (the causes of its next output). */
  inputs: string[];
  models: Set<string>;
  /** The compaction event waiting for its summary row. */
  pendingCompaction?: string;
  /** The last local command event, waiting for its output. */
  pendingCommand?: string;
}

/** Usage of one API message and the event its tokens go on. */
interface MessageUsage {
  usage?: Json;
  output: number;
  /** The event its tokens go on: the response's first event (the model call). */
  eventId?: string;
  firstEventId?: string;
}

/**
 * Tokens of one API call: input + cache creation + cache read + output tokens of an Anthropic
 * `usage` object (0 for absent fields). The same sum Claude Code reports as a sub-agent's
 * `toolUseResult.totalTokens` (e.g. 6 + 4896 + 40725 + 3473 = 49100 in the fa812bfe fixture).
 */
export function usageTokens(usage: Json | undefined): number {
  if (!usage) return 0;
  return (num(usage.input_tokens) ?? 0) + (num(usage.cache_creation_input_tokens) ?? 0) + (num(usage.cache_read_input_tokens) ?? 0) + (num(usage.output_tokens) ?? 0);
}

/**
 * The stop reason of an Anthropic API `stop_reason`, or undefined when it is not a stop
 * (`tool_use`, `pause_turn`, null).
 */
export function mapStopReason(stopReason: unknown): StopReason | undefined {
  switch (stopReason) {
    case null:
    case undefined:
    case 'tool_use':
    case 'pause_turn':
      return undefined;
    case 'end_turn':
    case 'stop_sequence':
      return 'task_complete';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'budget_exhausted';
    case 'refusal':
      return 'error';
    default:
      return typeof stopReason === 'string' ? 'unknown' : undefined;
  }
}

/** The text of a message `content` (a string or blocks): text blocks joined, images as `[image]`. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) {
    if (typeof b === 'string') parts.push(b);
    else if (isObject(b)) {
      if (typeof b.text === 'string') parts.push(b.text);
      else if (b.type === 'image') parts.push('[image]');
    }
  }
  return parts.join('\n');
}

/** `<tag>value</tag>` inside a text. */
function tagValue(text: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(text);
  return m ? m[1].trim() : undefined;
}

/** The markers Claude Code writes when the user interrupts ("[Request interrupted by user]", "... for tool use]"). */
const INTERRUPTED = /^\[Request interrupted by user\b[^\]]*\]?/;

/** Tool results Claude Code writes when the user refuses a call. */
const DENIED = /rejected by the user|user rejected tool use|user doesn't want to proceed with this tool use|tool use was rejected/i;

/** A local command row: `<command-name>/x</command-name>` + args, or its `<local-command-stdout>` / `-stderr`, or `!` shell mode (`<bash-input>`, `<bash-stdout>`). */
interface LocalCommand {
  part: 'command' | 'output';
  command?: string;
  args?: string;
  output?: string;
}

/** The local command a user row holds, or undefined for a prompt. */
export function localCommand(text: string): LocalCommand | undefined {
  const t = text.trim();
  const name = tagValue(t, 'command-name');
  if (name !== undefined && /^<command-(name|message)>/.test(t)) return { part: 'command', command: name, args: tagValue(t, 'command-args') };
  const bash = tagBlock(t, 'bash-input');
  if (bash !== undefined && t.startsWith('<bash-input>')) return { part: 'command', command: '!', args: bash };
  for (const tag of ['local-command-stdout', 'local-command-stderr', 'bash-stdout', 'bash-stderr']) {
    if (t.startsWith(`<${tag}>`)) return { part: 'output', output: tagBlock(t, tag) ?? '' };
  }
  return undefined;
}

/** The text between `<tag>` and `</tag>` (across lines), or undefined. */
function tagBlock(text: string, tag: string): string | undefined {
  const start = text.indexOf(`<${tag}>`);
  if (start === -1) return undefined;
  const end = text.indexOf(`</${tag}>`, start);
  return text.slice(start + tag.length + 2, end === -1 ? undefined : end);
}

const BUDGET_ERROR = /prompt is too long|context (window|length)|usage limit|rate limit|credit balance|quota|too many tokens/i;

/**
 * Reads a Claude Code session and its sub-agent files.
 * @param text the session file's content; @param fileName its path (sub-agent files are looked up
 * beside it, in `<name without .jsonl>/subagents/`); @param files access to those files (none: the
 * sub-agents are built from what the session itself records).
 * @returns the trace (format `claude-code`), origins of every event (line of its record; `file` for
 * sub-agent files) and positioned problems. Never throws for bad content.
 */
export function readClaudeCode(text: string, fileName: string, files?: FileAccess): LoadedTrace {
  return new ClaudeImport(text, fileName, files).run();
}

class ClaudeImport {
  private readonly problems: Problem[] = [];
  private readonly out: TraceAssembler;
  private readonly main: SourceFile;
  private readonly subFiles: SourceFile[] = [];
  private base = 0;
  private readonly lanes = new Map<string, LaneState>();
  private readonly calls = new Map<string, AgentCall>();
  /** tool_use id -> the tool_call / delegate event id, and the tool name. */
  private readonly callEvents = new Map<string, { id: string; tool: string; lane: string }>();
  private readonly agentOfCall = new Map<string, string>();
  private readonly messages = new Map<string, MessageUsage>();
  /** `call:<tool_use_id>` / `task:<agentId>` -> the task-notification event naming it. */
  private readonly notifications = new Map<string, string>();
  /** uuid of a main-file record -> the last main-lane event when it was read. */
  private readonly eventAtUuid = new Map<string, string>();
  private readonly sidechainRoot = new Map<string, string>();
  private readonly sidechainLanes = new Map<string, LaneState>();
  private readonly compactSummaries: { id: string; t: number }[] = [];
  /** tool_use ids that got a result. */
  private readonly answered = new Set<string>();
  /** Files whose last line is cut off (still being written); '' is the opened file. */
  private readonly cutOff = new Set<string>();
  private firstSkipped?: Origin;
  private readonly skipped: Record<string, number> = {};
  private readonly meta = { sessionId: undefined as string | undefined, versions: new Set<string>(), cwd: undefined as string | undefined, gitBranch: undefined as string | undefined, slug: undefined as string | undefined };
  private toolCalls = 0;
  private thinking = 0;
  private compactions = 0;
  private readonly costs = { tokens: 0, input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

  constructor(
    text: string,
    private readonly fileName: string,
    private readonly files?: FileAccess,
  ) {
    this.out = new TraceAssembler(this.problems);
    const main = readJsonlRecords(text);
    this.problems.push(...main.problems);
    if (main.problems.some((p) => p.message.startsWith('last line is cut off'))) this.cutOff.add('');
    this.main = { records: main.records };
  }

  run(): LoadedTrace {
    this.loadSubagentFiles();
    this.link();
    this.loadSiblingAgentFiles();
    this.base = this.earliestTimestamp();
    this.lane(MAIN_LANE);
    this.readFile(this.main, MAIN_LANE);
    for (const f of this.subFiles) {
      const lane = this.subLaneOf(f);
      this.readFile(f, lane.name);
    }
    this.finishLanes();
    this.attributeTokens();
    this.accountFor();
    return this.out.finish('claude-code', this.header());
  }

  // ---- files and links -------------------------------------------------------------------

  /** Reads `<session>/subagents/agent-*.jsonl` next to the opened file, in name order. */
  private loadSubagentFiles(): void {
    if (!this.files) return;
    const name = baseName(this.fileName);
    if (!name.endsWith('.jsonl')) return;
    const dir = dirName(this.fileName);
    const sessionDir = joinPath(this.fileName, ...(dir ? [dir] : []), name.slice(0, -'.jsonl'.length));
    const subDir = joinPath(this.fileName, sessionDir, 'subagents');
    const names = this.files.list(subDir);
    if (!names) return;
    for (const n of [...names].filter((x) => /^agent-.+\.jsonl$/.test(x)).sort()) this.addSubFile(joinPath(this.fileName, subDir, n));
  }

  /**
   * Claude Code 2.0.x kept sub-agent transcripts beside the session (`<project>/agent-<agentId>.jsonl`):
   * reads those of the linked agents whose file was not found under `subagents/`.
   */
  private loadSiblingAgentFiles(): void {
    if (!this.files) return;
    const have = new Set(this.subFiles.map((f) => f.agentId));
    const dir = dirName(this.fileName);
    for (const call of this.calls.values()) {
      if (!call.agentId || have.has(call.agentId) || !/^[\w-]+$/.test(call.agentId)) continue;
      have.add(call.agentId);
      this.addSubFile(joinPath(this.fileName, ...(dir ? [dir] : []), `agent-${call.agentId}.jsonl`));
    }
  }

  private addSubFile(path: string): void {
    const text = this.files?.readText(path);
    if (text === undefined) return;
    const parsed = readJsonlRecords(text, path);
    this.problems.push(...parsed.problems);
    if (parsed.problems.some((p) => p.message.startsWith('last line is cut off'))) this.cutOff.add(path);
    let agentId: string | undefined;
    for (const r of parsed.records) {
      agentId = str(r.value.agentId);
      if (agentId) break;
    }
    const n = baseName(path);
    this.subFiles.push({ path, records: parsed.records, agentId: agentId ?? n.slice('agent-'.length, -'.jsonl'.length) });
  }

  private earliestTimestamp(): number {
    let min = Infinity;
    for (const f of [this.main, ...this.subFiles]) {
      for (const r of f.records) {
        const ms = parseTimestamp(r.value.timestamp);
        if (ms !== undefined && ms < min) min = ms;
      }
    }
    return Number.isFinite(min) ? min : 0;
  }

  /** Finds the agent calls and the agents they started (from results, progress records and prompts). */
  private link(): void {
    for (const f of [this.main, ...this.subFiles]) {
      for (const r of f.records) {
        const v = r.value;
        const message = isObject(v.message) ? v.message : undefined;
        if (v.type === 'assistant' && message && Array.isArray(message.content)) {
          for (const b of message.content) {
            if (isObject(b) && b.type === 'tool_use' && typeof b.id === 'string' && AGENT_TOOLS.has(str(b.name) ?? '') && isObject(b.input)) {
              this.calls.set(b.id, { toolUseId: b.id, lane: '', input: b.input });
            }
          }
        } else if (v.type === 'user' && message) {
          if (Array.isArray(message.content)) {
            for (const b of message.content) {
              if (!isObject(b) || b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
              const result = isObject(v.toolUseResult) ? v.toolUseResult : undefined;
              const agentId = str(result?.agentId) ?? /\bagent_?[iI]d: ([\w@.-]+)/.exec(contentText(b.content))?.[1];
              if (agentId && !this.agentOfCall.has(b.tool_use_id)) this.agentOfCall.set(b.tool_use_id, agentId);
            }
          }
        } else if (v.type === 'progress' && isObject(v.data) && v.data.type === 'agent_progress') {
          const agentId = str(v.data.agentId);
          const parent = str(v.parentToolUseID);
          if (agentId && parent && !this.agentOfCall.has(parent)) this.agentOfCall.set(parent, agentId);
        }
      }
    }
    for (const [id, call] of this.calls) call.agentId = this.agentOfCall.get(id);
    // Sub-agent files that no result or progress record names (or names otherwise, as team agents'
    // "agent_id: name@team"): match their first prompt to the prompt of a call not linked to a file.
    const fileIds = new Set(this.subFiles.map((f) => f.agentId));
    const claimed = new Set([...this.calls.values()].map((c) => c.agentId).filter((a): a is string => !!a && fileIds.has(a)));
    for (const f of this.subFiles) {
      if (!f.agentId || claimed.has(f.agentId)) continue;
      const prompt = this.firstPrompt(f);
      if (prompt === undefined) continue;
      for (const call of this.calls.values()) {
        if ((!call.agentId || !fileIds.has(call.agentId)) && str(call.input.prompt) === prompt) {
          call.agentId = f.agentId;
          claimed.add(f.agentId);
          break;
        }
      }
    }
  }

  private firstPrompt(f: SourceFile): string | undefined {
    for (const r of f.records) {
      if (r.value.type === 'user' && !r.value.isMeta && isObject(r.value.message)) return contentText(r.value.message.content);
    }
    return undefined;
  }

  private laneName(agentId: string, type: string | undefined): string {
    const kind = type ?? (agentId.startsWith('acompact') ? 'compact' : 'agent');
    return `${kind}:${agentId}`;
  }

  private lane(name: string): LaneState {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = { name, lastEventT: 0, endsWithText: false, turnHasOutput: false, turnStopped: false, inputs: [], models: new Set() };
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /** The lane of a sub-agent file (the call that spawned it, when known). */
  private subLaneOf(f: SourceFile): LaneState {
    const agentId = f.agentId ?? 'unknown';
    const call = [...this.calls.values()].find((c) => c.agentId === agentId);
    const lane = this.lane(call?.subLane ?? this.laneName(agentId, str(call?.input.subagent_type)));
    lane.agentId = agentId;
    lane.file = f.path;
    if (call) {
      lane.call = call;
      call.subLane = lane.name;
      lane.subagentType = str(call.input.subagent_type);
    }
    return lane;
  }

  // ---- records -----------------------------------------------------------------------------

  private readFile(f: SourceFile, laneName: string): void {
    const ownLane = this.lane(laneName);
    let lastMs = this.base;
    const withFile = new Set(this.subFiles.map((s) => s.agentId));
    for (const r of f.records) {
      const v = r.value;
      const ms = parseTimestamp(v.timestamp) ?? (isObject(v.snapshot) ? parseTimestamp(v.snapshot.timestamp) : undefined) ?? lastMs;
      lastMs = ms;
      this.noteMeta(v);
      const origin = recordOrigin(r, f.path);
      const type = str(v.type) ?? '(none)';
      const lane = f === this.main && v.isSidechain === true ? this.sidechainLane(v) : ownLane;
      switch (type) {
        case 'assistant':
          this.assistant(lane, v, ms, origin);
          break;
        case 'user':
          this.user(lane, v, ms, origin, r, f.path);
          break;
        case 'system':
          this.system(lane, v, ms, origin);
          break;
        case 'progress': {
          const data = isObject(v.data) ? v.data : undefined;
          const agentId = str(data?.agentId);
          if (data?.type === 'agent_progress' && agentId && !withFile.has(agentId) && f === this.main) {
            this.mirror(data, agentId, str(v.parentToolUseID), ms, origin, r, f.path);
          } else this.skip(`progress/${str(data?.type) ?? '?'}`, origin);
          break;
        }
        default:
          this.skip(RECORD_TYPES.has(type) ? type : `unknown/${type}`, origin);
      }
      if (f === this.main && typeof v.uuid === 'string' && ownLane.lastEventId) this.eventAtUuid.set(v.uuid, ownLane.lastEventId);
    }
  }

  /**
   * Claude Code 1.x wrote sub-agent messages into the session file itself, flagged `isSidechain`:
   * each chain of them (followed by `parentUuid` to its root) is a sub-agent lane, linked to the
   * Task call whose prompt its first prompt repeats.
   */
  private sidechainLane(v: Json): LaneState {
    const uuid = str(v.uuid) ?? '';
    const parentUuid = str(v.parentUuid);
    const root = (parentUuid && this.sidechainRoot.get(parentUuid)) || uuid;
    if (uuid) this.sidechainRoot.set(uuid, root);
    const known = this.sidechainLanes.get(root);
    if (known) return known;
    const agentId = str(v.agentId) ?? `sidechain-${root.slice(0, 8)}`;
    let call: AgentCall | undefined;
    if (v.type === 'user' && isObject(v.message)) {
      const prompt = contentText(v.message.content);
      const taken = new Set([...this.sidechainLanes.values()].map((l) => l.call));
      call = [...this.calls.values()].find((c) => c.lane !== '' && !taken.has(c) && str(c.input.prompt) === prompt);
    }
    const lane = this.lane(call?.subLane ?? this.laneName(agentId, str(call?.input.subagent_type)));
    lane.agentId = agentId;
    if (call) {
      lane.call = call;
      call.agentId ??= agentId;
      call.subLane = lane.name;
      lane.subagentType = str(call.input.subagent_type);
    }
    this.sidechainLanes.set(root, lane);
    return lane;
  }

  /** Reads a sub-agent message mirrored into the main file (`agent_progress`) into the sub-agent's lane. */
  private mirror(data: Json, agentId: string, parentCall: string | undefined, ms: number, origin: Origin, r: JsonlRecord, file: string | undefined): void {
    const call = parentCall ? this.calls.get(parentCall) : undefined;
    const laneName = call?.subLane ?? this.laneName(agentId, str(call?.input.subagent_type));
    const lane = this.lane(laneName);
    if (!lane.agentId) {
      lane.agentId = agentId;
      lane.mirrored = true;
      if (call) {
        lane.call = call;
        call.subLane = laneName;
        lane.subagentType = str(call.input.subagent_type);
      }
    }
    const inner = isObject(data.message) ? data.message : undefined;
    if (!inner) return;
    const innerMs = parseTimestamp(inner.timestamp) ?? ms;
    if (inner.type === 'assistant') this.assistant(lane, inner, innerMs, origin);
    else if (inner.type === 'user') this.user(lane, inner, innerMs, origin, r, file);
  }

  private noteMeta(v: Json): void {
    if (!this.meta.sessionId && typeof v.sessionId === 'string') this.meta.sessionId = v.sessionId;
    if (typeof v.version === 'string') this.meta.versions.add(v.version);
    if (!this.meta.cwd && typeof v.cwd === 'string') this.meta.cwd = v.cwd;
    if (!this.meta.gitBranch && typeof v.gitBranch === 'string') this.meta.gitBranch = v.gitBranch;
    if (!this.meta.slug && typeof v.slug === 'string') this.meta.slug = v.slug;
  }

  /** Counts a record (or part of one) that gives no event; `at` (the first one's place) positions the warning. */
  private skip(kind: string, at?: Origin): void {
    this.skipped[kind] = (this.skipped[kind] ?? 0) + 1;
    if (at && !this.firstSkipped) this.firstSkipped = at;
  }

  /**
   * After all records: marks tool calls that never got a result (`call_status` `no_result`, or
   * `in_progress` when their file ends in a cut-off line: it is still being written) with one
   * warning, and counts what was not shown in one warning.
   */
  private accountFor(): void {
    const open: { id: string; tool: string; origin: Origin }[] = [];
    for (const [toolUseId, call] of this.callEvents) {
      if (this.answered.has(toolUseId)) continue;
      const e = this.out.get(call.id);
      const origin = this.out.originOf(call.id);
      if (!e || !origin) continue;
      const lane = this.lanes.get(call.lane);
      // A sub-agent that returned answered its call even when the result record is absent.
      if (e.type === 'delegate' && lane && [...this.lanes.values()].some((l) => l.call?.toolUseId === toolUseId && l.returnId)) continue;
      e.call_status = this.cutOff.has(origin.file ?? '') ? 'in_progress' : 'no_result';
      open.push({ id: call.id, tool: call.tool, origin });
    }
    if (open.length) {
      const live = open.every((c) => this.out.get(c.id)?.call_status === 'in_progress');
      const first = open[0].origin;
      this.problems.push({
        severity: live ? 'info' : 'warning',
        message: live
          ? `the file is still being written (its last line is cut off): ${open.length} tool call${open.length > 1 ? 's are' : ' is'} in progress: ${open.map((c) => `${c.id} (${c.tool})`).join(', ')}`
          : `${open.length} tool call${open.length > 1 ? 's have' : ' has'} no result in the file: ${open.map((c) => `${c.id} (${c.tool})`).join(', ')}`,
        range: first.range,
        ...(first.file ? { file: first.file } : {}),
      });
    }
    const kinds = Object.entries(this.skipped);
    if (kinds.length) {
      const total = kinds.reduce((n, [, c]) => n + c, 0);
      const at = this.firstSkipped;
      this.problems.push({
        severity: 'warning',
        message: `${total} record${total > 1 ? 's' : ''} of ${kinds.length} kind${kinds.length > 1 ? 's' : ''} not shown: ${kinds.sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${c}`).join(', ')}`,
        range: at?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        ...(at?.file ? { file: at.file } : {}),
      });
    }
  }

  /** Adds an event to a lane; its `t` from the clock time `ms` (epoch ms), or as given when `ms` is undefined. */
  private emit(lane: LaneState, event: TraceEvent, ms: number | undefined, origin: Origin): string {
    const e = event;
    if (ms !== undefined) e.t = secondsSince(this.base, ms);
    const id = this.out.add(e, origin);
    // A sub-agent's first event is the first one that is not an injected meta row (its prompt).
    if (e.kind !== 'meta') lane.firstEventId ??= id;
    lane.lastEventId = id;
    lane.lastEventT = e.t;
    lane.lastOrigin = origin;
    return id;
  }

  private assistant(lane: LaneState, v: Json, ms: number, origin: Origin): void {
    const message = isObject(v.message) ? v.message : undefined;
    if (!message) return this.skip('assistant/no-message', origin);
    const uuid = str(v.uuid) ?? `L${origin.record}`;
    const key = str(message.id) ?? uuid;
    const usage = isObject(message.usage) ? message.usage : undefined;
    let mu = this.messages.get(key);
    if (!mu) {
      mu = { output: -1 };
      this.messages.set(key, mu);
    }
    const output = num(usage?.output_tokens) ?? 0;
    if (usage && output >= mu.output) {
      mu.usage = usage;
      mu.output = output;
    }
    if (typeof message.model === 'string' && message.model !== '<synthetic>') lane.models.add(message.model);
    const blocks: unknown[] = Array.isArray(message.content) ? message.content : typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [];
    const produced: string[] = [];
    const causes = () => {
      if (lane.inputs.length === 0) return undefined;
      const c = lane.inputs;
      lane.inputs = [];
      return c;
    };
    if (v.isApiErrorMessage === true) {
      const text = contentText(message.content);
      const ev: TraceEvent = { id: `${uuid}:stop`, t: 0, type: 'stop', kind: 'api_error', agent: lane.name, reason: BUDGET_ERROR.test(text) ? 'budget_exhausted' : 'error', decided_by: 'api', detail: typeof v.error === 'string' ? `API error message (${v.error})` : 'API error message' };
      if (message.model === '<synthetic>') ev.synthetic = true;
      clipContent(ev, text);
      const c = causes();
      if (c) ev.causes = c;
      produced.push(this.emit(lane, ev, ms, origin));
      lane.turnStopped = true;
      lane.endsWithText = false;
      mu.eventId = undefined;
      return;
    }
    if (message.model === '<synthetic>') {
      // A row Claude Code wrote itself ("No response requested."): not model output, not a model call.
      const ev: TraceEvent = { id: uuid, t: 0, type: 'message', kind: 'placeholder', synthetic: true, agent: lane.name, from: 'harness' };
      clipContent(ev, contentText(message.content));
      this.emit(lane, ev, ms, origin);
      return;
    }
    // One API response can be written as several records (one per content block, same message.id):
    // its first event is the model call; the response's later events are caused by it.
    const callAnchor = () => (mu.firstEventId && !lane.inputs.length ? [mu.firstEventId] : undefined);
    blocks.forEach((b, k) => {
      if (!isObject(b)) return;
      const suffix = blocks.length > 1 ? `:${k}` : '';
      if (b.type === 'text') {
        const text = str(b.text) ?? '';
        if (text.trim() === '') return;
        const ev: TraceEvent = { id: `${uuid}${suffix}`, t: 0, type: 'message', agent: lane.name, from: lane.name };
        clipContent(ev, text);
        const c = causes() ?? callAnchor();
        if (c) ev.causes = c;
        const id = this.emit(lane, ev, ms, origin);
        produced.push(id);
        lane.lastTextId = id;
        lane.lastTextKey = key;
        lane.lastTextOrigin = origin;
        lane.lastTextT = secondsSince(this.base, ms);
        lane.endsWithText = true;
        lane.turnHasOutput = true;
      } else if ((b.type === 'tool_use' || b.type === 'server_tool_use') && typeof b.id === 'string') {
        const name = str(b.name) ?? 'tool';
        const input = isObject(b.input) ? b.input : {};
        const call = this.calls.get(b.id);
        const c = causes() ?? callAnchor();
        if (call && b.type === 'tool_use') {
          call.lane = lane.name;
          const subLane = call.subLane ?? (call.agentId ? this.laneName(call.agentId, str(input.subagent_type)) : `${str(input.subagent_type) ?? 'agent'}:${b.id.slice(-8)}`);
          call.subLane = subLane;
          const spawn: TraceEvent = { id: `${b.id}:spawn`, t: 0, type: 'spawn', agent: lane.name, to: subLane, tool: name };
          if (typeof input.subagent_type === 'string') spawn.role = input.subagent_type;
          clipContent(spawn, str(input.description));
          if (c) spawn.causes = c;
          call.spawnId = this.emit(lane, spawn, ms, origin);
          const delegate: TraceEvent = { id: b.id, t: 0, type: 'delegate', agent: lane.name, from: lane.name, to: subLane, tool: name, parent: call.spawnId };
          clipContent(delegate, str(input.prompt) ?? str(input.description));
          call.delegateId = this.emit(lane, delegate, ms, origin);
          this.callEvents.set(b.id, { id: call.delegateId, tool: name, lane: lane.name });
          produced.push(call.spawnId, call.delegateId);
        } else {
          const ev: TraceEvent = { id: b.id, t: 0, type: 'tool_call', agent: lane.name, tool: name };
          clipContent(ev, JSON.stringify(input));
          if (c) ev.causes = c;
          const id = this.emit(lane, ev, ms, origin);
          this.callEvents.set(b.id, { id, tool: name, lane: lane.name });
          produced.push(id);
          this.toolCalls++;
        }
        lane.endsWithText = false;
        lane.turnHasOutput = true;
      } else if (b.type === 'web_search_tool_result' || (typeof b.type === 'string' && b.type.endsWith('_tool_result') && typeof b.tool_use_id === 'string')) {
        const id = this.toolResult(lane, String(b.tool_use_id), contentText(b.content), false, ms, origin);
        if (id) produced.push(id);
      } else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
        this.thinking++;
      }
    });
    if (produced.length > 0) {
      mu.firstEventId ??= produced[0];
      mu.eventId = mu.firstEventId;
      const first = this.out.get(mu.firstEventId);
      if (first) {
        const blocksOf = ((first as Json).response_events as string[] | undefined) ?? [first.id];
        for (const id of produced) if (!blocksOf.includes(id)) blocksOf.push(id);
        (first as Json).model_call = key;
        if (blocksOf.length > 1) (first as Json).response_events = blocksOf;
      }
    }
    const reason = mapStopReason(message.stop_reason);
    if (reason && !lane.turnStopped) {
      const ev: TraceEvent = { id: `${key}:stop`, t: 0, type: 'stop', agent: lane.name, reason, decided_by: 'model', detail: `stop_reason: ${String(message.stop_reason)}` };
      this.emit(lane, ev, ms, origin);
      lane.turnStopped = true;
    }
  }

  private user(lane: LaneState, v: Json, ms: number, origin: Origin, r: JsonlRecord, file: string | undefined): void {
    const message = isObject(v.message) ? v.message : undefined;
    if (!message) return this.skip('user/no-message', origin);
    const uuid = str(v.uuid) ?? `L${origin.record}`;
    if (v.isMeta === true) return this.metaRow(lane, uuid, contentText(message.content), ms, origin);
    const content = message.content;
    const blocks: unknown[] = Array.isArray(content) ? content : [];
    const toolResults = blocks.filter((b): b is Json => isObject(b) && b.type === 'tool_result');
    for (const b of toolResults) {
      const id = this.toolResult(lane, String(b.tool_use_id), contentText(b.content), b.is_error === true, ms, origin, isObject(v.toolUseResult) ? v.toolUseResult : undefined, { record: r, file });
      if (id) lane.inputs.push(id);
    }
    const text = Array.isArray(content) ? contentText(blocks.filter((b) => !(isObject(b) && b.type === 'tool_result'))) : typeof content === 'string' ? content : '';
    if (text.trim() === '') return;
    if (INTERRUPTED.test(text.trim())) {
      const ev: TraceEvent = { id: `${uuid}:stop`, t: 0, type: 'stop', kind: 'interruption', agent: lane.name, reason: 'user_abort', decided_by: 'user' };
      clipContent(ev, text);
      const id = this.emit(lane, ev, ms, origin);
      lane.turnStopped = true;
      lane.endsWithText = false;
      lane.inputs.push(id);
      return;
    }
    if (v.isCompactSummary === true) {
      // The summary that continues a compacted conversation belongs to its compaction event.
      const boundary = lane.pendingCompaction ? this.out.get(lane.pendingCompaction) : undefined;
      if (boundary && boundary.content_is_summary !== true) {
        clipContent(boundary, text);
        boundary.content_is_summary = true;
        boundary.summary_record = origin.record;
        this.compactSummaries.push({ id: boundary.id, t: secondsSince(this.base, ms) });
        lane.pendingCompaction = undefined;
        return;
      }
      const ev: TraceEvent = { id: uuid, t: 0, type: 'orchestrator_decision', kind: 'compaction', agent: lane.name, compaction: true, content_is_summary: true } as TraceEvent;
      clipContent(ev, text);
      const id = this.emit(lane, ev, ms, origin);
      this.compactSummaries.push({ id, t: secondsSince(this.base, ms) });
      lane.inputs.push(id);
      return;
    }
    const command = localCommand(text);
    if (command) return this.localCommand(lane, uuid, command, text, ms, origin);
    // A new prompt: the previous turn, if it ended in text and recorded no stop, stopped there.
    this.closeTurn(lane, 'the next prompt followed');
    const notification = text.includes('<task-notification>');
    const isFirstOfSub = lane.name !== MAIN_LANE && lane.firstEventId === undefined;
    const from = isFirstOfSub ? (lane.call?.lane || MAIN_LANE) : notification ? 'harness' : 'user';
    const ev: TraceEvent = { id: uuid, t: 0, type: 'message', agent: lane.name, from, to: lane.name };
    clipContent(ev, text);
    const id = this.emit(lane, ev, ms, origin);
    if (notification) {
      const call = tagValue(text, 'tool-use-id');
      const task = tagValue(text, 'task-id');
      if (call) this.notifications.set(`call:${call}`, id);
      if (task) this.notifications.set(`task:${task}`, id);
    }
    lane.inputs.push(id);
    lane.turnHasOutput = false;
    lane.turnStopped = false;
    lane.endsWithText = false;
  }

  /** A tool_result block: the result event, paired with its call. Returns its id. */
  private toolResult(lane: LaneState, toolUseId: string, text: string, isError: boolean, ms: number, origin: Origin, toolUseResult?: Json, where?: { record: JsonlRecord; file?: string }): string | undefined {
    const callEvent = this.callEvents.get(toolUseId);
    const call = this.calls.get(toolUseId);
    if (call) {
      call.resultError = isError;
      call.resultText = text;
      call.async = str(toolUseResult?.status) === 'async_launched' || toolUseResult?.isAsync === true || /^Async agent launched/.test(text);
      if (isObject(toolUseResult?.usage)) call.resultUsage = toolUseResult.usage;
      if (where) call.resultRecord = { ...where, ms };
      this.returnFromResult(call, ms, origin);
    }
    const ev: TraceEvent = { id: `${toolUseId}:result`, t: 0, type: 'tool_result', agent: lane.name, tool: callEvent?.tool ?? 'unknown' };
    clipContent(ev, text);
    if (isError) (ev as Json).is_error = true;
    if (isError && (DENIED.test(text) || (typeof toolUseResult === 'string' && DENIED.test(toolUseResult)))) {
      ev.denied = true;
      const call = callEvent ? this.out.get(callEvent.id) : undefined;
      if (call) call.call_status = 'denied';
    }
    this.answered.add(toolUseId);
    if (callEvent) ev.causes = [callEvent.id];
    else {
      this.problems.push({ severity: 'warning', message: `tool_result for "${toolUseId}", which no tool_use of this session started`, range: origin.range, ...(origin.file ? { file: origin.file } : {}) });
    }
    const id = this.emit(lane, ev, ms, origin);
    if (callEvent) this.out.edge(callEvent.id, id, 'tool_dependency');
    if (call) call.resultId = id;
    return id;
  }

  /**
   * A meta row (`isMeta`): text the harness injected (a caveat before local commands, "Continue
   * from where you left off.", skill bodies). Its own kind; an input to the model's next output
   * unless it is the local-command caveat (which tells the model to ignore what follows).
   */
  private metaRow(lane: LaneState, uuid: string, text: string, ms: number, origin: Origin): void {
    if (text.trim() === '') return this.skip('user/meta (empty)', origin);
    const ev: TraceEvent = { id: uuid, t: 0, type: 'message', kind: 'meta', agent: lane.name, from: 'harness', to: lane.name };
    clipContent(ev, text);
    const id = this.emit(lane, ev, ms, origin);
    if (!/<local-command-caveat>/.test(text)) lane.inputs.push(id);
  }

  /**
   * A local command (`/compact`, `/context`, `!ls`) and its output: one `local_command` event from
   * the user, the output joined to the command it follows. Not a prompt: no input to the model, no
   * new turn.
   */
  private localCommand(lane: LaneState, uuid: string, cmd: LocalCommand, text: string, ms: number, origin: Origin): void {
    const pending = lane.pendingCommand ? this.out.get(lane.pendingCommand) : undefined;
    if (cmd.part === 'output' && pending && pending.stdout === undefined) {
      const out: Partial<TraceEvent> = {};
      clipContent(out, cmd.output);
      pending.stdout = out.content ?? '';
      if (out.content_ansi) pending.content_ansi = true;
      pending.output_record = origin.record;
      lane.pendingCommand = undefined;
      return;
    }
    const ev: TraceEvent = { id: uuid, t: 0, type: 'message', kind: 'local_command', agent: lane.name, from: 'user', to: 'harness' };
    if (cmd.command !== undefined) ev.command = cmd.command;
    if (cmd.args) ev.command_args = cmd.args;
    if (cmd.part === 'command') clipContent(ev, `${cmd.command ?? ''}${cmd.args ? ` ${cmd.args}` : ''}`);
    else clipContent(ev, cmd.output);
    const id = this.emit(lane, ev, ms, origin);
    lane.pendingCommand = cmd.part === 'command' ? id : undefined;
    void text;
  }

  /**
   * A sub-agent with no transcript of its own (only mirrored progress records, or nothing): its
   * final answer is the call's result, so its return (and stop) are read from the result record.
   */
  private returnFromResult(call: AgentCall, ms: number, origin: Origin): void {
    if (call.async || !call.subLane || this.subFiles.some((f) => f.agentId === call.agentId && call.agentId !== undefined)) return;
    const lane = this.lane(call.subLane);
    if (lane.endsWithText || lane.turnStopped) return;
    lane.agentId ??= call.agentId;
    lane.call ??= call;
    lane.subagentType ??= str(call.input.subagent_type);
    lane.mirrored ??= lane.firstEventId !== undefined;
    if (!call.resultError) {
      const ev: TraceEvent = { id: `${call.toolUseId}:return`, t: 0, type: 'return', agent: lane.name, from: lane.name, to: call.lane || MAIN_LANE };
      clipContent(ev, call.resultText);
      lane.returnId = this.emit(lane, ev, ms, origin);
    }
    this.stopSubLane(lane);
  }

  /**
   * The stop of a sub-agent that ended without one recorded: at its return, or at its last event
   * when the call that started it has a result. A sub-agent with neither was cut off: no stop.
   */
  private stopSubLane(lane: LaneState): void {
    const call = lane.call;
    if (lane.turnStopped || !lane.lastEventId || (!lane.returnId && call?.resultText === undefined)) return;
    let reason: StopReason = 'task_complete';
    if (call?.resultError) reason = /interrupted by user/i.test(call.resultText ?? '') ? 'user_abort' : 'error';
    const atId = lane.returnId ?? lane.lastEventId;
    const at = this.out.get(atId)!;
    const ev: TraceEvent = { id: `${lane.name}:stop`, t: at.t, type: 'stop', agent: lane.name, reason, decided_by: lane.name, detail: lane.returnId ? 'sub-agent returned its final answer' : call?.resultError ? 'the call that started the sub-agent ended in an error' : 'sub-agent transcript ended' };
    this.emit(lane, ev, undefined, this.out.originOf(atId)!);
    lane.turnStopped = true;
  }

  private system(lane: LaneState, v: Json, ms: number, origin: Origin): void {
    const subtype = str(v.subtype) ?? '?';
    const uuid = str(v.uuid) ?? `L${origin.record}`;
    if (subtype === 'compact_boundary') {
      const md = isObject(v.compactMetadata) ? v.compactMetadata : {};
      const ev = { id: uuid, t: 0, type: 'orchestrator_decision', kind: 'compaction', agent: lane.name, compaction: true } as TraceEvent & Json;
      if (typeof md.trigger === 'string') ev.compaction_trigger = md.trigger;
      if (typeof md.preTokens === 'number') ev.pre_tokens = md.preTokens;
      clipContent(ev, str(v.content) ?? 'Conversation compacted');
      // Joined to the chain it compacted: `logicalParentUuid` (the boundary's `parentUuid` is null).
      const before = str(v.logicalParentUuid) ?? str(v.parentUuid);
      const cause = before ? this.eventAtUuid.get(before) : undefined;
      if (cause) ev.causes = [cause];
      const id = this.emit(lane, ev, ms, origin);
      this.out.edge(cause, id, 'causal');
      lane.pendingCompaction = id;
      lane.inputs.push(id);
      this.compactions++;
      return;
    }
    if (subtype === 'stop_hook_summary' || subtype === 'turn_duration') {
      if (lane.turnHasOutput && !lane.turnStopped) {
        const ev: TraceEvent = { id: `${uuid}:stop`, t: 0, type: 'stop', agent: lane.name, reason: 'task_complete', decided_by: lane.name, detail: `turn ended (${subtype})` };
        if (v.preventedContinuation === true) {
          ev.reason = 'unknown';
          ev.decided_by = 'stop hook';
          ev.detail = `a stop hook prevented continuation${typeof v.stopReason === 'string' && v.stopReason ? `: ${v.stopReason}` : ''}`;
        }
        if (typeof v.durationMs === 'number') ev.duration_s = v.durationMs / 1000;
        this.emit(lane, ev, ms, origin);
        lane.turnStopped = true;
      }
      return;
    }
    if (subtype === 'local_command') {
      const text = str(v.content) ?? '';
      const command = localCommand(text);
      if (command) return this.localCommand(lane, uuid, command, text, ms, origin);
    }
    this.skip(`system/${subtype}`, origin);
  }

  /** Records the inferred stop of a turn that ended in text with no stop in the file. */
  private closeTurn(lane: LaneState, why: string): void {
    if (!lane.turnHasOutput || lane.turnStopped || !lane.endsWithText || !lane.lastTextId || !lane.lastTextOrigin) return;
    const ev: TraceEvent = { id: `${lane.lastTextId}:stop`, t: lane.lastTextT ?? lane.lastEventT, type: 'stop', agent: lane.name, reason: 'task_complete', decided_by: lane.name, detail: `inferred: the turn ended in text and ${why}; no stop recorded` };
    this.emit(lane, ev, undefined, lane.lastTextOrigin);
    lane.turnStopped = true;
  }

  // ---- after all records -------------------------------------------------------------------

  /** Returns, sub-agent stops, and the spawn / message / return edges. */
  private finishLanes(): void {
    for (const lane of this.lanes.values()) {
      if (lane.name === MAIN_LANE) continue;
      const call = lane.call;
      const parent = call?.lane || MAIN_LANE;
      lane.parent = parent;
      if (!lane.returnId && lane.lastTextId && lane.endsWithText) {
        const e = this.out.get(lane.lastTextId);
        if (e) {
          e.type = 'return';
          e.to = parent;
          lane.returnId = e.id;
          // The transcript's usage of a message is a snapshot taken while it streamed; the call's
          // result carries the final usage of the sub-agent's last message.
          const mu = lane.lastTextKey ? this.messages.get(lane.lastTextKey) : undefined;
          const final = call?.resultUsage;
          if (mu && final && (num(final.output_tokens) ?? 0) >= mu.output) {
            mu.usage = final;
            mu.output = num(final.output_tokens) ?? 0;
          }
        }
      }
      if (!lane.returnId && call?.resultRecord && call.resultText !== undefined && !call.async && !call.resultError && !lane.turnStopped) {
        // Its own transcript is cut off before the final answer: the call's result carries it.
        const ev: TraceEvent = { id: `${call.toolUseId}:return`, t: 0, type: 'return', agent: lane.name, from: lane.name, to: parent };
        clipContent(ev, call.resultText);
        lane.returnId = this.emit(lane, ev, call.resultRecord.ms, recordOrigin(call.resultRecord.record, call.resultRecord.file));
      }
      const returnId = lane.returnId;
      this.stopSubLane(lane);
      // Edges.
      if (call) {
        this.out.edge(call.spawnId, lane.firstEventId, 'spawn');
        this.out.edge(call.delegateId, lane.firstEventId, 'message');
        let target = call.resultId;
        if (call.async) {
          target = this.notifications.get(`call:${call.toolUseId}`) ?? (call.agentId ? this.notifications.get(`task:${call.agentId}`) : undefined) ?? target;
          if (target && !this.out.get(target)) target = call.resultId;
        }
        if (returnId && target) {
          this.out.edge(returnId, target, 'return');
          const t = this.out.get(target);
          if (t) t.causes = [...(t.causes ?? []), returnId];
        }
      } else if (lane.agentId?.startsWith('acompact')) {
        this.linkCompaction(lane, returnId);
      } else if (lane.file) {
        const o = lane.lastOrigin;
        this.problems.push({ severity: 'info', message: `sub-agent "${lane.agentId}" is not linked to a Task/Agent call of this session`, range: o?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, file: lane.file });
      }
    }
  }

  /** The compaction agent forks from the main conversation and returns the summary that continues it. */
  private linkCompaction(lane: LaneState, returnId: string | undefined): void {
    const f = this.subFiles.find((s) => s.path === lane.file);
    const first = lane.firstEventId ? this.out.get(lane.firstEventId) : undefined;
    if (f && first) {
      const origin = this.out.originOf(first.id);
      const rec = f.records.find((r) => r.line === origin?.record);
      const forkedFrom = str(rec?.value.parentUuid);
      const src = forkedFrom ? this.eventAtUuid.get(forkedFrom) : undefined;
      this.out.edge(src, first.id, 'spawn');
    }
    if (returnId) {
      const t = this.out.get(returnId)!.t;
      const summary = this.compactSummaries.find((s) => s.t >= t);
      if (summary) {
        this.out.edge(returnId, summary.id, 'return');
        const e = this.out.get(summary.id);
        if (e) e.causes = [...(e.causes ?? []), returnId];
      }
    }
  }

  /** Puts each API message's tokens on its last event and sums the trace costs. */
  private attributeTokens(): void {
    for (const mu of this.messages.values()) {
      const u = mu.usage;
      if (!u) continue;
      const tokens = usageTokens(u);
      this.costs.tokens += tokens;
      this.costs.input_tokens += num(u.input_tokens) ?? 0;
      this.costs.output_tokens += num(u.output_tokens) ?? 0;
      this.costs.cache_creation_input_tokens += num(u.cache_creation_input_tokens) ?? 0;
      this.costs.cache_read_input_tokens += num(u.cache_read_input_tokens) ?? 0;
      const e = mu.eventId ? this.out.get(mu.eventId) : undefined;
      if (e && tokens > 0) e.tokens = (e.tokens ?? 0) + tokens;
    }
  }

  private header(): Omit<LoadedTrace['trace'], 'events' | 'edges'> {
    const agents: Record<string, Json> = {};
    for (const lane of this.lanes.values()) {
      if (lane.lastEventId === undefined) continue;
      const a: Json = {};
      if (lane.agentId) a.agent_id = lane.agentId;
      if (lane.subagentType) a.subagent_type = lane.subagentType;
      if (lane.parent) a.parent = lane.parent;
      if (lane.call) a.spawned_by = lane.call.toolUseId;
      if (lane.file) a.file = lane.file;
      if (lane.mirrored) a.from_progress_records = true;
      if (lane.models.size) a.models = [...lane.models];
      agents[lane.name] = a;
    }
    let end = 0;
    for (const e of this.out.events) end = Math.max(end, e.t + (e.duration_s ?? 0));
    const metadata: Json = {
      source_format: 'claude-code',
      agents,
      subagent_files: this.subFiles.map((f) => f.path),
      compactions: this.compactions,
      thinking_blocks: this.thinking,
      skipped_records: this.skipped,
      time_base: new Date(this.base).toISOString(),
    };
    if (this.meta.sessionId) metadata.session_id = this.meta.sessionId;
    if (this.meta.versions.size) metadata.versions = [...this.meta.versions];
    if (this.meta.cwd) metadata.cwd = this.meta.cwd;
    if (this.meta.gitBranch) metadata.git_branch = this.meta.gitBranch;
    if (this.meta.slug) metadata.slug = this.meta.slug;
    const header: Omit<LoadedTrace['trace'], 'events' | 'edges'> = {
      system: 'claude-code',
      costs: { ...this.costs, tool_calls: this.toolCalls, wall_clock_s: end },
      metadata,
    };
    if (this.meta.sessionId) header.trace_id = this.meta.sessionId;
    return header;
  }
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
};

registerFormat(claudeCodeFormat, true);
