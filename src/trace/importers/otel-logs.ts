/**
 * OpenTelemetry log records that carry GenAI events, and how they join their spans. Since the GenAI
 * conventions moved events to the Logs API ("events are log records with an event name"), an
 * instrumentation writes prompts and completions as log records, not span events: OTLP/JSON
 * `resourceLogs[].scopeLogs[].logRecords[]` (also `instrumentationLibraryLogs` and snake_case) with
 * `timeUnixNano`, `eventName` (opentelemetry-proto logs.proto field 12; older SDKs put the name in the
 * `event.name` attribute), `body` (an AnyValue), `attributes`, `traceId` and `spanId`; or a JS SDK's
 * serialized record (`hrTime`, `spanContext`, `eventName`, a plain `body`), as file exporters write.
 * Event names read: `gen_ai.client.inference.operation.details` (messages in its attributes),
 * the older `gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
 * `gen_ai.tool.message`, `gen_ai.choice` (the message in the body), `gen_ai.execution.state.changed`
 * (counted on its span), any other `gen_ai.*` event (joined, no content read). Sources:
 * open-telemetry/semantic-conventions docs/gen-ai/gen-ai-events.md (v1.37+ and v1.36), model/gen-ai/events.yaml
 * of open-telemetry/semantic-conventions-genai, opentelemetry-proto logs.proto.
 *
 * A record joins the span with its span id (and trace id, when both record one); it never makes an
 * event of its own. They come from the same file (a collector's file exporter writing every signal to
 * one path) or a sibling file whose name differs only in `traces`/`spans` -> `logs` ({@link pairedFiles}).
 */
