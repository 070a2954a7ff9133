/**
 * Where GenAI content lives in OpenTelemetry spans, and how to read it as text. Conventions read:
 * - attributes `gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions`
 *   (GenAI semantic conventions 1.37+; messages of `{role, parts:[{type, content | id, name,
 *   arguments | response}]}`), as JSON strings or structured values;
 * - the same attributes on the span event `gen_ai.client.inference.operation.details` (1.37+);
 * - the older per-message span events `gen_ai.system.message`, `gen_ai.user.message`,
 *   `gen_ai.assistant.message`, `gen_ai.tool.message` and `gen_ai.choice` (conventions up to 1.36),
 *   content in the `gen_ai.event.content` attribute (a JSON string) or in plain attributes;
 * - the older `gen_ai.prompt` / `gen_ai.completion` events and attributes;
 * - the same events written as log records (./otel-logs.ts): the older ones carry the message in the body;
 * - OpenInference: `input.value` / `output.value` and the flattened
 *   `llm.input_messages.<i>.message.content` / `llm.output_messages.<i>.message.content`.
 * Values are kept whole. Nothing here guesses a stop reason from free text: finish reasons are
 * only read from the fields that record them.
 */
import type { StopReason } from '../schema';

/** A span event as read: name, time (ns, when recorded) and attributes; a log record's body too (./otel-logs.ts). */
export interface SpanEvent {
  name: string;
  time?: bigint;
  attrs: Record<string, unknown>;
  /** The body of an event written as a log record: the older per-message events keep their message there. */
  body?: unknown;
}

/** The content of one span, as text. */
export interface SpanContent {
  input?: string;
  output?: string;
  /** Finish reasons recorded in the span's events (`gen_ai.choice.finish_reason`, output messages' `finish_reason`). */
  finishReasons?: string[];
  /** Tool calls the model asked for: call id -> `name(arguments)` text and the arguments alone. */
  toolCalls: { id: string; name?: string; arguments?: string }[];
  /** Tool results the span carries (a tool span's own result, or results fed to a model), by call id ('' when unnamed). */
  toolResults: { id: string; content: string }[];
  /** The text of the first input message whose role is `user` (the prompt), when there is one. */
  firstUser?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!(t.startsWith('[') || t.startsWith('{'))) return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

const asText = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * Reads messages in any of the shapes above (new `parts`, old `{role, content, tool_calls}`, a
 * choice `{message, finish_reason}`) into `out` and returns their text (undefined when none).
 */
function readMessages(raw: unknown, out: SpanContent, input = false): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const value = parseMaybeJson(raw);
  if (typeof value === 'string') return value;
  const list = Array.isArray(value) ? value : [value];
  const texts: string[] = [];
  for (let m of list) {
    if (typeof m === 'string') {
      texts.push(m);
      continue;
    }
    if (!isObject(m)) continue;
    if (typeof m.finish_reason === 'string') (out.finishReasons ??= []).push(m.finish_reason);
    if (isObject(m.message)) m = m.message; // an old `gen_ai.choice`
    const msg = m as Record<string, unknown>;
    const before = texts.length;
    if (Array.isArray(msg.parts)) {
      for (const p of msg.parts) {
        if (!isObject(p)) continue;
        if (typeof p.content === 'string') texts.push(p.content);
        else if (p.type === 'tool_call') {
          const args = asText(p.arguments);
          const id = typeof p.id === 'string' ? p.id : '';
          out.toolCalls.push({ id, name: asText(p.name), arguments: args });
          texts.push(`${asText(p.name) ?? 'tool'}(${args ?? ''})`);
        } else if (p.type === 'tool_call_response') {
          const r = asText(p.response) ?? '';
          out.toolResults.push({ id: typeof p.id === 'string' ? p.id : '', content: r });
          texts.push(r);
        } else if (p.content !== undefined) texts.push(asText(p.content)!);
      }
    } else if (msg.content !== undefined && msg.content !== null) {
      const c = asText(msg.content)!;
      texts.push(c);
      if (msg.role === 'tool') out.toolResults.push({ id: typeof msg.id === 'string' ? msg.id : typeof msg.tool_call_id === 'string' ? msg.tool_call_id : '', content: c });
    }
    if (Array.isArray(msg.tool_calls)) {
      for (const tc of msg.tool_calls) {
        if (!isObject(tc)) continue;
        const fn = isObject(tc.function) ? tc.function : tc;
        const args = asText(fn.arguments);
        out.toolCalls.push({ id: typeof tc.id === 'string' ? tc.id : '', name: asText(fn.name), arguments: args });
        texts.push(`${asText(fn.name) ?? 'tool'}(${args ?? ''})`);
      }
    }
    if (input && msg.role === 'user' && out.firstUser === undefined && texts.length > before) out.firstUser = texts.slice(before).join('\n');
  }
  return texts.length ? texts.join('\n') : typeof raw === 'string' ? raw : JSON.stringify(raw);
}

