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
 * exact via BigInt); duration_s = end - start. Tokens = input + output tokens (gen_ai.usage.* or
 * llm.token_count.*), on model-call events; an agent span's own usage counts only when no span under
 * it carries usage (it is usually the sum of its children).
 * Edges: parent span -> child span `causal`; delegate -> return and tool_call -> tool_result `return`;
 * create_agent -> the created agent's first invocation `spawn`; return -> stop `causal`.
 * Metadata: `metadata.otel` = { trace_ids, services, spans, skipped_spans {operation: count}, agent_ids {name: id} }.
 * There are no labels (ground truth) in this format.
 */
import type { Node } from 'jsonc-parser';
import { firstJsonLines, registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace, type Origin } from '../model';
import type { StopReason, TraceEvent } from '../schema';
import { ImportBuilder, baseName } from './json-import';
import { isComplete, items, nodeRange, parseJsonDocument, propertyOf, valueIn, type JsonDocument } from '../json-positions';

export const OTEL_FORMAT = 'otel-genai';

type Kind = 'create_agent' | 'invoke_agent' | 'tool' | 'llm' | 'chain' | 'guardrail' | 'other';

/** One span as read. Times in nanoseconds since the epoch. */
interface SpanRec {
  ordinal: number;
  origin: Origin;
  traceId: string;
  spanId: string;
  id: string;
  parentSpanId?: string;
  name: string;
  start?: bigint;
  end?: bigint;
  attrs: Record<string, unknown>;
  error?: string;
  service?: string;
  kind: Kind;
  operation: string;
  parent?: SpanRec;
  depth: number;
}

/** Reads OTLP JSON (JSON Lines or one document). Never throws: problems are returned with positions. */
export function readOtel(text: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const lines = new LineIndex(text);
  const spans: SpanRec[] = [];
  forEachDocument(text, lines, (doc) => {
    b.problems.push(...doc.problems);
    collectSpans(doc, spans, b);
  });
  return buildTrace(spans, b, fileName);
}

/**
 * Calls `fn` with each JSON document of the file: one per non-blank line for JSON Lines, else the
 * whole text. One at a time, so each line's tree is garbage once it has been read.
 */