import type { Node } from 'jsonc-parser';
import type { FileAccess } from '../formats';
import type { Range } from '../model';
import { items, nodeRange, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';
import type { SpanEvent } from './otel-content';
import { attributes, hrNanos, idOf, isObject } from './otlp-values';
import { str } from './span-import';

/** One log record as read. */
export interface LogRecord {
  /** The record as a span event: its event name ('' when none), time (ns) and attributes; `body` its body. */
  event: SpanEvent;
  traceId: string;
  /** The span it was written in; undefined when it names none. */
  spanId?: string;
  range: Range;
  /** The file it is in, when it is not the file that was opened. */
  file?: string;
}

/** True for a GenAI event's name (`gen_ai.*`). */
export const isGenAiEvent = (name: string): boolean => name.startsWith('gen_ai.');

/**
 * The log records of a document root that is an OTLP logs export (`resourceLogs`, `resource_logs`).
 * @returns true when `root` is one (its records appended to `out`), false otherwise.
 */
export function readLogsExport(doc: JsonDocument, root: Node, out: LogRecord[], file?: string): boolean {
  const rls = propertyOf(root, 'resourceLogs', 'resource_logs');
  if (!rls) return false;
  for (const rl of items(rls)) {
    for (const sl of items(propertyOf(rl, 'scopeLogs', 'scope_logs', 'instrumentationLibraryLogs', 'instrumentation_library_logs'))) {
      for (const node of items(propertyOf(sl, 'logRecords', 'log_records'))) readLogRecord(doc, node, out, file);
    }
  }
  return true;
}

/** True for a value that is one SDK-serialized log record (a file exporter's line: `hrTime`, `spanContext`, `body`, `severityText`, or `type: "log"`). */
export function isFlatLog(v: Record<string, unknown>): boolean {
  return v.type === 'log' || 'hrTime' in v || (('body' in v || 'severityText' in v || 'severityNumber' in v) && !('resourceSpans' in v) && !('resourceMetrics' in v));
}

/** Reads one log record (OTLP/JSON or SDK-serialized) into `out`; a record that is not an object is skipped. */
export function readLogRecord(doc: JsonDocument, node: Node, out: LogRecord[], file?: string): void {
  const v = sharedValueIn(doc, node);
  if (!isObject(v)) return;
  const context = isObject(v.spanContext) ? v.spanContext : isObject(v._spanContext) ? v._spanContext : undefined;
  const attrs = attributes(v.attributes);
  const name = str(v.eventName) ?? str(v.event_name) ?? str(attrs['event.name']) ?? '';
  const body = v.body === undefined ? undefined : isObject(v.body) && isAnyValue(v.body) ? attributes([{ key: 'b', value: v.body }]).b : v.body;
  const spanId = idOf(v.spanId ?? v.span_id ?? context?.spanId);
  out.push({
    event: { name, time: hrNanos(v.timeUnixNano ?? v.time_unix_nano ?? v.hrTime ?? v.observedTimeUnixNano ?? v.observed_time_unix_nano ?? v.timestamp), attrs, body },
    traceId: idOf(v.traceId ?? v.trace_id ?? context?.traceId) ?? '',
    spanId: spanId && !/^0+$/.test(spanId) ? spanId : undefined,
    range: nodeRange(doc, node),
    file,
  });
}

/** True for an object that is an OTLP AnyValue (one `stringValue`, `kvlistValue`, ... key). */
function isAnyValue(v: Record<string, unknown>): boolean {
  const keys = Object.keys(v);
  return keys.length === 1 && /^(string|bool|int|double|array|kvlist|bytes)_?[vV]alue$/.test(keys[0]);
}

/** Where each GenAI log record went. */
export interface JoinedLogs {
  /** Span index -> its GenAI log records as span events, in time order (then file order). */
  bySpan: Map<number, SpanEvent[]>;
  /** GenAI records joined, by event name (in order of first appearance). */
  joined: Record<string, number>;
  /** GenAI records whose span is not among the spans (or that name none). */
  unjoined: LogRecord[];
  /** Records that are not GenAI events (plain logs): left to the caller to count. */
  other: LogRecord[];
}

/**
 * Joins GenAI log records to the spans they were written in: same span id, and the same trace id
 * when both record one. @param spans the spans' ids, index for index.
 */
export function joinLogs(spans: readonly { traceId: string; spanId: string }[], logs: readonly LogRecord[]): JoinedLogs {
  const byId = new Map<string, number[]>();
  spans.forEach((s, i) => (byId.get(s.spanId) ?? byId.set(s.spanId, []).get(s.spanId)!).push(i));
  const out: JoinedLogs = { bySpan: new Map(), joined: {}, unjoined: [], other: [] };
  const order = new Map<SpanEvent, number>();
  logs.forEach((l, k) => {
    if (!isGenAiEvent(l.event.name)) {
      out.other.push(l);
      return;
    }
    const i = l.spanId === undefined ? undefined : byId.get(l.spanId)?.find((c) => !l.traceId || !spans[c].traceId || spans[c].traceId === l.traceId);
    if (i === undefined) {
      out.unjoined.push(l);
      return;
    }
    order.set(l.event, k);
    (out.bySpan.get(i) ?? out.bySpan.set(i, []).get(i)!).push(l.event);
    out.joined[l.event.name] = (out.joined[l.event.name] ?? 0) + 1;
  });
  for (const list of out.bySpan.values()) list.sort((a, b) => (a.time !== undefined && b.time !== undefined && a.time !== b.time ? (a.time < b.time ? -1 : 1) : order.get(a)! - order.get(b)!));
  return out;
}

/** Words of a file name that name a signal: a trace / span file, or a log file. */
const SIGNAL = /(^|[^a-z])(traces?|spans?|logs?)(?=[^a-z]|$)/gi;

/**
 * The files beside `fileName` that hold the other signal of the same export: for a spans file
 * (`traces.jsonl`, `otel-spans.json`, `run1.traces.jsonl`) the log files whose names differ only in
 * that word (`logs.jsonl`, `otel-logs.json`, `run1.logs.jsonl`), and the other way round. Only JSON
 * and JSON Lines files; nothing is guessed from content here (the caller checks what each holds).
 * @param want `logs` to find log files for a spans file, `spans` for the reverse.
 * @returns their paths (joined with the separator `fileName` uses), in directory order.
 */
export function pairedFiles(fileName: string, files: FileAccess, want: 'logs' | 'spans'): string[] {
  const cut = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  const dir = cut === -1 ? '' : fileName.slice(0, cut);
  const base = fileName.slice(cut + 1);
  const words = [...base.matchAll(SIGNAL)].map((m) => m[2].toLowerCase());
  const isLogs = (w: string) => w.startsWith('log');
  if (!words.length || !/\.jsonl?$/i.test(base) || words.some((w) => isLogs(w) === (want === 'logs'))) return [];
  const shape = (name: string) => name.replace(SIGNAL, '$1\u0000').toLowerCase();
  const mine = shape(base);
  const sep = fileName.includes('\\') && !fileName.includes('/') ? '\\' : '/';
  return (files.list(dir === '' ? '.' : dir) ?? [])
    .filter((n) => n !== base && /\.jsonl?$/i.test(n) && shape(n) === mine)
    .filter((n) => {
      const ws = [...n.matchAll(SIGNAL)].map((m) => m[2].toLowerCase());
      return ws.length === words.length && ws.every((w) => isLogs(w) === (want === 'logs'));
    })
    .map((n) => (dir === '' ? n : `${dir}${sep}${n}`));
}
