/**
 * The Claude Code record format as otrace reads it: lanes, calls and usage state shared by the
 * record handlers, and the helpers that read message content, stop reasons, local commands,
 * interruption and refusal markers (see index.ts for the format and the mapping).
 *
 * Pure: imports nothing from `vscode`.
 */
import type { StopReason, TokenUsage } from '../../schema';
import { isObject, num, type JsonlRecord } from '../jsonl-records';
import { usageFrom } from '../../tokens';
import type { Origin } from '../../model';

/** Record types Claude Code writes to a session transcript. */
export const RECORD_TYPES = new Set(['user', 'assistant', 'system', 'progress', 'summary', 'file-history-snapshot', 'queue-operation', 'attachment', 'fork-context-ref']);

/**
 * Side-channel record types Claude Code appends to a session (state snapshots, last occurrence wins;
 * no uuid, no message): read as session metadata, never as events and never as "not shown".
 * Shapes: `{type:"mode", mode}`, `{type:"permission-mode", permissionMode}`, `{type:"ai-title", aiTitle}`,
 * `{type:"custom-title", customTitle}`, `{type:"agent-name", agentName}`, `{type:"last-prompt", leafUuid}`,
 * `{type:"pr-link", prNumber, prRepository}`, `{type:"bridge-session", bridgeSessionId}`, `atis-latch`,
 * `file-history-delta`, `cost-state` (bbingz/engram docs, "Claude Code — On-Disk Session Format" 16.12,
 * Claude Code 2.1.146-2.1.185; see test/fixtures/claude-code-layouts/SOURCE.md).
 */
export const SIDE_RECORD_TYPES = new Set(['mode', 'permission-mode', 'ai-title', 'custom-title', 'agent-name', 'last-prompt', 'pr-link', 'bridge-session', 'atis-latch', 'file-history-delta', 'cost-state']);

/** Tool names that start a sub-agent (`Task` until 2.1.x, then `Agent`). */
export const AGENT_TOOLS = new Set(['Task', 'Agent']);

/** The tool that runs a Workflow script, whose agents are written under `subagents/workflows/wf_<runId>/`. */
export const WORKFLOW_TOOL = 'Workflow';

/** The tool that sends a message to a running or finished sub-agent (resuming a finished one). */
export const SEND_MESSAGE_TOOL = 'SendMessage';

/** Lane of the main agent. */
export const MAIN_LANE = 'main';

export type Json = Record<string, unknown>;

/** One file of the session: the main transcript or a sub-agent's. */
export interface SourceFile {
  /** Path for origins and problems; undefined for the opened file. */
  path?: string;
  records: JsonlRecord[];
  /** The sub-agent's id (from its records or its file name); undefined for the main file. */
  agentId?: string;
  /** How many of `records` are of complete lines, and which reading of the file they are (a growing import's: src/trace/jsonl-feed.ts). */
  complete?: number;
  generation?: number;
  /** The sidecar `agent-<id>.meta.json` beside it, when there is one (see sidecars.ts). */
  meta?: AgentMeta;
  /** The Workflow run whose folder holds it (`wf_<runId>`), for `subagents/workflows/wf_<runId>/agent-<id>.jsonl`. */
  workflowRun?: string;
}

/**
 * A sub-agent's sidecar `agent-<id>.meta.json` (Claude Code 2.1.x): `toolUseId` names the Agent
 * call that started it (exactly), `agentType` its type (`workflow-subagent` for a Workflow's agents),
 * `description` the call's description, `spawnDepth` how deep it was spawned; a Workflow agent's may
 * carry `label`, `phase` and `model`. Fields of other types are left out.
 */
export interface AgentMeta {
  agentType?: string;
  description?: string;
  toolUseId?: string;
  spawnDepth?: number;
  label?: string;
  phase?: string;
  /** Path of the sidecar. */
  path: string;
}

/** A Task / Agent call and what it links to. */
export interface AgentCall {
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
  /** Linked through the sidecar's `toolUseId` (exact), not through results, progress records or prompts. */
  bySidecar?: boolean;
}

/** State of one lane while its records are read. */
export interface LaneState {
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
  /** tool_use ids of the lane's calls running in the background (launched, no task-notification yet), in launch order. */
  background?: string[];
  /** A sub-agent's earlier reports (the last text before its caller resumed it), returns to its caller, in order. */
  reports?: string[];
  /** A sub-agent's prompts after its first (its caller resumed it or wrote to it), in order. */
  prompts?: string[];
  /** The lane's last stop event. */
  lastStopId?: string;
  /** A Workflow agent: the run (`wf_<runId>`) that started it. */
  workflowRun?: string;
  /** From the sidecar: the description, and how deep the agent was spawned. */
  description?: string;
  spawnDepth?: number;
}

/** Usage of one API message and the event its tokens go on. */
export interface MessageUsage {
  usage?: Json;
  output: number;
  /** Records that carried the message, and whether their usage snapshots differed (tokens were taken from the last). */
  records?: number;
  firstUsage?: string;
  usageVaries?: boolean;
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
 * An Anthropic `usage` object by kind (schema.ts `usage`): `input_tokens` -> input (Anthropic's
 * input counts no cached tokens), `cache_read_input_tokens` -> cache_read,
 * `cache_creation_input_tokens` -> cache_write (its one-hour part,
 * `cache_creation.ephemeral_1h_input_tokens`, -> cache_write_1h: priced higher), `output_tokens` ->
 * output. Absent fields stay absent.
 */
export function usageByKind(usage: Json): TokenUsage {
  const byKind = usageFrom({ input: num(usage.input_tokens), output: num(usage.output_tokens), cache_read: num(usage.cache_read_input_tokens), cache_write: num(usage.cache_creation_input_tokens) }, false) ?? {};
  const creation = usage.cache_creation;
  const hour = isObject(creation) ? num(creation.ephemeral_1h_input_tokens) : undefined;
  if (hour && byKind.cache_write !== undefined) byKind.cache_write_1h = Math.min(hour, byKind.cache_write);
  return byKind;
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
export function contentText(content: unknown): string {
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
export function tagValue(text: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(text);
  return m ? m[1].trim() : undefined;
}

/** The markers Claude Code writes when the user interrupts ("[Request interrupted by user]", "... for tool use]"). */
export const INTERRUPTED = /^\[Request interrupted by user\b[^\]]*\]?/;

/** Tool results Claude Code writes when the user refuses a call. */
export const DENIED = /rejected by the user|user rejected tool use|user doesn't want to proceed with this tool use|tool use was rejected/i;

/** A local command row: `<command-name>/x</command-name>` + args, or its `<local-command-stdout>` / `-stderr`, or `!` shell mode (`<bash-input>`, `<bash-stdout>`). */
export interface LocalCommand {
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
export function tagBlock(text: string, tag: string): string | undefined {
  const start = text.indexOf(`<${tag}>`);
  if (start === -1) return undefined;
  const end = text.indexOf(`</${tag}>`, start);
  return text.slice(start + tag.length + 2, end === -1 ? undefined : end);
}

export const BUDGET_ERROR = /prompt is too long|context (window|length)|usage limit|rate limit|credit balance|quota|too many tokens/i;

