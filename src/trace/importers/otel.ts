/**
 * Importer for OpenTelemetry GenAI spans in OTLP/JSON: the file exporter's JSON Lines (one
 * `TracesData` / `ExportTraceServiceRequest` object per line) or one OTLP JSON document, each holding
 * `resourceSpans[].scopeSpans[].spans[]` (also `instrumentationLibrarySpans`, snake_case keys, and
 * attributes as a plain object). Conventions followed: OpenTelemetry semantic conventions for GenAI
 * agent spans (docs/gen-ai/gen-ai-agent-spans.md, gen-ai-spans.md; status Development) and
 * OpenInference span kinds (`openinference.span.kind`).
 *
 * Span -> events (`record` = the span's 0-based ordinal in the file, range = the span object;
 * ids = the span id, derived events `<spanId>.return` / `.result` / `.stop`):
 * - `create_agent` -> `spawn` (creator's lane -> the created agent);
 * - `invoke_agent` / OpenInference AGENT -> `delegate` at start (caller lane -> agent) and `return`
 *   at end (agent -> caller), plus `stop` at end in the agent's lane when the span records why it
 *   ended: `gen_ai.response.finish_reasons` (last one: stop/end_turn -> task_complete, length/
 *   max_tokens -> budget_exhausted, timeout, error; tool_calls means it went on: no stop) or an
 *   ERROR status / `error.type` (-> error);
 * - `execute_tool` / OpenInference TOOL, RETRIEVER, RERANKER, op `retrieval` -> `tool_call` at start
 *   and `tool_result` at end (tool = `gen_ai.tool.name` / `tool.name`);
 * - `chat`, `generate_content`, `text_completion`, `embeddings` / OpenInference LLM, EMBEDDING ->
 *   `message` (tokens, `finish_reasons`, `model`);
 * - `invoke_workflow` / OpenInference CHAIN -> `orchestrator_decision`; OpenInference GUARDRAIL ->
 *   `safety_event`; other spans give no event (counted in metadata) but still pass on their lane.
 * Lane: `gen_ai.agent.name`, else `agent.name` (OpenInference), else `gen_ai.agent.id`, else the
 * nearest ancestor's lane, else the resource's `service.name`. The caller of an agent is its parent's lane.
 * Time: t = seconds since the earliest span start (start/endTimeUnixNano as strings or numbers,
 * exact via BigInt); duration_s = end - start. Tokens by kind (`usage`: input less its cached part,
 * output, cache read / write, reasoning; gen_ai.usage.* or llm.token_count.*) on model-call events,
 * whose own `tokens` are the output; an agent span's own usage counts only when no span under it
 * carries usage (it is usually the sum of its children).
 * Edges: parent span -> child span `causal`; delegate -> return and tool_call -> tool_result `return`;
 * create_agent -> the created agent's first invocation `spawn`; return -> stop `causal`; a span
 * link -> `link` (never parentage).
 * The tree (parentage, clock skew, open spans, orphans, cycles, links) comes from the span-tree
 * core (`../span-tree.ts`, rules in docs/model.md): a child that starts before its parent is placed
 * at the parent's start with `clock_skew_s` and `recorded_t`; an open span (no end, end 0) has no
 * `duration_s`, `open: true`, and no invented end event (no return, no tool result: the call's
 * `status` is `no_result`); orphans hang under a `missing_parent` placeholder; a parent cycle is cut
 * at its earliest span. Content comes from attributes and span events (./otel-content.ts).
 * Metadata: `metadata.otel` = { trace_ids, services, spans, skipped_spans {operation: count}, agent_ids {name: id},
 * missing_parents, cut_parent_edges }. Spans that give no event are counted by kind in one warning.
 * There are no labels (ground truth) in this format. The span -> event mapping, lanes and the tree's
 * warnings are the shared span builder's (./span-import.ts `buildSpanTrace`); this file reads OTLP.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace, type Origin } from '../model';
import { normalizeSpanId } from '../span-tree';
import { ImportBuilder } from './json-import';
import { spanContent, type SpanContent, type SpanEvent } from './otel-content';
import { buildSpanTrace, forEachDocument, genAiSpan, str, text as asText, type ImportSpan } from './span-import';
import { isComplete, items, nodeRange, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';

export const OTEL_FORMAT = 'otel-genai';

/** One OTLP span as read, before the tool calls of the whole file are known. */
interface OtlpSpan {
  span: ImportSpan;
  attrs: Record<string, unknown>;
  events: SpanEvent[];
  content: SpanContent;
}

/** Reads OTLP JSON (JSON Lines or one document). Never throws: problems are returned with positions. */
export function readOtel(text: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const lines = new LineIndex(text);
  const read: OtlpSpan[] = [];
  forEachDocument(text, lines, (doc) => {
    b.problems.push(...doc.problems);
    collectSpans(doc, read, b);
  });
  const spans = withToolContent(read);
  const agentIds: Record<string, string> = {};
  for (const r of read) {
    const id = str(r.attrs['gen_ai.agent.id']);
    if (id && r.span.agent && id !== r.span.agent) agentIds[r.span.agent] = id;
  }
  return buildSpanTrace(spans, b, fileName, {
    format: OTEL_FORMAT,
    source: 'otel',
    metaKey: 'otel',
    figures: Object.keys(agentIds).length ? { agent_ids: agentIds } : undefined,
    skipWhy: 'not GenAI / OpenInference operations',
    notes: spanEventNote(read),
    maxTurnsFromError: false,
  });
}

