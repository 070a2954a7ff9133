/**
 * A trace read into columns ({@link TraceColumns}): the events' and edges' columns, their origins,
 * and each record read back from its bytes when asked ({@link TraceColumns.event}), as the object
 * reader gives it.
 */
import type { ReadBytes } from '../jsonl';
import type { LineOrigins } from '../model';
import { loadedEdge, loadedEvent } from '../read';
import type { TraceEdge, TraceEvent } from '../schema';
import type { EdgeColumns } from './edge-columns';
import type { EventColumns } from './event-columns';

/** Largest span of bytes {@link TraceColumns.eventsInRange} reads at once (past it, record by record). */
const SPAN_BYTES = 16 << 20;

/**
 * The events and edges of an otrace JSONL trace as columns (see {@link EventColumns},
 * {@link EdgeColumns}), with the origins of their records (line, characters, byte offset and
 * length: {@link LineOrigins}). Content and rare fields are not kept: {@link event} reads the
 * record again through `records`.
 */
export class TraceColumns {
  /**
   * @param records reads bytes of the trace's file at a position (a Buffer's copy in tests, the file on disk).
   */
  constructor(
    readonly events: EventColumns,
    readonly edges: EdgeColumns,
    readonly eventOrigins: LineOrigins,
    readonly edgeOrigins: LineOrigins,
    public records: ReadBytes,
  ) {}

  /** Number of events. */
  get eventCount(): number {
    return this.events.length;
  }

  /** Number of edges. */
  get edgeCount(): number {
    return this.edges.length;
  }

  /**
   * Event i as the object reader gives it (deep-equal: fields, content and rare fields read from
   * its record's bytes, its trace named as the reader named it); undefined when i is not an index
   * of an event or the bytes there no longer hold that event (the file changed, was truncated or
   * deleted: a record there that differs from what the columns keep of event i, even one with the
   * same id, is not given; see `EventColumns.holds`).
   */
  event(i: number): TraceEvent | undefined {
    if (!(i >= 0 && i < this.events.length && Number.isInteger(i))) return undefined;
    const origins = this.eventOrigins;
    const offset = origins.offsetOf(i);
    const bytes = origins.bytesOf(i);
    const buf = Buffer.allocUnsafe(bytes);
    return this.eventFrom(i, buf, offset, readFully(this.records, buf, offset));
  }

  /**
   * Events from..to-1 (clamped to the trace), as {@link event} gives each, reading the bytes they
   * span at once when they are in file order and the span is at most 16 MB (a window of events:
   * one read, not one per event).
   */
  eventsInRange(from: number, to: number): (TraceEvent | undefined)[] {
    from = Math.max(0, Math.ceil(from));
    to = Math.min(Math.ceil(to), this.events.length);
    if (!(to > from)) return [];
    const origins = this.eventOrigins;
    const start = origins.offsetOf(from);
    const end = origins.offsetOf(to - 1) + origins.bytesOf(to - 1);
    if (!origins.inLineOrder || end - start > SPAN_BYTES) {
      const out: (TraceEvent | undefined)[] = [];
      for (let i = from; i < to; i++) out.push(this.event(i));
      return out;
    }
    const span = Buffer.allocUnsafe(end - start);
    const got = readFully(this.records, span, start);
    const out: (TraceEvent | undefined)[] = [];
    for (let i = from; i < to; i++) {
      const at = origins.offsetOf(i) - start;
      const bytes = origins.bytesOf(i);
      out.push(this.eventFrom(i, span.subarray(at, at + bytes), origins.offsetOf(i), Math.max(0, Math.min(bytes, got - at))));
    }
    return out;
  }

  /** Edge i as the object reader gives it, read from its record's bytes; undefined as for {@link event}. */
  edge(i: number): TraceEdge | undefined {
    if (!(i >= 0 && i < this.edges.length && Number.isInteger(i))) return undefined;
    const origins = this.edgeOrigins;
    const offset = origins.offsetOf(i);
    const buf = Buffer.allocUnsafe(origins.bytesOf(i));
    const value = recordOf(buf, offset, readFully(this.records, buf, offset));
    const edge = isObject(value) ? safely(loadedEdge, value.edge) : undefined;
    if (!edge || edge.src !== this.edges.end(i, 'src') || edge.dst !== this.edges.end(i, 'dst') || edge.type !== this.edges.typeOf(i)) return undefined;
    return edge;
  }

  /** Event i from its record's bytes `buf` (the first `got` of them read), at file offset `offset`. */
  private eventFrom(i: number, buf: Buffer, offset: number, got: number): TraceEvent | undefined {
    const event = safely(loadedEvent, recordOf(buf, offset, got));
    const events = this.events;
    if (!event || !events.holds(i, event)) return undefined;
    const trace = events.traceId(i);
    return trace !== undefined && event.trace_id === undefined ? { ...event, trace_id: trace } : event;
  }
}

/**
 * Fills `buf` from file position `position` (as far as the file goes); @returns the bytes read. A
 * system error of the read (the file deleted, moved or no longer readable since the trace was read:
 * an error with a `code`, such as ENOENT) ends it: what was read so far, which then holds no record.
 */
function readFully(read: ReadBytes, buf: Buffer, position: number): number {
  let got = 0;
  try {
    while (got < buf.length) {
      const n = read(buf, got, buf.length - got, position + got);
      if (n <= 0) break;
      got += n;
    }
  } catch (err) {
    if (typeof (err as { code?: unknown } | null)?.code !== 'string') throw err;
  }
  return got;
}

/** The JSON value of a record's bytes (the first `got` of `buf`, at file offset `offset`: a file's byte-order mark is left out), or undefined. */
function recordOf(buf: Buffer, offset: number, got: number): unknown {
  let text = buf.toString('utf8', 0, got);
  if (offset === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `load(value)`, or undefined when the value is nested too deeply to check (the reader skipped such records too). */
function safely<T>(load: (value: unknown) => T | undefined, value: unknown): T | undefined {
  try {
    return load(value);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
