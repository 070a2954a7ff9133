/**
 * Importer for Zipkin v2 JSON: a span array (`GET /api/v2/trace/{traceId}`, the UI's JSON download) or
 * an array of traces (`GET /api/v2/traces`: an array of span arrays). Format: zipkin-api
 * `zipkin2-api.yaml` (https://zipkin.io/zipkin-api/): span = traceId, id, parentId, name, kind,
 * timestamp and duration in µs, localEndpoint.serviceName, remoteEndpoint, annotations
 * [{timestamp µs, value}], tags {string: string}, shared.
 *
 * Tags are OTel attributes as Zipkin stores them (strings), so the GenAI / OpenInference rules decide
 * the role (./span-import.ts `genAiSpan`); an `error` tag (or `otel.status_code=ERROR`) marks a failed
 * span. A span id shared by client and server (`shared`) is two records: the second gets `~1`.
 * record = the span's 0-based index in the file, range = the span object.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace } from '../model';
import { normalizeSpanId } from '../span-tree';
import { isComplete, items, nodeRange, parseJsonDocument, sharedValueIn, type JsonDocument } from '../json-positions';
import { ImportBuilder } from './json-import';
import { spanContent, type SpanEvent } from './otel-content';
import { buildSpanTrace, genAiSpan, num, str, timeNs, type ImportSpan } from './span-import';

export const ZIPKIN_FORMAT = 'zipkin';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads Zipkin v2 JSON. Never throws: problems are returned with positions. */
export function readZipkin(text: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const doc = parseJsonDocument(text, new LineIndex(text));
  b.problems.push(...doc.problems);
  const spans: ImportSpan[] = [];
  let record = 0;
  for (const node of items(doc.root)) {
    if (node.type === 'array') for (const s of items(node)) readSpan(doc, s, record++, spans, b);
    else readSpan(doc, node, record++, spans, b);
  }
  return buildSpanTrace(spans, b, fileName, { format: ZIPKIN_FORMAT, metaKey: 'zipkin' });
}

function readSpan(doc: JsonDocument, node: Node, record: number, spans: ImportSpan[], b: ImportBuilder): void {
  const range = nodeRange(doc, node);
  const v = isComplete(doc, node) ? sharedValueIn(doc, node) : undefined;
  const id = isObject(v) ? str(v.id) : undefined;
  if (!isObject(v) || !id) {
    b.problem('error', `span ${record} ${!isComplete(doc, node) ? 'is cut off' : isObject(v) ? 'has no "id"' : 'must be an object'}; skipped`, range);
    return;
  }
  const attrs: Record<string, unknown> = isObject(v.tags) ? { ...v.tags } : {};
  const start = timeNs(v.timestamp, 'us');
  const duration = num(v.duration);
  const events: SpanEvent[] = Array.isArray(v.annotations) ? v.annotations.filter(isObject).map((a) => ({ name: str(a.value) ?? '', time: timeNs(a.timestamp, 'us'), attrs: {} })) : [];
  const name = str(v.name) ?? '';
  const g = genAiSpan(attrs, name);
  const content = spanContent(attrs, events);
  const error = typeof attrs.error === 'string' ? attrs.error || 'error' : /^error$/i.test(str(attrs['otel.status_code']) ?? '') ? str(attrs['otel.status_description']) ?? 'error' : undefined;
  if (start === undefined) b.problem('warning', `span ${id} has no timestamp; placed at its parent's start`, range);
  const local = isObject(v.localEndpoint) ? v.localEndpoint : undefined;
  const ordinal = spans.length;
  spans.push({
    ordinal,
    origin: { range, record },
    traceId: normalizeSpanId(str(v.traceId) ?? ''),
    spanId: normalizeSpanId(id),
    id: normalizeSpanId(id),
    parentSpanId: str(v.parentId) ? normalizeSpanId(str(v.parentId)!) : undefined,
    start,
    end: start !== undefined && duration !== undefined ? start + BigInt(Math.round(duration)) * 1000n : undefined,
    links: [],
    name,
    ...g,
    input: g.input ?? content.input,
    output: g.output ?? content.output,
    finishReasons: content.finishReasons,
    service: str(local?.serviceName),
    error,
    extra: str(v.kind) ? { span_kind: str(v.kind) } : undefined,
  });
}

/** Zipkin v2: a JSON array of spans (or of span arrays) with `traceId` and `id`, µs `timestamp`. */
export const zipkinFormat: TraceFormat = {
  id: ZIPKIN_FORMAT,
  label: 'Zipkin v2 JSON (span array)',
  keys: ['traceId'],
  detect(t) {
    const head = t.slice(0, 1 << 16);
    if (!/^\s*\[\s*[[{]/.test(head)) return false;
    return /"traceId"\s*:/.test(head) && /"id"\s*:/.test(head) && /"(localEndpoint|remoteEndpoint|timestamp|annotations)"\s*:/.test(head) && !/"(spanId|span_id|span_data|context|run_type)"\s*:/.test(head);
  },
  read: (t, fileName) => readZipkin(t, fileName),
};

registerFormat(zipkinFormat, true);