/** Walks resourceSpans[].scopeSpans[].spans[] of one document. */
function collectSpans(doc: JsonDocument, spans: OtlpSpan[], b: ImportBuilder): void {
  const root = doc.root;
  if (!root) return;
  const roots = root.type === 'array' ? items(root) : [root];
  for (const r of roots) {
    for (const rs of items(propertyOf(r, 'resourceSpans', 'resource_spans'))) {
      const resource = sharedValueIn(doc, propertyOf(rs, 'resource'));
      const service = isObject(resource) ? attributes(resource.attributes)['service.name'] : undefined;
      for (const ss of items(propertyOf(rs, 'scopeSpans', 'scope_spans', 'instrumentationLibrarySpans', 'instrumentation_library_spans'))) {
        for (const node of items(propertyOf(ss, 'spans'))) readSpan(doc, node, typeof service === 'string' ? service : undefined, spans, b);
      }
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An id field as normalized hex (see {@link normalizeSpanId}), or undefined when absent or empty. */
function idOf(v: unknown): string | undefined {
  const s = str(v);
  return s ? normalizeSpanId(s) : undefined;
}

/** True for an OTLP status code that means error (2, "STATUS_CODE_ERROR", "ERROR", any case). */
function isErrorCode(code: unknown): boolean {
  return code === 2 || code === '2' || (typeof code === 'string' && /^(status_code_)?error$/i.test(code));
}

function readSpan(doc: JsonDocument, node: Node, service: string | undefined, spans: OtlpSpan[], b: ImportBuilder): void {
  const ordinal = spans.length;
  const range = nodeRange(doc, node);
  if (!isComplete(doc, node)) {
    b.problem('error', `span ${ordinal} is cut off; skipped`, range);
    return;
  }
  const v = sharedValueIn(doc, node);
  if (!isObject(v)) {
    b.problem('error', `span ${ordinal} must be an object; skipped`, range);
    return;
  }
  const spanId = idOf(v.spanId ?? v.span_id);
  if (!spanId) {
    b.problem('error', `span ${ordinal} has no "spanId"; skipped`, range);
    return;
  }
  const attrs = attributes(v.attributes);
  const status = isObject(v.status) ? v.status : undefined;
  const errorStatus = status && isErrorCode(status.code);
  const errorType = str(attrs['error.type']);
  const start = nanos(v.startTimeUnixNano ?? v.start_time_unix_nano);
  const end = nanos(v.endTimeUnixNano ?? v.end_time_unix_nano);
  if (start === undefined) b.problem('warning', `span ${spanId} has no start time; placed at its parent's start`, range);
  const events: SpanEvent[] = [];
  if (Array.isArray(v.events)) {
    for (const e of v.events) if (isObject(e)) events.push({ name: str(e.name) ?? '', time: nanos(e.timeUnixNano ?? e.time_unix_nano), attrs: attributes(e.attributes) });
  }
  const links: ImportSpan['links'] = [];
  if (Array.isArray(v.links)) {
    for (const l of v.links) {
      const linked = isObject(l) ? idOf(l.spanId ?? l.span_id) : undefined;
      if (isObject(l) && linked) links.push({ traceId: idOf(l.traceId ?? l.trace_id) ?? '', spanId: linked, attributes: attributes(l.attributes) });
    }
  }
  for (const e of events) if (e.name === 'exception' && !errorType && !errorStatus) attrs['error.type'] ??= e.attrs['exception.type'];
  const name = str(v.name) ?? '';
  const g = genAiSpan(attrs, name);
  const content = spanContent(attrs, events);
  const origin: Origin = { range, record: ordinal };
  spans.push({
    attrs,
    events,
    content,
    span: {
      ordinal,
      origin,
      traceId: idOf(v.traceId ?? v.trace_id) ?? '',
      spanId,
      id: spanId,
      parentSpanId: idOf(v.parentSpanId ?? v.parent_span_id),
      start,
      end,
      links,
      name,
      ...g,
      input: g.role === 'spawn' ? str(attrs['gen_ai.agent.description']) : g.role === 'chain' ? undefined : content.input,
      output: g.role === 'chain' ? undefined : content.output,
      finishReasons: finishReasons(attrs, content),
      error: errorStatus || errorType ? (str(status?.message) || errorType || 'error') : undefined,
      service,
    },
  });
}

/**
 * The spans with their tool calls' arguments and results: a tool span's own attributes and events
 * first, else what a model output asked for under its call id (arguments) and what was fed back to a
 * model under that id (result).
 */
function withToolContent(read: OtlpSpan[]): ImportSpan[] {
  const argsById = new Map<string, string>();
  const resultById = new Map<string, string>();
  for (const r of read) {
    for (const c of r.content.toolCalls) if (c.id && c.arguments !== undefined && !argsById.has(c.id)) argsById.set(c.id, c.arguments);
    for (const x of r.content.toolResults) if (x.id && !resultById.has(x.id)) resultById.set(x.id, x.content);
  }
  return read.map(({ span, attrs, content }) => {
    if (span.role !== 'tool') return span;
    const callId = str(attrs['gen_ai.tool.call.id']);
    const args = attrs['gen_ai.tool.call.arguments'] ?? attrs['tool.parameters'] ?? (callId ? argsById.get(callId) : undefined);
    const result = attrs['gen_ai.tool.call.result'] ?? content.toolResults[0]?.content ?? content.output ?? (callId ? resultById.get(callId) : undefined);
    return { ...span, input: args !== undefined ? asText(args) : content.input, output: asText(result), extra: callId ? { tool_call_id: callId } : undefined };
  });
}

/** One info when spans carry their GenAI content in span events (older per-message events, or the newer operation-details event). */
function spanEventNote(read: OtlpSpan[]): { severity: 'info'; message: string; ordinal: number }[] {
  const fromEvents = read.filter((r) => r.events.some((e) => e.name.startsWith('gen_ai.')));
  if (!fromEvents.length) return [];
  const older = fromEvents.some((r) => r.events.some((e) => e.name !== 'gen_ai.client.inference.operation.details' && e.name.startsWith('gen_ai.')));
  const newer = fromEvents.some((r) => r.events.some((e) => e.name === 'gen_ai.client.inference.operation.details'));
  const which = older && newer ? 'older per-message events and the newer operation-details event' : newer ? 'the operation-details event' : 'older per-message events';
  const n = fromEvents.length;
  return [{ severity: 'info', message: `${n} span${n > 1 ? 's carry' : ' carries'} GenAI content in span events (${which}); read as well as attributes`, ordinal: fromEvents[0].span.ordinal }];
}

/** OTLP attributes (KeyValue list, or a plain object) as a plain object of JS values. */
function attributes(raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(raw)) {
    for (const kv of raw) if (isObject(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
  } else if (isObject(raw)) {
    Object.assign(out, raw);
  }
  return out;
}

/**
 * An OTLP AnyValue as a JS value, in camelCase or snake_case: string, bool, int (a string in
 * OTLP/JSON: read as a number when it is a safe integer, else kept as its string), double, bytes
 * (kept as written, base64), array, kvlist. A plain JSON value is kept as it is.
 */
function anyValue(v: unknown): unknown {
  if (!isObject(v)) return v;
  const pick = (camel: string, snake: string): [boolean, unknown] => (camel in v ? [true, v[camel]] : snake in v ? [true, v[snake]] : [false, undefined]);
  let [has, x] = pick('stringValue', 'string_value');
  if (has) return x;
  [has, x] = pick('boolValue', 'bool_value');
  if (has) return x;
  [has, x] = pick('intValue', 'int_value');
  if (has) {
    const n = Number(x);
    return Number.isSafeInteger(n) ? n : x;
  }
  [has, x] = pick('doubleValue', 'double_value');
  if (has) return typeof x === 'string' && /^(NaN|-?Infinity)$/.test(x) ? x : Number(x);
  [has, x] = pick('arrayValue', 'array_value');
  if (has) return isObject(x) && Array.isArray(x.values) ? x.values.map(anyValue) : [];
  [has, x] = pick('kvlistValue', 'kvlist_value');
  if (has) return isObject(x) ? attributes(x.values) : {};
  [has, x] = pick('bytesValue', 'bytes_value');
  if (has) return x;
  return undefined;
}

/** Nanoseconds since the epoch from a string/number of nanoseconds, or an ISO date string. */
function nanos(v: unknown): bigint | undefined {
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.round(v));
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    if (!Number.isNaN(ms)) return BigInt(ms) * 1_000_000n;
  }
  return undefined;
}

/** Finish reasons as recorded: the span attribute, else what its events record. */
function finishReasons(a: Record<string, unknown>, content: SpanContent | undefined): string[] | undefined {
  const v = a['gen_ai.response.finish_reasons'] ?? a['llm.finish_reason'];
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') return v.startsWith('[') ? (safeJson(v) as string[] | undefined) ?? [v] : [v];
  return content?.finishReasons;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** OTLP JSON: an object (or a line of one) with `resourceSpans`. */
export const otelFormat: TraceFormat = {
  id: OTEL_FORMAT,
  label: 'OpenTelemetry GenAI spans (OTLP JSON / JSON Lines)',
  detect(text) {
    const head = text.slice(0, 1 << 16);
    return /^\s*[[{]/.test(head) && /"(resourceSpans|resource_spans)"\s*:/.test(head);
  },
  read: (text, fileName) => readOtel(text, fileName),
};

registerFormat(otelFormat, true);
