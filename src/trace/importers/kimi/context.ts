/**
 * Reader of a Kimi Code CLI (MoonshotAI/kimi-cli, Python) session's `context.jsonl`: the model's
 * context as the CLI keeps it (kimi-cli src/kimi_cli/soul/context.py): one record a line, a message
 * `{role: user | assistant | tool, content, tool_calls, tool_call_id}` (content a string or parts:
 * `text`, `think`, media), or a bookkeeping record `{role: "_system_prompt", content}`,
 * `{role: "_checkpoint", id}`, `{role: "_usage", token_count}` (the context's size after a step).
 *
 * The session's `wire.jsonl` beside it is the fuller record (times, sub-agents, tokens by kind);
 * opened alone, this file reads as one lane `main` through {@link WireReader} (kimi/wire.ts):
 * user messages are prompts (a turn each; text the CLI injects, `<system-reminder>` or `<system>`,
 * a harness row), assistant content and tool calls are outputs, tool messages results (failed when
 * the CLI wrote `<system>ERROR…`). No time is written: `t` counts records (`metadata.time`:
 * `record-index`). A turn the model wrote in ends before the next prompt and at the end of the
 * file (task_complete when the model answered last; unknown after a call). `_usage` counts are the context's size, not
 * tokens used: kept in `metadata.context_tokens`, no event carries them.
 */
import { firstJsonLines, registerFormat, type FileAccess, type TraceFormat } from '../../formats';
import type { LoadedTrace, Problem } from '../../model';
import { baseName, dirName, isObject, joinPath, lineRange, num, readJsonlRecords, str, TraceAssembler } from '../jsonl-records';
import { summarize, wireCosts } from './index';
import { inputText, MAIN_LANE, WireReader } from './wire';

type Json = Record<string, unknown>;

/** Roles of context.jsonl's bookkeeping records. */
const BOOKKEEPING = new Set(['_system_prompt', '_checkpoint', '_usage']);

/** Text the CLI injects as a user message. */
const INJECTED = /^\s*<(system-reminder|system)>/;

/**
 * Reads a kimi-cli `context.jsonl`.
 * @param text its content; @param fileName its path (the session folder is its folder);
 * @param files to see whether the session's `wire.jsonl` is beside it.
 * @returns the trace (format `kimi-context`), the origin of every event (its line) and positioned
 *   problems (bad lines, records that are no message). Never throws for bad content.
 */
export function readKimiContext(text: string, fileName = '', files?: FileAccess): LoadedTrace {
  const parsed = readJsonlRecords(text);
  const problems: Problem[] = parsed.problems.slice();
  const out = new TraceAssembler(problems);
  const reader = new WireReader(out, problems, 0);
  const main = reader.lanes.get(MAIN_LANE)!;
  const usage: number[] = [];
  let checkpoints = 0;
  let notMessages = 0;
  let firstNotMessage: number | undefined;
  /** A turn is open, and the model wrote something in it (a turn with no output has no stop: it was cut short or is running). */
  let open = false;
  let answered = false;
  parsed.records.forEach((r, i) => {
    const v = r.value;
    const read = (type: string, p: Json) => reader.readTranslated(r, undefined, i * 1000, type, p, main);
    const role = str(v.role);
    if (role === '_usage') {
      const n = num(v.token_count);
      if (n !== undefined) usage.push(n);
      return;
    }
    if (role === '_checkpoint') {
      checkpoints++;
      return;
    }
    if (role === '_system_prompt' || role === 'system') return;
    if (role === 'user') {
      const t = inputText(v.content);
      if (INJECTED.test(t)) return reader.harness(r, undefined, i * 1000, main, 'injected context', t);
      if (open && answered) read('TurnEnd', {});
      open = true;
      answered = false;
      return read('TurnBegin', { user_input: v.content });
    }
    if (role === 'assistant') {
      answered = true;
      const parts = typeof v.content === 'string' ? [{ type: 'text', text: v.content }] : Array.isArray(v.content) ? v.content : [];
      const said = parts.filter((p): p is Json => isObject(p) && p.type === 'text' && typeof p.text === 'string').map((p) => p.text as string).join('\n');
      for (const p of parts) if (isObject(p) && p.type === 'think') read('ContentPart', p);
      if (said) read('ContentPart', { type: 'text', text: said });
      for (const c of Array.isArray(v.tool_calls) ? v.tool_calls : []) if (isObject(c)) read('ToolCall', c);
      return;
    }
    if (role === 'tool') {
      const output = inputText(v.content);
      return read('ToolResult', { tool_call_id: v.tool_call_id, return_value: { is_error: /^\s*<system>ERROR/.test(output), output } });
    }
    notMessages++;
    firstNotMessage ??= r.line;
  });
  if (open && answered) {
    const last = parsed.records[parsed.records.length - 1];
    if (last) reader.readTranslated(last, undefined, (parsed.records.length - 1) * 1000, 'TurnEnd', {}, main);
  }
  reader.finish(problems.some((p) => p.message.startsWith('last line is cut off')));
  if (notMessages) problems.push({ severity: 'warning', message: `${notMessages} line${notMessages > 1 ? 's are' : ' is'} JSON but not a context record ({"role": user | assistant | tool | _system_prompt | _checkpoint | _usage}): not shown`, range: lineRange(firstNotMessage ?? 0, 0) });
  const wire = joinPath(fileName, dirName(fileName), 'wire.jsonl');
  const hasWire = files?.readText(wire) !== undefined;
  problems.push({ severity: 'info', message: hasWire ? "this is the model's context of a Kimi CLI session (no times, no sub-agents, no tokens by kind): the session's wire.jsonl beside it has them; open it" : "this is the model's context of a Kimi CLI session: it records no times (t counts records), no sub-agents and no tokens by kind", range: lineRange(0, 0) });
  summarize(reader, problems);
  const costs = wireCosts(reader, out);
  delete costs.wall_clock_s;
  const session = baseName(dirName(fileName));
  const metadata: Json = { source_format: 'kimi-context', time: 'record-index', turns: reader.summary.turns.length, checkpoints, context_tokens: usage, wire_beside: hasWire };
  if (session) metadata.session_id = session;
  return out.finish('kimi-context', { system: 'kimi-cli', costs, metadata, ...(session ? { trace_id: session } : {}) });
}

/** True when the first lines are context.jsonl records: a bookkeeping record (`_system_prompt`, `_checkpoint`, `_usage`) among them. */
export function isKimiContextText(text: string): boolean {
  return firstJsonLines(text, 8).some((l) => isObject(l) && typeof l.role === 'string' && BOOKKEEPING.has(l.role));
}

/** The kimi-cli context.jsonl format. */
export const kimiContextFormat: TraceFormat = {
  id: 'kimi-context',
  label: 'Kimi CLI session context.jsonl',
  detect: (text) => isKimiContextText(text),
  read: (text, fileName, files) => readKimiContext(text, fileName, files),
};

registerFormat(kimiContextFormat);
