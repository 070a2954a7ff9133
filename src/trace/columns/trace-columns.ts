/**
 * A trace read into columns ({@link TraceColumns}): the events' and edges' columns, their origins,
 * and each record read back from its bytes when asked ({@link TraceColumns.event}), as the object
 * reader gives it.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { EVENT_FIELD_NAMES } from '../fast-check';
import type { ReadBytes } from '../jsonl';
import type { LineOrigins } from '../model';
import { DECLINED, loadedEdge, loadedEvent, SCANNED_EDGE } from '../read';
import type { TraceEdge, TraceEvent } from '../schema';
import type { EdgeColumns } from './edge-columns';
import type { EventColumns } from './event-columns';
import { latin1Slice, RecordScanner, utf8Slice } from './record-scanner';

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
   * @param unchanged true when `records` still reads the bytes the columns were read from (see {@link unchanged}).
   */
  constructor(
    readonly events: EventColumns,
    readonly edges: EdgeColumns,
    readonly eventOrigins: LineOrigins,
    readonly edgeOrigins: LineOrigins,
    public records: ReadBytes,
    /**
     * True when `records` still reads the bytes the columns were read from (the trace's file has
     * the identity, size and change times it had through the read: any write changes its ctime),
     * asked after each read of bytes: then a content is decoded from its place in its record
     * (`EventColumns.contentFrom`), not read by the record scanner and checked against the columns.
     * Undefined when not known (bytes in memory; a file written while it was read): every content is checked.
     */
    public unchanged?: () => boolean,
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
    return this.inRange(from, to, (i, span, at, offset, got) => this.eventFrom(i, span.subarray(at, at + got), offset, got), (i) => this.event(i));
  }

  /**
   * The content of event i as {@link event} gives it, undefined when it has none or its record is
   * no longer there; read from the record's bytes by the record scanner (record-scanner.ts: its
   * content decoded, its kept fields checked against the columns), not parsed, unless the scanner
   * declines it.
   */
  content(i: number): string | undefined {
    if (!(i >= 0 && i < this.events.length && Number.isInteger(i))) return undefined;
    if (!this.events.hasContent(i)) return undefined;
    const origins = this.eventOrigins;
    const offset = origins.offsetOf(i);
    const buf = Buffer.allocUnsafe(origins.bytesOf(i));
    const got = readFully(this.records, buf, offset);
    return this.spanContent(i, buf, 0, offset, got, this.unchanged?.() === true);
  }

  /**
   * The contents of events from..to-1 (clamped), as {@link content} gives each, their bytes read at
   * once as {@link eventsInRange} reads them: the texts an analysis reads of every event, a window
   * at a time, with no object per event kept.
   */
  contentsInRange(from: number, to: number): (string | undefined)[] {
    // asked once, after the span's read
    let unchanged: boolean | undefined;
    return this.inRange(from, to, (i, span, at, offset, got) => this.spanContent(i, span, at, offset, got, (unchanged ??= this.unchanged?.() === true)), (i) => this.content(i));
  }

  /**
   * For each event from..to-1 (clamped), what a reader of its fields needs of its record, the bytes
   * read at once as {@link contentsInRange} reads them: the whole event ({@link event}) when the
   * record holds a field no column keeps (`EventColumns.beyond`), else its content (undefined for none).
   */
  recordsInRange(from: number, to: number): (string | TraceEvent | undefined)[] {
    const beyond = this.events.beyond;
    let unchanged: boolean | undefined;
    return this.inRange(
      from,
      to,
      (i, span, at, offset, got) => (beyond !== undefined && beyond[i] === 1 ? this.eventFrom(i, span.subarray(at, at + got), offset, got) : this.spanContent(i, span, at, offset, got, (unchanged ??= this.unchanged?.() === true))),
      (i) => (beyond !== undefined && beyond[i] === 1 ? this.event(i) : this.content(i)),
    );
  }

  /**
   * The content of event i from a span of records read at once (its record at `at`, `got` of its
   * bytes read, at file offset `offset`): decoded from its place when the file is `unchanged` since
   * the read, else scanned and checked ({@link contentFrom}); undefined when it has none.
   */
  private spanContent(i: number, span: Buffer, at: number, offset: number, got: number, unchanged: boolean): string | undefined {
    if (!this.events.hasContent(i)) return undefined;
    return (unchanged ? placedContent(this.events, i, span, at, got) : undefined) ?? this.contentFrom(i, span, at, offset, got);
  }

  /**
   * `read` of each event from..to-1 (clamped), given the bytes they span read at once when they are
   * in file order and the span is at most 16 MB (`span`: the record of event i at `at`, `got` of its
   * bytes read, at file offset `offset`), else `alone` of each.
   */
  private inRange<T>(from: number, to: number, read: (i: number, span: Buffer, at: number, offset: number, got: number) => T, alone: (i: number) => T): T[] {
    from = Math.max(0, Math.ceil(from));
    to = Math.min(Math.ceil(to), this.events.length);
    if (!(to > from)) return [];
    const origins = this.eventOrigins;
    const start = origins.offsetOf(from);
    const end = origins.offsetOf(to - 1) + origins.bytesOf(to - 1);
    const out: T[] = [];
    if (!origins.inLineOrder || end - start > SPAN_BYTES) {
      for (let i = from; i < to; i++) out.push(alone(i));
      return out;
    }
    const span = Buffer.allocUnsafe(end - start);
    const got = readFully(this.records, span, start);
    for (let i = from; i < to; i++) {
      const at = origins.offsetOf(i) - start;
      out.push(read(i, span, at, origins.offsetOf(i), Math.max(0, Math.min(origins.bytesOf(i), got - at))));
    }
    return out;
  }

  /** Reads records again for their content (one scanner: its buffer view is made again only for another buffer). */
  private scanner?: RecordScanner;

  /**
   * The content of event i from its record's bytes, `got` of them read at `at` in `buf` (file offset
   * `offset`): scanned and checked against the columns (a record rewritten since the read gives
   * undefined), or parsed when the scanner declines it (as {@link event}).
   */
  private contentFrom(i: number, buf: Buffer, at: number, offset: number, got: number): string | undefined {
    const bytes = this.eventOrigins.bytesOf(i);
    const record = buf.subarray(at, at + got);
    if (got < bytes || offset === 0 || !isUtf8(record)) return this.eventFrom(i, record, offset, got)?.content;
    const scanner = (this.scanner ??= new RecordScanner());
    scanner.startRun(buf);
    const mask = scanner.scan(at, at + got, isAscii(record) ? got : -1);
    if (mask === DECLINED) return this.eventFrom(i, record, offset, got)?.content;
    if (mask === SCANNED_EDGE) return undefined;
    const content = (mask & (1 << CONTENT)) !== 0 ? scanner.content() : undefined;
    return content !== undefined && this.events.holds(i, scannedEvent(mask, scanner.fields, content)) ? content : undefined;
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
 * The content of event i decoded from its place in its record's bytes (`EventColumns.contentFrom`:
 * the record at `at` in `buf`, `got` of its bytes read), with no scan of the record; undefined when
 * its place is not known (a record JSON.parse read) or the bytes there are not a string of its
 * content's length (then the caller scans the record). Only for bytes read from an unchanged file.
 */
