/**
 * History that a Codex rollout holds but that is not the rollout's own work, written as text for
 * one event to show:
 * - the history a compaction kept (`compacted.replacement_history`, a list of Responses API items,
 *   openai/codex `CompactedItem`), see {@link historyText};
 * - the parent's history a forked rollout replays ({@link InheritedHistory}): `codex fork` (and a
 *   sub-agent spawned with the parent's context) starts a rollout with its own `session_meta`
 *   (`forked_from_id` naming the parent), then writes the parent's rollout items as they were
 *   (openai/codex core `record_initial_history`, `InitialHistory::Forked`: "persist all rollout
 *   items as-is"), the parent's own `session_meta` first, all stamped when the fork was made.
 *
 * Pure: imports nothing from `vscode`.
 */
import { isObject, str } from './jsonl-records';

type Json = Record<string, unknown>;

/** Longest call arguments or tool output kept on one line of a history (characters); the record keeps them whole. */
export const HISTORY_CLIP = 300;

function clip(text: string, max = HISTORY_CLIP): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The text of a Responses API `content` (a string, or parts with `text`). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : isObject(p) && /image/.test(String(p.type)) ? '[image]' : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** The text of a tool output: a string, or `{content}` / `{content_items}` (older rollouts). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (isObject(output)) return typeof output.content === 'string' ? output.content : contentText(output.content_items ?? output.content);
  return output === undefined ? '' : JSON.stringify(output);
}

/**
 * One line of history for a Responses API item (a `response_item` payload, or an item of a
 * compaction's `replacement_history`): `user: …`, `assistant: …`, `developer: …`, `call <tool>: <arguments>`,
 * `result: <output>`, `[compaction summary (encrypted)]`; undefined for an item that says nothing
 * (reasoning, an empty message). Arguments and outputs are clipped to {@link HISTORY_CLIP} characters.
 */
export function historyLine(item: unknown): string | undefined {
  if (!isObject(item)) return undefined;
  const type = str(item.type) ?? '';
  if (type === 'message') {
    const text = contentText(item.content).trim();
    return text === '' ? undefined : `${str(item.role) ?? 'message'}: ${text}`;
  }
  if (type === 'compaction' || type === 'compaction_summary') return '[compaction summary (encrypted)]';
  if (type === 'reasoning') return undefined;
  if (type.endsWith('_call_output')) return `result: ${clip(outputText(item.output))}`;
  if (type.endsWith('_call')) {
    const name = str(item.name) ?? (type === 'local_shell_call' ? 'local_shell' : type.slice(0, -'_call'.length));
    const args = item.arguments ?? item.input ?? item.action;
    return `call ${name}: ${clip(typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args))}`;
  }
  return type ? `[${type}]` : undefined;
}

/** The lines of a list of Responses API items ({@link historyLine}), one per item that says something. */
export function historyText(items: readonly unknown[]): string {
  const out: string[] = [];
  for (const item of items) {
    const line = historyLine(item);
    if (line !== undefined) out.push(line);
  }
  return out.join('\n');
}

/**
 * The content of a compaction event: the summary, then the history the compaction kept
 * (`History kept (N items):` and its lines, {@link historyText}). `undefined` when there is neither.
 */
export function compactionText(summary: string | undefined, kept: unknown): string | undefined {
  const parts: string[] = [];
  if (summary !== undefined && summary.trim() !== '') parts.push(summary);
  if (Array.isArray(kept)) {
    const lines = historyText(kept);
    parts.push(`History kept (${kept.length} item${kept.length === 1 ? '' : 's'})${lines ? `:\n${lines}` : ''}`);
  }
  return parts.length ? parts.join('\n\n') : undefined;
}

/**
 * Quiet time (milliseconds) after which a record is no longer part of a fork's replay: Codex writes
 * the replayed items in one batch when the fork is made, so they follow each other within
 * milliseconds; the fork's own first record comes when its first turn starts.
 */
export const REPLAY_GAP_MS = 1000;

/**
 * The time (epoch milliseconds) of a UUID version 7 (RFC 9562: its first 48 bits), or undefined
 * for any other string. Codex thread ids are UUID v7.
 */
export function uuidV7Ms(id: string | undefined): number | undefined {
  if (id === undefined || !/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id)) return undefined;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** The parent's history replayed into a forked rollout, as it is read. */
export interface InheritedHistory {
  /** The thread whose history starts the replay (the `id` of the `session_meta` that opens it). */
  threadId?: string;
  /** Every thread whose `session_meta` the replay holds (a fork of a fork replays both). */
  threads: string[];
  /** The event that shows the replay. */
  eventId: string;
  /** 0-based lines of the replay's first and last records. */
  firstLine: number;
  lastLine: number;
  records: number;
  /** Turns the replay holds (`task_started` / `turn_started`). */
  turns: number;
  /** Its transcript: prompts, answers, calls and results, one line each. */
  lines: string[];
  /** The last cumulative token usage the replay holds (the parent's), to take off the fork's counts. */
  usage?: Json;
  /** Still reading it. */
  open: boolean;
}

/** A copy of `h` that reading can change without changing `h`. */
export function copyInherited(h: InheritedHistory): InheritedHistory {
  return { ...h, threads: h.threads.slice(), lines: h.lines.slice() };
}

/**
 * Takes one replayed record into `h`: counts it, adds its line to the transcript (user prompts
 * from `user_message` events, or from user-role items when the rollout has no such events;
 * developer and injected rows left out), keeps the last token usage.
 * @param promptsAreEvents the rollout's prompts are its `user_message` events.
 */
export function inheritRecord(h: InheritedHistory, line: number, type: string, p: Json | undefined, promptsAreEvents: boolean): void {
  h.records++;
  h.lastLine = line;
  if (!p) return;
  if (type === 'session_meta') {
    const id = str(p.id);
    if (id === undefined || h.threads.includes(id)) return;
    h.threads.push(id);
    // The first thread is the one the heading names; a fork of a fork replays its grandparent's too.
    if (h.threads.length > 1) h.lines.push(`(history of thread ${id})`);
  } else if (type === 'compacted') {
    const text = compactionText(str(p.message), p.replacement_history);
    if (text) h.lines.push(`compaction: ${clip(text)}`);
  } else if (type === 'event_msg') {
    if (p.type === 'task_started' || p.type === 'turn_started') h.turns++;
    else if (p.type === 'user_message' && typeof p.message === 'string') h.lines.push(`user: ${p.message}`);
    else if (p.type === 'token_count' && isObject(p.info) && isObject(p.info.total_token_usage)) h.usage = p.info.total_token_usage;
  } else if (type === 'response_item') {
    if (p.type === 'message' && p.role !== 'assistant' && (promptsAreEvents || p.role !== 'user')) return;
    const text = historyLine(p);
    if (text !== undefined) h.lines.push(text);
  }
}

/** The content of the event that shows a replayed history: what it is, then its transcript. */
export function inheritedText(h: InheritedHistory, forkedFrom: string | undefined): string {
  const from = forkedFrom ?? h.threadId ?? 'its parent';
  const head = `History of thread ${from} replayed into this fork (${h.turns} turn${h.turns === 1 ? '' : 's'}, ${h.records} records, lines ${h.firstLine + 1}–${h.lastLine + 1}): inherited context, not this rollout's own work.`;
  return h.lines.length ? `${head}\n\n${h.lines.join('\n')}` : head;
}
