/**
 * Importer for Jaeger JSON: the UI's "Download JSON" / the query API's `GET /api/traces/{id}`
 * (`{"data": [trace, ...]}`), or one trace object (`{"traceID", "spans", "processes"}`).
 * Format: jaeger-ui `packages/jaeger-ui/src/types/trace.tsx` and jaeger `model/json/model.go`
 * (https://github.com/jaegertracing/jaeger): span = traceID, spanID, operationName, references
 * [{refType CHILD_OF | FOLLOWS_FROM, traceID, spanID}], startTime and duration in µs, tags
 * [{key, type, value}], logs [{timestamp µs, fields}], processID (-> processes[id].serviceName) or an
 * inline `process`.
 *
 * Parent: the first CHILD_OF reference in the span's own trace (else the first CHILD_OF); every other
 * reference (FOLLOWS_FROM, extra parents) is a link. Tags are OTel attributes as exported by Jaeger,
 * so the GenAI / OpenInference rules decide the role (./span-import.ts `genAiSpan`); `error=true` or
 * `otel.status_code=ERROR` marks a failed span. Logs become span events for content (./otel-content.ts).
 * record = the span's 0-based index in the file (over all traces, skipped spans included), range = the span object.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace } from '../model';
import { normalizeSpanId } from '../span-tree';
import { isComplete, items, nodeRange, parseJsonDocument, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';
import { ImportBuilder } from './json-import';
import { spanContent, type SpanEvent } from './otel-content';
import { buildSpanTrace, genAiSpan, num, str, text, timeNs, type ImportSpan } from './span-import';

export const JAEGER_FORMAT = 'jaeger';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Jaeger tags (`[{key, type, value}]`) as a plain object. */
function tagsOf(raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(raw)) for (const t of raw) if (isObject(t) && typeof t.key === 'string') out[t.key] = t.value;
  return out;
}

/** Reads Jaeger JSON. Never throws: problems are returned with positions. */
export function readJaeger(text: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const doc = parseJsonDocument(text, new LineIndex(text));
  b.problems.push(...doc.problems);
  const spans: ImportSpan[] = [];
  let record = 0;
  const root = doc.root;
  const traces = root?.type === 'array' ? items(root) : propertyOf(root, 'data') ? items(propertyOf(root, 'data')) : root ? [root] : [];
  for (const tr of traces) {
    const processes = sharedValueIn(doc, propertyOf(tr, 'processes'));
    for (const node of items(propertyOf(tr, 'spans'))) readSpan(doc, node, record++, isObject(processes) ? processes : {}, spans, b);
  }
  return buildSpanTrace(spans, b, fileName, { format: JAEGER_FORMAT, metaKey: 'jaeger', figures: { traces: traces.length } });
}

function readSpan(doc: JsonDocument, node: Node, record: number, processes: Record<string, unknown>, spans: ImportSpan[], b: ImportBuilder): void {
  const ordinal = spans.length;
  const range = nodeRange(doc, node);
  const v = isComplete(doc, node) ? sharedValueIn(doc, node) : undefined;
  const spanId = isObject(v) ? str(v.spanID) : undefined;
  if (!isObject(v) || !spanId) {
    b.problem('error', `span ${record} ${!isComplete(doc, node) ? 'is cut off' : isObject(v) ? 'has no "spanID"' : 'must be an object'}; skipped`, range);
    return;
  }
  const traceId = normalizeSpanId(str(v.traceID) ?? '');
  const refs = Array.isArray(v.references) ? v.references.filter(isObject) : [];
  const childOf = refs.filter((r) => r.refType === 'CHILD_OF' && str(r.spanID));
  const parentRef = childOf.find((r) => !r.traceID || normalizeSpanId(str(r.traceID)!) === traceId) ?? childOf[0];
  const links = refs.filter((r) => r !== parentRef && str(r.spanID)).map((r) => ({ traceId: r.traceID ? normalizeSpanId(str(r.traceID)!) : traceId, spanId: normalizeSpanId(str(r.spanID)!), attributes: { ref_type: r.refType } }));
  const attrs = tagsOf(v.tags);
  const process = isObject(v.process) ? v.process : isObject(processes[str(v.processID) ?? '']) ? (processes[str(v.processID)!] as Record<string, unknown>) : undefined;
  const start = timeNs(v.startTime, 'us');
  const duration = num(v.duration);
  const events: SpanEvent[] = [];
  if (Array.isArray(v.logs)) {
    for (const l of v.logs) {
      if (!isObject(l)) continue;
      const fields = tagsOf(l.fields);
      events.push({ name: str(fields.event) ?? '', time: timeNs(l.timestamp, 'us'), attrs: fields });
    }
  }
  const name = str(v.operationName) ?? '';
  const g = genAiSpan(attrs, name);
  const content = spanContent(attrs, events);
  const failed = attrs.error === true || attrs.error === 'true' || /^error$/i.test(str(attrs['otel.status_code']) ?? '');
  if (start === undefined) b.problem('warning', `span ${spanId} has no start time; placed at its parent's start`, range);
  spans.push({
    ordinal,
    origin: { range, record },
    traceId,
    spanId: normalizeSpanId(spanId),
    id: normalizeSpanId(spanId),
    parentSpanId: parentRef ? normalizeSpanId(str(parentRef.spanID)!) : undefined,
    start,
    end: start !== undefined && duration !== undefined ? start + BigInt(Math.round(duration)) * 1000n : undefined,
    links,
    name,
    ...g,
    input: g.input ?? content.input,
    output: g.output ?? content.output ?? (g.role === 'tool' ? content.toolResults[0]?.content : undefined),
    finishReasons: content.finishReasons,
    service: str(process?.serviceName),
    error: failed ? str(attrs['otel.status_description']) ?? str(attrs['error.type']) ?? text(attrs['error.message']) ?? 'error' : undefined,
  });
}

/** Jaeger JSON: `{"data": [{"traceID", "spans": [...]}]}` or one `{"traceID", "spans", "processes"}`. */
export const jaegerFormat: TraceFormat = {
  id: JAEGER_FORMAT,
  label: 'Jaeger JSON (UI download / query API)',
  keys: ['traceID'],
  detect(t) {
    const head = t.slice(0, 1 << 16);
    return /^\s*[[{]/.test(head) && /"traceID"\s*:/.test(head) && /"spanID"\s*:/.test(head) && /"(operationName|references)"\s*:/.test(head);
  },
  read: (t, fileName) => readJaeger(t, fileName),
};

registerFormat(jaegerFormat, true);