function placedContent(events: EventColumns, i: number, buf: Buffer, at: number, got: number): string | undefined {
  const from = events.contentFrom === undefined ? -1 : events.contentFrom[i];
  if (from < 1) return undefined;
  let to = events.contentTo![i];
  const escaped = to < 0;
  if (escaped) to = ~to;
  if (to >= got || to < from) return undefined;
  const start = at + from;
  const end = at + to;
  if (buf[start - 1] !== 34 || buf[end] !== 34) return undefined;
  const chars = events.contentChars![i];
  let text: string;
  if (!escaped) text = end - start === chars ? latin1Slice.call(buf, start, end) : utf8Slice.call(buf, start, end);
  else {
    try {
      text = JSON.parse(utf8Slice.call(buf, start - 1, end + 1)) as string;
    } catch {
      return undefined;
    }
  }
  return text.length === chars ? text : undefined;
}

const CONTENT = EVENT_FIELD_NAMES.indexOf('content');
/** The fields `EventColumns.holds` compares, by their position in EVENT_FIELD_NAMES. */
const HELD = ['id', 't', 'type', 'agent', 'trace_id', 'parent', 'causes', 'tool', 'from', 'to', 'role', 'tokens', 'cost', 'duration_s', 'credit', 'reason', 'kind', 'call_status'].map((name) => [name, EVENT_FIELD_NAMES.indexOf(name)] as const);

/** The fields of a scanned record that `EventColumns.holds` compares, as an event (the scanner's other fields are left out). */
function scannedEvent(mask: number, fields: readonly unknown[], content: string): TraceEvent {
  const event: Record<string, unknown> = { content };
  for (const [name, k] of HELD) if ((mask & (1 << k)) !== 0) event[name] = fields[k];
  return event as unknown as TraceEvent;
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
