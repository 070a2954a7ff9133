/**
 * The order `otrace convert` writes the fields of an otrace file's events and edges in: the
 * schema's own fields in schema order (EventObjectSchema, EdgeSchema in schema.ts), then the others
 * in the record's order (and so within an event's `source` and `usage`). It is the order zod's parse gives: the reader keeps each record as
 * JSON.parse made it (no copy per record; src/trace/fast-check.ts), so the writer puts them in
 * that order, and the output is what it was when the reader kept zod's copies. Nothing else reads
 * an event's fields in order (the details pane lists them in its own order). Importers' events are
 * written as they are (they never went through zod).
 */
import type { LoadedTrace } from './model';
import { EdgeSchema, EventObjectSchema, SourceRefSchema, TokenUsageSchema, type Trace, type TraceEdge, type TraceEvent } from './schema';

/** The formats the otrace reader (src/trace/read.ts) gives, whose records zod used to copy into schema order. */
const READER_FORMATS: ReadonlySet<string> = new Set(['otrace-json', 'otrace-jsonl', 'survey-json']);

const EVENT_KEYS: readonly string[] = Object.keys(EventObjectSchema.shape);
const EDGE_KEYS: readonly string[] = Object.keys(EdgeSchema.shape);
const EVENT_KEY_SET: ReadonlySet<string> = new Set(EVENT_KEYS);
const EDGE_KEY_SET: ReadonlySet<string> = new Set(EDGE_KEYS);
/** An event's objects that zod's parse orders too (looseObject schemas: their fields first, the others after). */
const NESTED = ([['source', SourceRefSchema], ['usage', TokenUsageSchema]] as const).map(([field, schema]) => {
  const keys = Object.keys(schema.shape);
  return { field, keys, known: new Set(keys) as ReadonlySet<string> };
});

/** `record` with `keys` first (those it has, in that order), then its other own fields in its order; `record` itself when already so. */
function inOrder<T extends object>(record: T, keys: readonly string[], known: ReadonlySet<string>): T {
  const r = record as Record<string, unknown>;
  let k = 0;
  let ordered = true;
  let unknownSeen = false;
  for (const key of Object.keys(r)) {
    if (!known.has(key)) {
      unknownSeen = true;
      continue;
    }
    // a known field after an unknown one, or before an earlier known one, is out of order
    while (k < keys.length && keys[k] !== key) k++;
    if (unknownSeen || k === keys.length) {
      ordered = false;
      break;
    }
  }
  if (ordered) return record;
  // Entries, not assignments: an unknown field named "__proto__" stays a field (an assignment would set the copy's prototype and drop it).
  const entries: [string, unknown][] = [];
  for (const key of keys) if (Object.prototype.hasOwnProperty.call(r, key)) entries.push([key, r[key]]);
  for (const key of Object.keys(r)) if (!known.has(key)) entries.push([key, r[key]]);
  return Object.fromEntries(entries) as T;
}

/** The event with its fields in schema order, then its other fields, and so its `source` and `usage` (a copy only when out of order; same value). */
export function eventInSchemaOrder(event: TraceEvent): TraceEvent {
  let out = inOrder(event, EVENT_KEYS, EVENT_KEY_SET);
  for (const { field, keys, known } of NESTED) {
    const value = (out as Record<string, unknown>)[field];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const ordered = inOrder(value, keys, known);
    if (ordered === value) continue;
    if (out === event) out = { ...event }; // (a spread defines an own "__proto__" field as a field, as the entries above)
    (out as Record<string, unknown>)[field] = ordered;
  }
  return out;
}

/** The edge with src, dst, type first, then its other fields (a copy only when out of order; same value). */
export function edgeInSchemaOrder(edge: TraceEdge): TraceEdge {
  return inOrder(edge, EDGE_KEYS, EDGE_KEY_SET);
}

/** The trace with each event's and edge's fields in schema order (see {@link eventInSchemaOrder}); the header as it is. */
export function traceInSchemaOrder(trace: Trace): Trace {
  return { ...trace, events: trace.events.map(eventInSchemaOrder), ...(trace.edges ? { edges: trace.edges.map(edgeInSchemaOrder) } : {}) };
}

/** The trace to write for a loaded trace: in schema order ({@link traceInSchemaOrder}) when the otrace reader read it, else as it is. */
export function traceToWrite(loaded: LoadedTrace): Trace {
  return READER_FORMATS.has(loaded.format) ? traceInSchemaOrder(loaded.trace) : loaded.trace;
}
