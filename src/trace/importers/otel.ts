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
 * There are no labels (ground truth) in this format.
 */
import type { Node } from 'jsonc-parser';
import { firstJsonLines, registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace, type Origin, type Range } from '../model';
import type { StopReason, TraceEdge, TraceEvent } from '../schema';
import { buildSpanTree, normalizeSpanId, type SpanTree } from '../span-tree';
import { ImportBuilder, baseName } from './json-import';
import { ms, spanContent, stopReasonOf, type SpanContent, type SpanEvent } from './otel-content';
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
  events: SpanEvent[];
  links: { traceId: string; spanId: string; attributes?: Record<string, unknown> }[];
  error?: string;
  service?: string;
  kind: Kind;
  operation: string;
  parent?: SpanRec;
  depth: number;
  content?: SpanContent;
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

/** An id field as normalized hex (see {@link normalizeSpanId}), or undefined when absent or empty. */
function idOf(v: unknown): string | undefined {
  const s = str(v);
  return s ? normalizeSpanId(s) : undefined;
}

/** True for an OTLP status code that means error (2, "STATUS_CODE_ERROR", "ERROR", any case). */
function isErrorCode(code: unknown): boolean {
  return code === 2 || code === '2' || (typeof code === 'string' && /^(status_code_)?error$/i.test(code));
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
  const links: SpanRec['links'] = [];
  if (Array.isArray(v.links)) {
    for (const l of v.links) {
      const linked = isObject(l) ? idOf(l.spanId ?? l.span_id) : undefined;
      if (isObject(l) && linked) links.push({ traceId: idOf(l.traceId ?? l.trace_id) ?? '', spanId: linked, attributes: attributes(l.attributes) });
    }
  }
  for (const e of events) if (e.name === 'exception' && !errorType && !errorStatus) attrs['error.type'] ??= e.attrs['exception.type'];
  const { kind, operation } = classify(attrs);
  spans.push({
    ordinal,
    origin: { range, record: ordinal },
    traceId: idOf(v.traceId ?? v.trace_id) ?? '',
    spanId,
    id: spanId,
    parentSpanId: idOf(v.parentSpanId ?? v.parent_span_id),
    name: str(v.name) ?? '',
    start,
    end,
    attrs,
    events,
    links,
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

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
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

/** The spans' tree, lanes and events. */
function buildTrace(spans: SpanRec[], b: ImportBuilder, fileName: string): LoadedTrace {
  // Ids: a span id repeated in the file gets `~n` (the tree still resolves parents by the written id).
  const seen = new Map<string, number>();
  for (const s of spans) {
    const n = seen.get(s.spanId) ?? 0;
    seen.set(s.spanId, n + 1);
    if (n > 0) {
      s.id = `${s.spanId}~${n}`;
      b.problem('warning', `span id ${s.spanId} appears ${n + 1} times; this one is "${s.id}"`, s.origin.range);
    }
  }
  const tree = buildSpanTree(spans);
  spans.forEach((s, i) => {
    const p = tree.parent[i];
    if (p !== undefined) s.parent = spans[p];
    s.depth = tree.depth[i];
    s.content = spanContent(s.attrs, s.events);
  });
  let t0: bigint | undefined;
  for (const s of spans) if (s.start !== undefined && (t0 === undefined || s.start < t0)) t0 = s.start;
  const seconds = (ns: bigint | undefined): number => (ns === undefined || t0 === undefined ? 0 : Math.max(0, Number(ns - t0) / 1e9));

  // Lanes: the span's own agent, else its parent's lane; an orphan takes the lane of its trace's
  // first root (the agent its missing parent most likely belonged to), else the service.
  const rootLaneOfTrace = new Map<string, SpanRec>();
  spans.forEach((s, i) => {
    if (tree.parent[i] === undefined && tree.orphanOf[i] === undefined && !rootLaneOfTrace.has(s.traceId)) rootLaneOfTrace.set(s.traceId, s);
  });
  const laneMemo = new Map<SpanRec, string>();
  const lane = (s: SpanRec): string => {
    const chain: SpanRec[] = [];
    let cur: SpanRec | undefined = s;
    let found: string | undefined;
    while (cur) {
      const memo = laneMemo.get(cur);
      if (memo) {
        found = memo;
        break;
      }
      chain.push(cur);
      const own = ownAgent(cur);
      if (own) {
        found = own;
        break;
      }
      if (!cur.parent && tree.orphanOf[cur.ordinal] !== undefined) {
        const root = rootLaneOfTrace.get(cur.traceId);
        if (root && root !== cur) {
          found = laneMemo.get(root) ?? ownAgent(root) ?? root.service;
          break;
        }
      }
      cur = cur.parent;
    }
    const l = found ?? s.service ?? 'agent';
    for (const c of chain) laneMemo.set(c, l);
    return l;
  };
  const callerOf = (s: SpanRec): string => (s.parent ? lane(s.parent) : s.service && s.service !== lane(s) ? s.service : 'user');
  const mapped = (s: SpanRec): boolean => s.kind !== 'other';
  const placeholderOf = (s: SpanRec): string | undefined => {
    const m = tree.orphanOf[s.ordinal];
    return m === undefined ? undefined : `missing:${tree.missing[m].spanId}`;
  };
  const mappedAncestor = (s: SpanRec): string | undefined => {
    let c: SpanRec = s;
    for (let p = s.parent; p; c = p, p = p.parent) if (mapped(p)) return p.id;
    return placeholderOf(c);
  };
  const usageBelow = new Set<SpanRec>();
  for (const s of spans) {
    if (tokensOf(s.attrs) === undefined) continue;
    for (let p = s.parent; p && !usageBelow.has(p); p = p.parent) usageBelow.add(p);
  }
  // Tool calls named by model outputs (arguments) and tool results fed back to models, by call id.
  const argsById = new Map<string, string>();
  const resultById = new Map<string, string>();
  for (const s of spans) {
    for (const c of s.content!.toolCalls) if (c.id && c.arguments !== undefined && !argsById.has(c.id)) argsById.set(c.id, c.arguments);
    for (const r of s.content!.toolResults) if (r.id && !resultById.has(r.id)) resultById.set(r.id, r.content);
  }

  // Events with sort keys: (t, start before end, parents first at start and last at end, file order).
  const pending: { event: TraceEvent; origin: Origin; key: [number, number, number, number, number]; traceId: string }[] = [];
  const push = (event: TraceEvent, s: SpanRec, atEnd: boolean, sub = 0): void => {
    pending.push({ event, origin: s.origin, key: [event.t, atEnd ? 1 : 0, atEnd ? -s.depth : s.depth, s.ordinal, sub], traceId: s.traceId });
  };
  // Placeholders for missing parents: at the earliest orphan's start, in its lane.
  tree.missing.forEach((m) => {
    const orphans = m.children.map((i) => spans[i]);
    const first = orphans.reduce((a, c) => (seconds(tree.effectiveStart[c.ordinal]) < seconds(tree.effectiveStart[a.ordinal]) ? c : a));
    const id = `missing:${m.spanId}`;
    const ev = { id, t: seconds(tree.effectiveStart[first.ordinal]), type: 'orchestrator_decision', kind: 'missing_parent', placeholder: true, agent: lane(first), missing_span_id: m.spanId, content: `missing parent span ${m.spanId} (not in this file; ${orphans.length} span${orphans.length > 1 ? 's' : ''} name it)` } as TraceEvent;
    pending.push({ event: ev, origin: first.origin, key: [ev.t, 0, -1, first.ordinal, 0], traceId: m.traceId });
  });
  const skipped: Record<string, number> = {};
  const agentIds: Record<string, string> = {};
  const firstInvoke = new Map<string, string>();
  const created = new Map<string, string>();
  for (const s of spans) {
    const a = s.attrs;
    const i = s.ordinal;
    const t = seconds(tree.effectiveStart[i]);
    const open = tree.open[i];
    const tEnd = open ? undefined : Math.max(t, seconds(s.end));
    const duration = tEnd !== undefined && tree.effectiveStart[i] !== undefined && s.start !== undefined ? Number(s.end! - s.start) / 1e9 : undefined;
    const parentEvent = mappedAncestor(s);
    const causes = parentEvent ? [parentEvent] : undefined;
    const agentId = str(a['gen_ai.agent.id']);
    const name = ownAgent(s);
    if (agentId && name && agentId !== name) agentIds[name] = agentId;
    const model = str(a['gen_ai.request.model']) ?? str(a['gen_ai.response.model']) ?? str(a['llm.model_name']);
    const { input, output } = s.content!;
    const tokens = tokensOf(a);
    const startExtras: Record<string, unknown> = {};
    if (open) startExtras.open = true;
    const skew = tree.skew[i];
    if (skew !== undefined) {
      startExtras.clock_skew_s = Number(skew) / 1e9;
      startExtras.recorded_t = seconds(s.start);
    }
    switch (s.kind) {
      case 'create_agent': {
        const agent = lane(s);
        push({ id: s.id, t, type: 'spawn', agent: callerOf(s), from: callerOf(s), to: agent, duration_s: duration, content: str(a['gen_ai.agent.description']), model, parent: parentEvent, causes, span_name: s.name, ...startExtras }, s, false);
        created.set(agent, s.id);
        break;
      }
      case 'invoke_agent': {
        const agent = lane(s);
        const caller = callerOf(s);
        push({ id: s.id, t, type: 'delegate', agent: caller, from: caller, to: agent, duration_s: duration, content: input, parent: parentEvent, causes, span_name: s.name, ...startExtras }, s, false);
        if (!firstInvoke.has(agent)) firstInvoke.set(agent, s.id);
        if (tEnd === undefined) break; // still open: nothing returned yet
        const ownTokens = usageBelow.has(s) ? undefined : tokens;
        push({ id: `${s.id}.return`, t: tEnd, type: 'return', agent, from: agent, to: caller, content: output, tokens: ownTokens, model, parent: s.id, causes: [s.id], error: s.error }, s, true, 0);
        b.edge(s.id, `${s.id}.return`, 'return');
        const reasons = finishReasons(a, s.content);
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
        const callId = str(a['gen_ai.tool.call.id']);
        const args = a['gen_ai.tool.call.arguments'] ?? a['tool.parameters'] ?? (callId ? argsById.get(callId) : undefined);
        const ownResult = s.content!.toolResults[0]?.content;
        const result = a['gen_ai.tool.call.result'] ?? ownResult ?? output ?? (callId ? resultById.get(callId) : undefined);
        const call = { id: s.id, t, type: 'tool_call', agent, tool, from: agent, duration_s: duration, content: args !== undefined ? (typeof args === 'string' ? args : JSON.stringify(args)) : input, tool_call_id: callId, parent: parentEvent, causes, span_name: s.name, ...startExtras } as TraceEvent;
        if (tEnd === undefined) {
          call.call_status = 'no_result';
          push(call, s, false);
          break;
        }
        push(call, s, false);
        push({ id: `${s.id}.result`, t: tEnd, type: 'tool_result', agent, tool, content: result !== undefined ? (typeof result === 'string' ? result : JSON.stringify(result)) : undefined, error: s.error, parent: s.id, causes: [s.id] }, s, true);
        b.edge(s.id, `${s.id}.result`, 'return');
        break;
      }
      case 'llm':
        push({ id: s.id, t, type: 'message', agent: lane(s), from: lane(s), duration_s: duration, tokens, model, finish_reasons: finishReasons(a, s.content), content: output ?? input, input: output !== undefined && input !== undefined ? input : undefined, error: s.error, parent: parentEvent, causes, span_name: s.name, ...startExtras }, s, false);
        break;
      case 'chain':
        push({ id: s.id, t, type: 'orchestrator_decision', agent: lane(s), duration_s: duration, content: s.name, error: s.error, parent: parentEvent, causes, span_name: s.name, ...startExtras }, s, false);
        break;
      case 'guardrail':
        push({ id: s.id, t, type: 'safety_event', agent: lane(s), duration_s: duration, content: output ?? s.name, parent: parentEvent, causes, span_name: s.name, ...startExtras }, s, false);
        break;
      default: {
        const k = s.operation === 'none' ? s.name || 'unnamed' : s.operation;
        skipped[k] = (skipped[k] ?? 0) + 1;
      }
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
  // Several traces: each event names its trace, so the graph and the analysis treat each on its own.
  const several = tree.traceIds.filter(Boolean).length > 1;
  for (const p of pending) b.add(several && p.traceId ? ({ ...p.event, trace_id: p.traceId } as TraceEvent) : p.event, p.origin);
  const eventOf = (s: SpanRec): string | undefined => (mapped(s) ? s.id : mappedAncestor(s));
  reportTree(spans, tree, b, eventOf, seconds, skipped);

  const traceIds = tree.traceIds.filter(Boolean);
  const services = [...new Set(spans.map((s) => s.service).filter((x): x is string => !!x))];
  const otel: Record<string, unknown> = { trace_ids: traceIds, services, spans: spans.length };
  if (Object.keys(skipped).length) otel.skipped_spans = skipped;
  if (Object.keys(agentIds).length) otel.agent_ids = agentIds;
  if (tree.missing.length) otel.missing_parents = tree.missing.map((m) => ({ trace_id: m.traceId, span_id: m.spanId, children: m.children.map((c) => spans[c].id) }));
  if (tree.cycles.length) otel.cut_parent_edges = tree.cycles.map((c) => ({ parent: spans[c.parent].id, child: spans[c.child].id }));
  return b.finish(OTEL_FORMAT, {
    trace_id: traceIds[0] ?? baseName(fileName),
    system: services[0],
    metadata: { source: 'otel', otel },
  });
}

/**
 * Edges and warnings for what the tree found: links (own edge type), cut cycles (a marked `link`
 * edge where the parent edge was), skew, orphans, several traces, and the spans that gave no event.
 */
function reportTree(spans: SpanRec[], tree: SpanTree, b: ImportBuilder, eventOf: (s: SpanRec) => string | undefined, seconds: (ns: bigint | undefined) => number, skipped: Record<string, number>): void {
  const at = (i: number): Range => spans[i].origin.range;
  let unresolved = 0;
  for (const l of tree.links) {
    const src = eventOf(spans[l.from]);
    const dst = l.to === undefined ? undefined : eventOf(spans[l.to]);
    if (!src || !dst || src === dst) {
      unresolved++;
      continue;
    }
    const edge: TraceEdge = { src, dst, type: 'link' };
    if (l.attributes) edge.attributes = l.attributes;
    if (!b.edges.some((e) => e.src === src && e.dst === dst && e.type === 'link')) b.edges.push(edge);
  }
  if (unresolved) b.problem('info', `${unresolved} span link${unresolved > 1 ? 's' : ''} name${unresolved > 1 ? '' : 's'} a span not in this file (or one that gives no event); not drawn`, at(tree.links[0].from));
  for (const c of tree.cycles) {
    const names = c.cycle.map((i) => spans[i].id);
    const src = eventOf(spans[c.parent]);
    const dst = eventOf(spans[c.child]);
    if (src && dst && src !== dst) b.edges.push({ src, dst, type: 'link', cut_parent: true });
    b.problem('warning', c.cycle.length === 1 ? `span ${names[0]} names itself as its parent; drawn as a root` : `parent ids form a cycle (each span's parent is the next: ${[...names, names[0]].join(' -> ')}); cut at span ${spans[c.child].id} (the earliest), which is drawn as a root; the cut parent edge is drawn as a marked link`, at(c.child));
  }
  const skewed = spans.filter((s) => tree.skew[s.ordinal] !== undefined);
  if (skewed.length) {
    const worst = skewed.reduce((a, s) => (tree.skew[s.ordinal]! < tree.skew[a.ordinal]! ? s : a));
    b.problem('warning', `clock skew: ${skewed.length} span${skewed.length > 1 ? 's start' : ' starts'} before ${skewed.length > 1 ? 'their parents' : 'its parent'} (up to ${ms(-tree.skew[worst.ordinal]!)} early); each is placed at its parent's start with "clock_skew_s" and its recorded time in "recorded_t"`, at(skewed[0].ordinal));
  }
  if (tree.missing.length) {
    const count = tree.missing.reduce((n, m) => n + m.children.length, 0);
    b.problem('warning', `${count} span${count > 1 ? 's' : ''} lost ${count > 1 ? 'their' : 'its'} parent (${tree.missing.map((m) => m.spanId).join(', ')} not in this file); shown under a "missing parent" placeholder`, at(tree.missing[0].children[0]));
  }
  const open = spans.filter((s) => tree.open[s.ordinal]);
  if (open.length) {
    b.problem('warning', `${open.length} span${open.length > 1 ? 's have' : ' has'} no end time (${open.map((s) => s.id).join(', ')}): still open when the file was written; duration unknown, no result or return invented`, at(open[0].ordinal));
  }
  const traces = tree.traceIds.filter(Boolean);
  if (traces.length > 1) {
    const firstOf = traces.map((t) => spans.find((s) => s.traceId === t)!.ordinal);
    b.problem('info', `${traces.length} traces in this file (${traces.join(', ')}); one graph with a lane group per trace; each trace is analysed on its own`, at(firstOf[1]));
  }
  const fromEvents = spans.filter((s) => s.events.some((e) => e.name.startsWith('gen_ai.')));
  if (fromEvents.length) {
    const older = fromEvents.some((s) => s.events.some((e) => e.name !== 'gen_ai.client.inference.operation.details' && e.name.startsWith('gen_ai.')));
    const newer = fromEvents.some((s) => s.events.some((e) => e.name === 'gen_ai.client.inference.operation.details'));
    const which = older && newer ? 'older per-message events and the newer operation-details event' : newer ? 'the operation-details event' : 'older per-message events';
    b.problem('info', `${fromEvents.length} span${fromEvents.length > 1 ? 's carry' : ' carries'} GenAI content in span events (${which}); read as well as attributes`, at(fromEvents[0].ordinal));
  }
  const kinds = Object.entries(skipped);
  if (kinds.length) {
    const total = kinds.reduce((n, [, c]) => n + c, 0);
    const first = spans.find((s) => s.kind === 'other')!;
    b.problem('warning', `${total} span${total > 1 ? 's' : ''} of ${kinds.length} kind${kinds.length > 1 ? 's' : ''} not shown (not GenAI / OpenInference operations; children pass through them): ${kinds.map(([k, c]) => `${k} ${c}`).join(', ')}`, at(first.ordinal));
  }
  void seconds;
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
