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

/** Tool names that start a sub-agent (`Task` until 2.1.x, then `Agent`). */
export const AGENT_TOOLS = new Set(['Task', 'Agent']);

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
}

/** Usage of one API message and the event its tokens go on. */
export interface MessageUsage {
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
 * An Anthropic `usage` object by kind (schema.ts `usage`): `input_tokens` -> input (Anthropic's
 * input counts no cached tokens), `cache_read_input_tokens` -> cache_read,
 * `cache_creation_input_tokens` -> cache_write, `output_tokens` -> output. Absent fields stay absent.
 */
export function usageByKind(usage: Json): TokenUsage {
  return usageFrom({ input: num(usage.input_tokens), output: num(usage.output_tokens), cache_read: num(usage.cache_read_input_tokens), cache_write: num(usage.cache_creation_input_tokens) }, false) ?? {};
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