/** OpenInference flattened messages (`<prefix>.<i>.message.content`) in index order, or undefined. */
function flattened(attrs: Record<string, unknown>, prefix: string): string | undefined {
  const found: [number, string][] = [];
  const head = `${prefix}.`;
  for (const k in attrs) {
    if (!k.startsWith(head) || !k.endsWith('.message.content')) continue;
    const index = k.slice(head.length, k.length - '.message.content'.length);
    const v = attrs[k];
    if (/^\d+$/.test(index) && v !== undefined && v !== null) found.push([Number(index), asText(v)!]);
  }
  if (!found.length) return undefined;
  return found.sort((a, b) => a[0] - b[0]).map((x) => x[1]).join('\n');
}

const OLD_INPUT_EVENTS = new Set(['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.assistant.message', 'gen_ai.tool.message', 'gen_ai.prompt']);
const OLD_OUTPUT_EVENTS = new Set(['gen_ai.choice', 'gen_ai.completion']);

/** True for an event that carries GenAI content (the older per-message events, the operation-details event). */
export function isContentEvent(name: string): boolean {
  return OLD_INPUT_EVENTS.has(name) || OLD_OUTPUT_EVENTS.has(name) || name === 'gen_ai.client.inference.operation.details';
}

/** The content of an old per-message event: a log record's body, else `gen_ai.event.content`, else the event's own attributes. */
function oldEventBody(e: SpanEvent): unknown {
  if (e.body !== undefined && e.body !== null) {
    // the tool message's body is `{content, id}`: its role is the event's
    const role = e.name === 'gen_ai.tool.message' ? 'tool' : e.name === 'gen_ai.user.message' ? 'user' : undefined;
    return isObject(e.body) ? { ...e.body, role: e.body.role ?? role } : e.body;
  }
  const a = e.attrs;
  if (a['gen_ai.event.content'] !== undefined) return a['gen_ai.event.content'];
  if (a['gen_ai.prompt'] !== undefined) return a['gen_ai.prompt'];
  if (a['gen_ai.completion'] !== undefined) return a['gen_ai.completion'];
  if (a.content !== undefined || a.message !== undefined || a.tool_calls !== undefined) {
    const { content, message, tool_calls, finish_reason, role, id } = a;
    return { content, message, tool_calls, finish_reason, role: role ?? (e.name === 'gen_ai.tool.message' ? 'tool' : e.name === 'gen_ai.user.message' ? 'user' : undefined), id };
  }
  return undefined;
}

/**
 * The content of a span from its attributes and its events (attributes first; events fill what
 * the attributes lack).
 */
export function spanContent(attrs: Record<string, unknown>, events: readonly SpanEvent[]): SpanContent {
  const out: SpanContent = { toolCalls: [], toolResults: [] };
  const merged: Record<string, unknown> = {};
  for (const e of events) {
    for (const k of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions']) {
      if (e.attrs[k] !== undefined && merged[k] === undefined) merged[k] = e.attrs[k];
    }
  }
  const get = (k: string) => attrs[k] ?? merged[k];
  const inputs: string[] = [];
  const system = readMessages(get('gen_ai.system_instructions'), out);
  if (system) inputs.push(system);
  const newInput = readMessages(get('gen_ai.input.messages'), out, true);
  if (newInput) inputs.push(newInput);
  const oldOutputs: string[] = [];
  if (!newInput) {
    for (const e of events) {
      if (OLD_INPUT_EVENTS.has(e.name)) {
        const t = readMessages(oldEventBody(e), out, true);
        if (t) inputs.push(t);
      }
    }
  }
  let output = readMessages(get('gen_ai.output.messages'), out);
  if (!output) {
    for (const e of events) {
      if (OLD_OUTPUT_EVENTS.has(e.name)) {
        const t = readMessages(oldEventBody(e), out);
        if (t) oldOutputs.push(t);
      }
    }
    if (oldOutputs.length) output = oldOutputs.join('\n');
  }
  const input = inputs.length ? inputs.join('\n') : (asText(attrs['gen_ai.prompt']) ?? flattened(attrs, 'llm.input_messages') ?? asText(attrs['input.value']));
  output ??= asText(attrs['gen_ai.completion']) ?? flattened(attrs, 'llm.output_messages') ?? asText(attrs['output.value']);
  if (input !== undefined) out.input = input;
  if (output !== undefined) out.output = output;
  return out;
}

/**
 * A model call's finish reason (GenAI `gen_ai.response.finish_reasons`, OpenAI `finish_reason`,
 * Anthropic `stop_reason`) as a stop reason; undefined when the agent went on (tool calls).
 */
export function stopReasonOf(reason: string): StopReason | undefined {
  const r = reason.toLowerCase();
  if (/tool|function/.test(r)) return undefined;
  if (r === 'stop' || r === 'end_turn' || r === 'stop_sequence' || r === 'complete' || r === 'completed' || r === 'finish') return 'task_complete';
  if (/length|max_tokens|token_limit|max_output/.test(r)) return 'budget_exhausted';
  if (/max_turns|max_iterations|max_steps|recursion/.test(r)) return 'max_turns';
  if (/timeout|time_limit/.test(r)) return 'timeout';
  if (/error|fail/.test(r)) return 'error';
  return 'unknown';
}

/** Nanoseconds as milliseconds for messages, one decimal (`2.9 ms`). */
export const ms = (ns: bigint): string => `${Math.round(Number(ns) / 1e5) / 10} ms`;