function forEachDocument(text: string, lines: LineIndex, fn: (doc: JsonDocument) => void): void {
  const firstLines = firstJsonLines(text, 2);
  const jsonl = firstLines.length === 2 && isObject(firstLines[0]);
  if (!jsonl) return fn(parseJsonDocument(text, lines));
  for (let n = 0; n < lines.lineCount; n++) {
    const start = lines.lineStart(n);
    const end = n + 1 < lines.lineCount ? lines.lineStart(n + 1) - 1 : text.length;
    const line = text.slice(start, end);
    if (line.trim() === '') continue;
    fn(parseJsonDocument(line, lines, start));
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Walks resourceSpans[].scopeSpans[].spans[] of one document. */
function collectSpans(doc: JsonDocument, spans: SpanRec[], b: ImportBuilder): void {
  const root = doc.root;
  if (!root) return;
  const roots = root.type === 'array' ? items(root) : [root];
  for (const r of roots) {
    for (const rs of items(propertyOf(r, 'resourceSpans', 'resource_spans'))) {
      const resource = valueIn(doc, propertyOf(rs, 'resource'));
      const service = isObject(resource) ? attributes(resource.attributes)['service.name'] : undefined;
      for (const ss of items(propertyOf(rs, 'scopeSpans', 'scope_spans', 'instrumentationLibrarySpans', 'instrumentation_library_spans'))) {
        for (const node of items(propertyOf(ss, 'spans'))) readSpan(doc, node, typeof service === 'string' ? service : undefined, spans, b);
      }
    }
  }
}

function readSpan(doc: JsonDocument, node: Node, service: string | undefined, spans: SpanRec[], b: ImportBuilder): void {
  const ordinal = spans.length;
  const range = nodeRange(doc, node);
  if (!isComplete(doc, node)) {
    b.problem('error', `span ${ordinal} is cut off; skipped`, range);
    return;
  }
  const v = valueIn(doc, node);
  if (!isObject(v)) {
    b.problem('error', `span ${ordinal} must be an object; skipped`, range);
    return;
  }
  const spanId = str(v.spanId ?? v.span_id);
  if (!spanId) {
    b.problem('error', `span ${ordinal} has no "spanId"; skipped`, range);
    return;
  }
  const attrs = attributes(v.attributes);
  const status = isObject(v.status) ? v.status : undefined;
  const errorStatus = status && (status.code === 2 || status.code === 'STATUS_CODE_ERROR' || status.code === 'ERROR');
  const errorType = str(attrs['error.type']);
  const start = nanos(v.startTimeUnixNano ?? v.start_time_unix_nano);
  const end = nanos(v.endTimeUnixNano ?? v.end_time_unix_nano);
  if (start === undefined) b.problem('warning', `span ${spanId} has no start time; placed at its parent's start`, range);
  const { kind, operation } = classify(attrs);
  spans.push({
    ordinal,
    origin: { range, record: ordinal },
    traceId: str(v.traceId ?? v.trace_id) ?? '',
    spanId,
    id: spanId,
    parentSpanId: str(v.parentSpanId ?? v.parent_span_id) || undefined,
    name: str(v.name) ?? '',
    start,
    end,
    attrs,
    error: errorStatus || errorType ? (str(status?.message) || errorType || 'error') : undefined,
    service,
    kind,
    operation,
    depth: 0,
  });
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

/** An OTLP AnyValue as a JS value (intValue may be a string in OTLP/JSON). */
function anyValue(v: unknown): unknown {
  if (!isObject(v)) return v;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return isObject(v.arrayValue) && Array.isArray(v.arrayValue.values) ? v.arrayValue.values.map(anyValue) : [];
  if ('kvlistValue' in v) return isObject(v.kvlistValue) ? attributes(v.kvlistValue.values) : {};
  if ('bytesValue' in v) return v.bytesValue;
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Nanoseconds since the epoch from a string/number of nanoseconds, or an ISO date string. */
function nanos(v: unknown): bigint | undefined {
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.round(v));
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    if (!Number.isNaN(ms)) return BigInt(ms) * 1_000_000n;
  }
  return undefined;
}

/** The span's role, from gen_ai.operation.name or openinference.span.kind. */
function classify(attrs: Record<string, unknown>): { kind: Kind; operation: string } {
  const op = str(attrs['gen_ai.operation.name']);
  const oi = str(attrs['openinference.span.kind'])?.toUpperCase();
  const operation = op ?? (oi ? `openinference:${oi}` : 'none');
  if (op === 'create_agent') return { kind: 'create_agent', operation };
  if (op === 'invoke_agent' || oi === 'AGENT') return { kind: 'invoke_agent', operation };
  if (op === 'execute_tool' || op === 'retrieval' || oi === 'TOOL' || oi === 'RETRIEVER' || oi === 'RERANKER') return { kind: 'tool', operation };
  if (op === 'chat' || op === 'generate_content' || op === 'text_completion' || op === 'embeddings' || oi === 'LLM' || oi === 'EMBEDDING') return { kind: 'llm', operation };
  if (op === 'invoke_workflow' || oi === 'CHAIN') return { kind: 'chain', operation };
  if (oi === 'GUARDRAIL') return { kind: 'guardrail', operation };
  return { kind: 'other', operation };
}

/** The span's own agent name (no inheritance). */
function ownAgent(s: SpanRec): string | undefined {
  const a = str(s.attrs['gen_ai.agent.name']) || str(s.attrs['agent.name']) || str(s.attrs['gen_ai.agent.id']);
  if (a) return a;
  if (s.kind === 'invoke_agent' || s.kind === 'create_agent') {
    const m = /^(?:invoke_agent|create_agent)\s+(.+)$/.exec(s.name);
    return m ? m[1] : s.kind === 'invoke_agent' && s.name ? s.name : undefined;
  }
  return undefined;
}

/** Text of GenAI messages (`[{role, parts:[{type:'text', content}]}]`, possibly as a JSON string), or a plain value. */
function messagesText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  let value = v;
  if (typeof v === 'string') {
    const t = v.trim();
    if (!(t.startsWith('[') || t.startsWith('{'))) return v;
    try {
      value = JSON.parse(t);
    } catch {
      return v;
    }
  }
  const list = Array.isArray(value) ? value : [value];
  const texts: string[] = [];
  for (const m of list) {
    if (!isObject(m)) continue;
    if (Array.isArray(m.parts)) {
      for (const p of m.parts) if (isObject(p) && typeof p.content === 'string') texts.push(p.content);
    } else if (typeof m.content === 'string') texts.push(m.content);
  }
  return texts.length ? texts.join('\n') : typeof v === 'string' ? v : JSON.stringify(v);
}

function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Input + output tokens of a span, or undefined when it records none. */
function tokensOf(a: Record<string, unknown>): number | undefined {
  const input = num(a['gen_ai.usage.input_tokens']) ?? num(a['gen_ai.usage.prompt_tokens']) ?? num(a['llm.token_count.prompt']);
  const output = num(a['gen_ai.usage.output_tokens']) ?? num(a['gen_ai.usage.completion_tokens']) ?? num(a['llm.token_count.completion']);
  if (input !== undefined || output !== undefined) return (input ?? 0) + (output ?? 0);
  return num(a['llm.token_count.total']);
}

function finishReasons(a: Record<string, unknown>): string[] | undefined {
  const v = a['gen_ai.response.finish_reasons'] ?? a['llm.finish_reason'];
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') return v.startsWith('[') ? (safeJson(v) as string[] | undefined) ?? [v] : [v];
  return undefined;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** A finish reason as a stop reason; undefined when the agent went on (tool calls). */
function stopReasonOf(reason: string): StopReason | undefined {
  const r = reason.toLowerCase();
  if (/tool|function/.test(r)) return undefined;
  if (r === 'stop' || r === 'end_turn' || r === 'stop_sequence' || r === 'complete' || r === 'completed' || r === 'finish') return 'task_complete';
  if (/length|max_tokens|token_limit|max_output/.test(r)) return 'budget_exhausted';
  if (/max_turns|max_iterations|max_steps|recursion/.test(r)) return 'max_turns';
  if (/timeout|time_limit/.test(r)) return 'timeout';
  if (/error|fail/.test(r)) return 'error';
  return 'unknown';
}

function buildTrace(spans: SpanRec[], b: ImportBuilder, fileName: string): LoadedTrace {
  // Ids and the parent tree.
  const byKey = new Map<string, SpanRec>();
  const seen = new Map<string, number>();
  for (const s of spans) {
    const n = seen.get(s.spanId) ?? 0;
    seen.set(s.spanId, n + 1);
    if (n > 0) {
      s.id = `${s.spanId}~${n}`;
      b.problem('warning', `span id ${s.spanId} appears ${n + 1} times; this one is "${s.id}"`, s.origin.range);
    }
    if (!byKey.has(`${s.traceId}/${s.spanId}`)) byKey.set(`${s.traceId}/${s.spanId}`, s);
  }
  for (const s of spans) if (s.parentSpanId) s.parent = byKey.get(`${s.traceId}/${s.parentSpanId}`);
  const depthOf = (s: SpanRec, guard = 0): number => (s.parent && guard < 1000 ? depthOf(s.parent, guard + 1) + 1 : 0);
  for (const s of spans) s.depth = depthOf(s);
  // Spans without a start take their parent's; times relative to the earliest start.
  const startOf = (s: SpanRec, guard = 0): bigint | undefined => s.start ?? (s.parent && guard < 1000 ? startOf(s.parent, guard + 1) : undefined);
  let t0: bigint | undefined;
  for (const s of spans) if (s.start !== undefined && (t0 === undefined || s.start < t0)) t0 = s.start;
  const seconds = (ns: bigint | undefined): number => (ns === undefined || t0 === undefined ? 0 : Math.max(0, Number(ns - t0) / 1e9));

  // Lanes.
  const laneMemo = new Map<SpanRec, string>();
  const lane = (s: SpanRec, guard = 0): string => {
    const memo = laneMemo.get(s);
    if (memo) return memo;
    const l = ownAgent(s) ?? (s.parent && guard < 1000 ? lane(s.parent, guard + 1) : undefined) ?? s.service ?? 'agent';
    laneMemo.set(s, l);
    return l;
  };
  const callerOf = (s: SpanRec): string => (s.parent ? lane(s.parent) : s.service && s.service !== lane(s) ? s.service : 'user');
  const mapped = (s: SpanRec): boolean => s.kind !== 'other';
  const mappedAncestor = (s: SpanRec): SpanRec | undefined => {
    let p = s.parent;
    for (let guard = 0; p && guard < 1000; guard++, p = p.parent) if (mapped(p)) return p;
    return undefined;
  };
  const usageBelow = new Set<SpanRec>();
  for (const s of spans) {
    if (tokensOf(s.attrs) === undefined) continue;
    for (let p = s.parent, guard = 0; p && guard < 1000; p = p.parent, guard++) usageBelow.add(p);
  }

  // Events with sort keys: (t, start before end, parents first at start and last at end, file order).
  const pending: { event: TraceEvent; origin: Origin; key: [number, number, number, number, number] }[] = [];
  const push = (event: TraceEvent, s: SpanRec, atEnd: boolean, sub = 0): void => {
    pending.push({ event, origin: s.origin, key: [event.t, atEnd ? 1 : 0, atEnd ? -s.depth : s.depth, s.ordinal, sub] });
  };
  const skipped: Record<string, number> = {};
  const agentIds: Record<string, string> = {};
  const firstInvoke = new Map<string, string>();
  const created = new Map<string, string>();
  for (const s of spans) {
    const a = s.attrs;
    const t = seconds(startOf(s));
    const tEnd = s.end !== undefined ? Math.max(t, seconds(s.end)) : t;
    const duration = s.end !== undefined && startOf(s) !== undefined ? tEnd - t : undefined;
    const parentEvent = mappedAncestor(s)?.id;
    const causes = parentEvent ? [parentEvent] : undefined;
    const agentId = str(a['gen_ai.agent.id']);
    const name = ownAgent(s);
    if (agentId && name && agentId !== name) agentIds[name] = agentId;
    const model = str(a['gen_ai.request.model']) ?? str(a['gen_ai.response.model']) ?? str(a['llm.model_name']);
    const input = messagesText(a['gen_ai.input.messages']) ?? str(a['input.value']);
    const output = messagesText(a['gen_ai.output.messages']) ?? str(a['output.value']);
    const tokens = tokensOf(a);
    switch (s.kind) {
      case 'create_agent': {
        const agent = lane(s);
        push({ id: s.id, t, type: 'spawn', agent: callerOf(s), from: callerOf(s), to: agent, duration_s: duration, content: str(a['gen_ai.agent.description']), model, parent: parentEvent, causes, span_name: s.name }, s, false);
        created.set(agent, s.id);
        break;
      }
      case 'invoke_agent': {
        const agent = lane(s);
        const caller = callerOf(s);
        push({ id: s.id, t, type: 'delegate', agent: caller, from: caller, to: agent, duration_s: duration, content: input, parent: parentEvent, causes, span_name: s.name }, s, false);
        const ownTokens = usageBelow.has(s) ? undefined : tokens;
        push({ id: `${s.id}.return`, t: tEnd, type: 'return', agent, from: agent, to: caller, content: output, tokens: ownTokens, model, parent: s.id, causes: [s.id], error: s.error }, s, true, 0);
        b.edge(s.id, `${s.id}.return`, 'return');
        if (!firstInvoke.has(agent)) firstInvoke.set(agent, s.id);
        const reasons = finishReasons(a);
        const last = reasons?.[reasons.length - 1];
        const reason: StopReason | undefined = s.error ? 'error' : last !== undefined ? stopReasonOf(last) : undefined;
        if (reason) {
          push({ id: `${s.id}.stop`, t: tEnd, type: 'stop', agent, reason, decided_by: agent, detail: s.error ?? `finish_reasons ${JSON.stringify(reasons)}`, parent: s.id, causes: [`${s.id}.return`] }, s, true, 1);
          b.edge(`${s.id}.return`, `${s.id}.stop`, 'causal');
        }
        break;
      }
      case 'tool': {
        const agent = lane(s);
        const tool = str(a['gen_ai.tool.name']) ?? str(a['tool.name']) ?? (s.name.replace(/^execute_tool\s+/, '') || 'tool');
        const args = a['gen_ai.tool.call.arguments'] ?? a['tool.parameters'];
        const result = a['gen_ai.tool.call.result'];
        push({ id: s.id, t, type: 'tool_call', agent, tool, from: agent, duration_s: duration, content: args !== undefined ? (typeof args === 'string' ? args : JSON.stringify(args)) : input, tool_call_id: str(a['gen_ai.tool.call.id']), parent: parentEvent, causes, span_name: s.name }, s, false);
        push({ id: `${s.id}.result`, t: tEnd, type: 'tool_result', agent, tool, content: result !== undefined ? (typeof result === 'string' ? result : JSON.stringify(result)) : output, error: s.error, parent: s.id, causes: [s.id] }, s, true);
        b.edge(s.id, `${s.id}.result`, 'return');
        break;
      }
      case 'llm':
        push({ id: s.id, t, type: 'message', agent: lane(s), from: lane(s), duration_s: duration, tokens, model, finish_reasons: finishReasons(a), content: output ?? input, error: s.error, parent: parentEvent, causes, span_name: s.name }, s, false);
        break;
      case 'chain':
        push({ id: s.id, t, type: 'orchestrator_decision', agent: lane(s), duration_s: duration, content: s.name, error: s.error, parent: parentEvent, causes, span_name: s.name }, s, false);
        break;
      case 'guardrail':
        push({ id: s.id, t, type: 'safety_event', agent: lane(s), duration_s: duration, content: output ?? s.name, parent: parentEvent, causes, span_name: s.name }, s, false);
        break;
      default:
        skipped[s.operation === 'none' ? s.name || 'unnamed' : s.operation] = (skipped[s.operation === 'none' ? s.name || 'unnamed' : s.operation] ?? 0) + 1;
    }
    if (mapped(s) && parentEvent) b.edge(parentEvent, s.id, 'causal');
  }
  for (const [agent, spawnId] of created) {
    const invoke = firstInvoke.get(agent);
    if (invoke) b.edge(spawnId, invoke, 'spawn');
  }
  pending.sort((x, y) => {
    for (let i = 0; i < 5; i++) if (x.key[i] !== y.key[i]) return x.key[i] - y.key[i];
    return 0;
  });
  for (const p of pending) b.add(p.event, p.origin);

  const traceIds = [...new Set(spans.map((s) => s.traceId).filter(Boolean))];
  const services = [...new Set(spans.map((s) => s.service).filter((x): x is string => !!x))];
  const otel: Record<string, unknown> = { trace_ids: traceIds, services, spans: spans.length };
  if (Object.keys(skipped).length) otel.skipped_spans = skipped;
  if (Object.keys(agentIds).length) otel.agent_ids = agentIds;
  return b.finish(OTEL_FORMAT, {
    trace_id: traceIds[0] ?? baseName(fileName),
    system: services[0],
    metadata: { source: 'otel', otel },
  });
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
