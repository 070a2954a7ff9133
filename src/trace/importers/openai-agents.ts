/**
 * Importer for OpenAI Agents SDK traces: the `trace.export()` / `span.export()` objects a file tracing
 * processor writes, one per line (JSON Lines), as a JSON array, or as the tracing ingest payload
 * `{"data": [...]}`. Format: openai-agents-python `src/agents/tracing/` (traces.py, spans.py,
 * span_data.py; https://openai.github.io/openai-agents-python/tracing/): a trace = {object: "trace",
 * id, workflow_name, group_id, metadata}; a span = {object: "trace.span", id, trace_id, parent_id,
 * started_at, ended_at (ISO 8601), span_data {type, ...}, error {message, data} | null}.
 *
 * span_data.type -> role (./span-import.ts): agent -> agent (lane = name); function -> tool call and
 * result (tool = name, input, output); generation -> model call (model, usage input/output tokens, the
 * last output message as content); response -> model call (its `response_id` a field, not its words); handoff -> a delegation
 * from `from_agent` to `to_agent`, and the receiving agent's next agent span is delegated by the
 * handing-off agent; guardrail -> safety_event ("<name> triggered" / "passed"); custom, mcp_tools,
 * transcription, speech, speech_group -> skipped (counted). The trace's workflow_name is the lane of
 * last resort (the caller of the first agent). record = the record's 0-based index in the file
 * (trace records included), range = the record's object.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace } from '../model';
import { isComplete, items, nodeRange, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';
import { ImportBuilder } from './json-import';
import { buildSpanTrace, forEachDocument, num, str, text, timeNs, type ImportSpan, type SpanRole } from './span-import';
import { usageFrom } from '../tokens';

export const OPENAI_AGENTS_FORMAT = 'openai-agents';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ROLES: Record<string, SpanRole> = { agent: 'agent', function: 'tool', generation: 'llm', response: 'llm', handoff: 'handoff', guardrail: 'guardrail' };

/** Reads OpenAI Agents SDK trace/span exports. Never throws: problems are returned with positions. */
export function readOpenAiAgents(source: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const spans: ImportSpan[] = [];
  const workflows = new Map<string, string>();
  const traces: Record<string, unknown>[] = [];
  let record = 0;
  const pendingService: ImportSpan[] = [];
  forEachDocument(source, new LineIndex(source), (doc) => {
    b.problems.push(...doc.problems);
    const root = doc.root;
    if (!root) return;
    const list = root.type === 'array' ? items(root) : propertyOf(root, 'data') ? items(propertyOf(root, 'data')) : [root];
    for (const node of list) readRecord(doc, node, record++, spans, traces, workflows, pendingService, b);
  });
  for (const s of pendingService) s.service = workflows.get(s.traceId);
  const first = traces[0];
  return buildSpanTrace(spans, b, fileName, {
    format: OPENAI_AGENTS_FORMAT,
    metaKey: 'openai_agents',
    header: first ? { name: str(first.workflow_name), group_id: str(first.group_id) } : undefined,
    figures: { traces: traces.length },
  });
}

function readRecord(doc: JsonDocument, node: Node, record: number, spans: ImportSpan[], traces: Record<string, unknown>[], workflows: Map<string, string>, pending: ImportSpan[], b: ImportBuilder): void {
  const range = nodeRange(doc, node);
  const v = isComplete(doc, node) ? sharedValueIn(doc, node) : undefined;
  if (isObject(v) && v.object === 'trace') {
    traces.push(v);
    if (str(v.id) && str(v.workflow_name)) workflows.set(str(v.id)!, str(v.workflow_name)!);
    return;
  }
  const id = isObject(v) ? str(v.id) : undefined;
  const data = isObject(v) && isObject(v.span_data) ? v.span_data : undefined;
  if (!isObject(v) || !id || !data) {
    b.problem('error', `record ${record} ${!isComplete(doc, node) ? 'is cut off' : !isObject(v) ? 'must be an object' : !id ? 'has no "id"' : 'has no "span_data"'}; skipped`, range);
    return;
  }
  const type = str(data.type) ?? 'unknown';
  const role = ROLES[type] ?? 'other';
  const name = str(data.name) ?? type;
  const start = timeNs(v.started_at);
  if (start === undefined) b.problem('warning', `span ${id} has no started_at; placed at its parent's start`, range);
  const usage = isObject(data.usage) ? data.usage : undefined;
  const tokensIn = num(usage?.input_tokens) ?? num(usage?.prompt_tokens);
  const tokensOut = num(usage?.output_tokens) ?? num(usage?.completion_tokens);
  const err = isObject(v.error) ? [str(v.error.message), isObject(v.error.data) ? text(v.error.data) : undefined].filter(Boolean).join(': ') || 'error' : undefined;
  const span: ImportSpan = {
    ordinal: spans.length,
    origin: { range, record },
    traceId: str(v.trace_id) ?? '',
    spanId: id,
    id,
    parentSpanId: str(v.parent_id),
    start,
    end: timeNs(v.ended_at),
    links: [],
    name,
    role,
    agent: type === 'agent' ? name : undefined,
    tool: type === 'function' ? name : undefined,
    input: type === 'function' ? text(data.input) : type === 'generation' ? lastContent(data.input) : undefined,
    output: type === 'function' ? text(data.output) : type === 'generation' ? lastContent(data.output) : type === 'guardrail' ? `${name} ${data.triggered ? 'triggered' : 'passed'}` : undefined,
    usage: usageFrom({ input: tokensIn, output: tokensOut, cache_read: num(detail(usage, 'input_tokens_details').cached_tokens), reasoning: num(detail(usage, 'output_tokens_details').reasoning_tokens) }, true),
    model: str(data.model),
    error: err,
    handoffFrom: str(data.from_agent),
    handoffTo: str(data.to_agent),
    skipLabel: type === 'custom' ? `custom ${name}` : type,
    // a response's id is no words of the model (it read as the run's first message: "Asked: resp_01")
    extra: { span_type: type, ...(type === 'response' && str(data.response_id) !== undefined ? { response_id: str(data.response_id) } : {}) },
  };
  spans.push(span);
  pending.push(span);
}

/** The content of the last message of a message list (or the value as text). */
function lastContent(v: unknown): string | undefined {
  if (Array.isArray(v) && v.length) {
    const last = v[v.length - 1];
    if (isObject(last) && last.content !== undefined) return text(last.content);
    return text(last);
  }
  return text(v);
}

/** OpenAI Agents SDK: records with `"object": "trace.span"` / `"trace"` and `span_data`. */
export const openAiAgentsFormat: TraceFormat = {
  id: OPENAI_AGENTS_FORMAT,
  label: 'OpenAI Agents SDK trace export (JSON Lines)',
  keys: ['object', 'span_data'],
  detect(t) {
    const head = t.slice(0, 1 << 16);
    return /^\s*[[{]/.test(head) && (/"object"\s*:\s*"trace\.span"/.test(head) || (/"object"\s*:\s*"trace"/.test(head) && /"workflow_name"\s*:/.test(head)) || /"span_data"\s*:\s*\{\s*"type"/.test(head));
  },
  read: (t, fileName) => readOpenAiAgents(t, fileName),
};

registerFormat(openAiAgentsFormat, true);

/** The object at `key` of a usage (`input_tokens_details`, `output_tokens_details`), or an empty one. */
function detail(usage: Record<string, unknown> | undefined, key: string): Record<string, unknown> {
  const v = usage?.[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
