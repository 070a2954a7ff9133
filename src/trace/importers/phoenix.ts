/**
 * Importer for Arize Phoenix / OpenInference span exports: JSON Lines of spans, a JSON array of spans,
 * `{"data": [span, ...]}` (Phoenix REST `GET /v1/projects/{id}/spans`), or the rows of a spans
 * DataFrame written as JSON (`px.Client().get_spans_dataframe().to_json(orient="records")`, flattened
 * columns `context.span_id`, `attributes.llm.model_name`, ...).
 * Format: Phoenix span schema (https://arize.com/docs/phoenix, `phoenix.trace.schemas.Span`: name,
 * context {trace_id, span_id}, span_kind, parent_id, start_time, end_time (ISO 8601), status_code
 * (OK, ERROR, UNSET), status_message, attributes, events [{name, timestamp, attributes}]) and the
 * OpenInference semantic conventions (https://github.com/Arize-ai/openinference, spec/semantic_conventions.md).
 *
 * Attributes may be nested objects or flat dotted keys: both are read as flat dotted keys, and
 * `span_kind` stands for `openinference.span.kind` when the attribute is absent; the role, agent, tool,
 * model, tokens and content then follow the OTLP reader's OpenInference rules (./span-import.ts
 * `genAiSpan`, ./otel-content.ts). status_code ERROR marks a failed span.
 * record = the span's 0-based index in the file, range = the span object (its line in JSON Lines).
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace } from '../model';
import { isComplete, items, nodeRange, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';
import { ImportBuilder } from './json-import';
import { spanContent, type SpanEvent } from './otel-content';
import { buildSpanTrace, flatten, forEachDocument, genAiSpan, str, timeNs, type ImportSpan } from './span-import';

export const PHOENIX_FORMAT = 'phoenix';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a Phoenix / OpenInference span export. Never throws: problems are returned with positions. */
export function readPhoenix(source: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const spans: ImportSpan[] = [];
  let record = 0;
  forEachDocument(source, new LineIndex(source), (doc) => {
    b.problems.push(...doc.problems);
    const root = doc.root;
    if (!root) return;
    const list = root.type === 'array' ? items(root) : propertyOf(root, 'data') ? items(propertyOf(root, 'data')) : [root];
    for (const node of list) readSpan(doc, node, record++, spans, b);
  });
  return buildSpanTrace(spans, b, fileName, { format: PHOENIX_FORMAT, metaKey: 'phoenix' });
}

function readSpan(doc: JsonDocument, node: Node, record: number, spans: ImportSpan[], b: ImportBuilder): void {
  const range = nodeRange(doc, node);
  const v = isComplete(doc, node) ? sharedValueIn(doc, node) : undefined;
  const context = isObject(v) && isObject(v.context) ? v.context : {};
  const spanId = isObject(v) ? str(context.span_id) ?? str(v['context.span_id']) ?? str(v.span_id) : undefined;
  if (!isObject(v) || !spanId) {
    b.problem('error', `span ${record} ${!isComplete(doc, node) ? 'is cut off' : isObject(v) ? 'has no "context.span_id"' : 'must be an object'}; skipped`, range);
    return;
  }
  const attrs = flatten(v.attributes);
  for (const [k, x] of Object.entries(v)) if (k.startsWith('attributes.')) flatten(x, k.slice('attributes.'.length), attrs);
  const kind = str(v.span_kind);
  if (kind && attrs['openinference.span.kind'] === undefined) attrs['openinference.span.kind'] = kind;
  const events: SpanEvent[] = Array.isArray(v.events) ? v.events.filter(isObject).map((e) => ({ name: str(e.name) ?? '', time: timeNs(e.timestamp), attrs: flatten(e.attributes) })) : [];
  const name = str(v.name) ?? '';
  const g = genAiSpan(attrs, name);
  const content = spanContent(attrs, events);
  const start = timeNs(v.start_time);
  if (start === undefined) b.problem('warning', `span ${spanId} has no start_time; placed at its parent's start`, range);
  const ordinal = spans.length;
  spans.push({
    ordinal,
    origin: { range, record },
    traceId: str(context.trace_id) ?? str(v['context.trace_id']) ?? '',
    spanId,
    id: spanId,
    parentSpanId: str(v.parent_id) ?? undefined,
    start,
    end: timeNs(v.end_time),
    links: [],
    name,
    ...g,
    input: g.input ?? content.input,
    output: g.output ?? content.output ?? (g.role === 'tool' ? content.toolResults[0]?.content : undefined),
    finishReasons: content.finishReasons,
    error: str(v.status_code)?.toUpperCase() === 'ERROR' ? str(v.status_message) || 'error' : undefined,
    skipLabel: g.skipLabel ?? (kind ? `span_kind ${kind}` : undefined),
  });
}

/** Phoenix / OpenInference: spans with `context.span_id` (nested or a flattened column) and `span_kind` or `parent_id`. */
export const phoenixFormat: TraceFormat = {
  id: PHOENIX_FORMAT,
  label: 'Arize Phoenix / OpenInference span export (JSON / JSON Lines)',
  keys: ['span_kind', 'parent_id'],
  detect(t) {
    const head = t.slice(0, 1 << 16);
    if (!/^\s*[[{]/.test(head) || /"(resourceSpans|resource_spans)"\s*:/.test(head)) return false;
    return (/"context"\s*:\s*\{\s*"(trace_id|span_id)"/.test(head) || /"context\.span_id"\s*:/.test(head)) && /"(span_kind|parent_id)"\s*:/.test(head);
  },
  read: (t, fileName) => readPhoenix(t, fileName),
};

registerFormat(phoenixFormat, true);
