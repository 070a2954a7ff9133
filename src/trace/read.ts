/**
 * Readers for otrace's own formats:
 * - a JSON document in the survey's shape (`{ trace_id, ..., events: [...], edges: [...] }`), and
 * - JSONL: an optional first line with the trace fields, then one event per line; a line
 *   `{"edge": {...}}` adds an edge; a later line with trace fields (no `type`) updates them.
 * Every event and edge keeps the range it came from; problems come back positioned, and the rest
 * of the trace still loads (a cut-off last line loses only that line).
 */
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { z } from 'zod';
import { checkEvents, CrossRecordChecks, EventArray, type CheckedEvent, type CheckedEvents } from './check';
import { fastEdge, fastEvent } from './fast-check';
import type { IdTable } from './id-table';
import type { GrowingImport } from './formats';
import { forEachJsonlLineInBytes, forEachJsonlRecord, type JsonlLineScanner, type ReadBytes } from './jsonl';
import { JsonlFeed, type GrowingFiles } from './jsonl-feed';
import { preview } from './preview';
import { NotedCopies, replacedFrom } from './shared-prefix';
import { valueOf } from './json-positions';
import { LineIndex, LineOrigin, LineOrigins, OriginArray, resized, TextLineOrigin, type LoadedTrace, type Origin, type OriginStore, type Problem, type Range } from './model';
import {
  EdgeSchema,
  EventSchema,
  SURVEY_EVENT_TYPES,
  TraceHeaderSchema,
  type TraceEdge,
  type TraceEvent,
  type TraceHeader,
} from './schema';
import { BINARY_SNIFF_CHARS, binaryAt, binaryProblem } from './text-encoding';

type Path = (string | number)[];

/** Finds the range of the value at a path inside a record (the record's start when it is absent). */
type Locate = (path: Path) => Range;

/** A record (an event, an edge, the header) and how to find the range of any of its fields. */
interface RecordSpan {
  origin: Origin;
  /** Range of the value at `path` inside the record, or the record's start if it is absent. */
  locate(path: Path): Range;
}

const PARSE_OPTIONS = { disallowComments: true, allowTrailingComma: false } as const;

/** Records read before a streamed file's record counts are estimated from its size. */
const SAMPLE_RECORDS = 2048;
/** Room reserved beyond the estimate (a file's later lines may be a little shorter than its first). */
const ESTIMATE_MARGIN = 1.1;
/** Fewer bytes than any event or edge line takes (`{"id":"a","t":0,"type":"spawn","agent":"b"}` is 44): caps an estimate. */
const MIN_RECORD_BYTES = 32;

/** Reads a trace written as one JSON document. Never throws: problems are returned. */
export function readTraceJson(text: string): LoadedTrace {
  const lines = new LineIndex(text);
  const problems: Problem[] = [];
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, PARSE_OPTIONS);
  // A document cut off mid-write makes the parser report one error per open bracket at the end:
  // report the cut once, and leave out the record it cut through.
  const end = text.trimEnd().length;
  const cutOff = errors.some((e) => e.offset >= end);
  for (const e of errors) {
    if (cutOff && e.offset + Math.max(e.length, 1) >= end) continue;
    problems.push({
      severity: 'error',
      message: `JSON syntax error: ${describeParseError(e)}`,
      range: lines.range(e.offset, Math.max(e.length, 1)),
    });
  }
  if (cutOff) {
    problems.push({
      severity: 'error',
      message: 'the document is cut off (unexpected end of file); the complete records before it loaded',
      range: lines.range(Math.max(end - 1, 0), 1),
    });
  }
  const spanOf = (node: Node, record: number): RecordSpan => ({
    origin: { range: lines.range(node.offset, node.length), record },
    locate(path) {
      const found = findNodeAtLocation(node, path);
      return found ? lines.range(found.offset, found.length) : lines.range(node.offset, 1);
    },
  });
  const builder = new TraceBuilder(problems, () => ({ start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }));
  if (!root || root.type !== 'object') {
    if (root) problems.push({ severity: 'error', message: 'a trace must be a JSON object', range: lines.range(root.offset, 1) });
    return builder.finish('otrace-json');
  }
  const header: Record<string, unknown> = {};
  let sawEvents = false;
  for (const prop of root.children ?? []) {
    const [keyNode, valueNode] = prop.children ?? [];
    if (!keyNode || !valueNode) continue;
    const key = keyNode.value as string;
    if (key === 'events' || key === 'edges') {
      if (valueNode.type !== 'array') {
        problems.push({ severity: 'error', message: `"${key}" must be an array`, range: lines.range(valueNode.offset, valueNode.length) });
        continue;
      }
      if (key === 'events') sawEvents = true;
      (valueNode.children ?? []).forEach((item, i) => {
        if (cutOff && item.offset + item.length >= end) return;
        const span = spanOf(item, i);
        if (key === 'events') builder.addEvent(valueOf(item), span.origin, span.locate);
        else builder.addEdge(valueOf(item), span.origin, span.locate);
      });
    } else {
      header[key] = valueOf(valueNode);
    }
  }
  if (!sawEvents && !cutOff) problems.push({ severity: 'error', message: 'a trace needs an "events" array', range: lines.range(root.offset, 1) });
  builder.setHeader(header, spanOf(root, 0), false);
  return builder.finish(isSurveyShaped(header, builder) ? 'survey-json' : 'otrace-json');
}

/** Reads a trace written as JSONL (one record per line). Never throws: problems are returned. */
export function readTraceJsonl(text: string): LoadedTrace {
  const reader = new JsonlTraceReader((start, length) => text.slice(start, start + length));
  const { problems } = forEachJsonlRecord(text, (r) => reader.add(r.line, r.start, r.length, r.value));
  return reader.finish(problems);
}

/**
 * Reads an otrace JSONL trace from bytes, in chunks (a file of any size; see
 * {@link forEachJsonlLineInBytes}): the same trace, origins and problems as {@link readTraceJsonl}
 * on the decoded text, and each origin also has its record's byte `offset` and `bytes`.
 * @param read reads bytes at a file position (e.g. `fs.readSync` on an open file).
 * @param readLine the text of the line at a byte offset and length; asked only to position a
 *   problem at a field (rare), so the lines are not kept in memory.
 * @param chunkBytes bytes read at a time (default 8 MB).
 * @param fileBytes the file's size in bytes, when known: the reader's columns are sized once for
 *   the records it is estimated to hold (see {@link JsonlTraceReader.expectBytes}).
 * @returns the loaded trace and the number of bytes read.
 */
export function readTraceJsonlBytes(read: ReadBytes, readLine: (offset: number, bytes: number) => string, chunkBytes?: number, fileBytes?: number): LoadedTrace & { bytes: number } {
  const reader = new JsonlTraceReader(readLine, false, true);
  const { problems, bytes } = feedJsonlBytes(reader, read, chunkBytes, fileBytes);
  return { ...reader.finish(problems), bytes };
}

/**
 * Feeds every line of an otrace JSONL file read from bytes to `reader` (a reader made for bytes),
 * whatever it keeps: the loop shared by {@link readTraceJsonlBytes} (objects) and the column
 * reader (src/trace/columns). Parameters as for {@link readTraceJsonlBytes}.
 * @returns the problems of the unusable lines and the number of bytes read.
 */
export function feedJsonlBytes(reader: JsonlTraceReader, read: ReadBytes, chunkBytes?: number, fileBytes?: number): { problems: Problem[]; bytes: number } {
  const binary = binaryStart(read, fileBytes);
  if (binary) return binary;
  if (fileBytes !== undefined) reader.expectBytes(fileBytes);
  return forEachJsonlLineInBytes(read, (line, offset, size, chars, value) => reader.add(line, offset, size, value, chars), undefined, chunkBytes, 0, 0, reader.lineScanner);
}

/**
 * A file whose start is binary content ({@link binaryAt}: a NUL among its first characters), as the
 * text reader reports it: its one problem and its size, no line read; undefined for text.
 */
function binaryStart(read: ReadBytes, fileBytes: number | undefined): { problems: Problem[]; bytes: number } | undefined {
  // the first BINARY_SNIFF_CHARS characters are at most 4 bytes each (a buffer no larger than the file: see loadTraceFile's chunk)
  const head = Buffer.alloc(Math.max(1, Math.min(BINARY_SNIFF_CHARS * 4, fileBytes ?? Infinity)));
  const got = read(head, 0, head.length, 0);
  if (head.subarray(0, got).indexOf(0) === -1) return undefined;
  const text = head.toString('utf8', 0, got);
  const at = binaryAt(text);
  if (at === -1) return undefined;
  let bytes = fileBytes ?? got;
  if (fileBytes === undefined) for (let n = got; n > 0; bytes += n) n = read(head, 0, head.length, bytes);
  return { problems: [binaryProblem(text, at)], bytes };
}

/** The otrace JSONL semantics of each record: an edge line, trace fields, or an event. */
export class JsonlTraceReader {
  private readonly builder: TraceBuilder;
  private seenRecord = false;
  /**
   * The lines that held a record, ascending, and where each starts for `lineText`, in characters (a
   * reader of a text only: a byte reader's origins carry their offsets): one entry a record, not a
   * line (a text of blank lines costs nothing), found by binary search.
   */
  private readonly lineStarts?: { lines: Int32Array; starts: Int32Array; count: number };

  /** Ranges found by {@link locate}, by line and path, when the reader finishes more than once (a growing read). */
  private readonly located?: Map<string, Range>;
  /** The origin of the line being added: moved from line to line (the builder's {@link LineOrigins} copy its numbers). */
  private readonly line: LineOrigin | TextLineOrigin;
  /** Size of the file being read, in bytes, until its record count is estimated (see {@link expectBytes}). */
  private fileBytes?: number;
  /** Records added so far. */
  private added = 0;
  /** Reads records from their bytes into the stores (see {@link lineScanner}), and what it made of the line it read last. */
  private readonly scanner?: RecordScan;
  private scannedKind = DECLINED;

  /**
   * The reader as the line loop's scanner, when its stores take records read from their bytes
   * (`stores.scanner`: the column reader), else undefined: a line it takes is added without JSON.parse.
   */
  readonly lineScanner?: JsonlLineScanner;

  /**
   * @param lineText the text of a line from its `start` and `length` (characters of a text, or bytes of a file).
   * @param growing true when the reader finishes after each append: a field's range, once found, is kept.
   * @param bytes true when lines come from bytes ({@link add} gets `chars`), false from a text: the
   *   origins are kept in columns either way ({@link LineOrigins}), with byte offsets from bytes.
   * @param stores where the events and edges go (a reader made for bytes; default: lists of objects),
   *   and what reads records from their bytes for them (`scanner`: with an event store that has `addScanned`).
   */
  constructor(
    private readonly lineText: (start: number, length: number) => string,
    growing = false,
    bytes = false,
    stores?: { events: EventStore; edges: EdgeStore; scanner?: RecordScan },
  ) {
    if (stores?.scanner !== undefined && stores.events.addScanned !== undefined && bytes) {
      const scanner = (this.scanner = stores.scanner);
      this.lineScanner = {
        startRun: (buf) => scanner.startRun(buf),
        scan: (start, stop, chars) => (this.scannedKind = scanner.scan(start, stop, chars)) !== DECLINED,
        take: (line, offset, length, chars) => this.takeScanned(line, offset, length, chars),
      };
    }
    if (growing) this.located = new Map();
    this.line = bytes ? new LineOrigin(0, 0, 0, 0) : new TextLineOrigin(0, 0);
    if (!bytes) this.lineStarts = { lines: new Int32Array(256), starts: new Int32Array(256), count: 0 };
    const locate = (origin: Origin, path: Path, kind: 'event' | 'edge') => this.locate(origin, kind === 'edge' ? ['edge', ...path] : path);
    this.builder = new TraceBuilder([], locate, new LineOrigins(bytes), new LineOrigins(bytes), stores?.events, stores?.edges);
  }

  /**
   * Sizes the origin columns and the id table once for a file of `bytes` bytes (a reader made for
   * bytes): after its first {@link SAMPLE_RECORDS} records, the counts of events and edges are
   * estimated from the bytes those took. Without it, they grow by doubling (each time a copy, and
   * the id table built again: at 1M events about 80 ms).
   */
  expectBytes(bytes: number): void {
    this.fileBytes = bytes;
  }

  /**
   * Adds the record of line `n`. @param start/length locate the line for `lineText`;
   * @param chars its length in UTF-16 code units, when `length` counts bytes (then `start` is kept
   *   as the origin's byte offset; the reader must have been made for bytes).
   */
  add(n: number, start: number, length: number, value: Record<string, unknown>, chars?: number): void {
    const origin = this.line;
    origin.record = n;
    if (origin instanceof LineOrigin) {
      origin.chars = chars ?? length;
      origin.offset = start;
      origin.bytes = length;
    } else {
      origin.chars = length;
      this.setLineStart(n, start);
    }
    const builder = this.builder;
    try {
      // a line with `type` is an event (asked first: most lines are); else `edge` makes an edge line, no `id` the trace fields
      if ('type' in value) {
        builder.addEvent(value, origin);
      } else if ('edge' in value) {
        builder.addEdge(value.edge, origin);
      } else if (!('id' in value)) {
        this.setHeader(value, origin);
      } else {
        builder.addEvent(value, origin);
      }
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      builder.problem({ severity: 'error', message: 'this line is nested too deeply to check; line skipped', range: origin.range });
    }
    this.seenRecord = true;
    if (++this.added === SAMPLE_RECORDS && this.fileBytes !== undefined) this.estimate(start + length);
  }

  /** Adds the record the scanner read last (see {@link lineScanner}): line `n` at byte `offset`, `length` bytes, `chars` UTF-16 units. */
  private takeScanned(n: number, offset: number, length: number, chars: number): void {
    const origin = this.line as LineOrigin;
    origin.record = n;
    origin.chars = chars;
    origin.offset = offset;
    origin.bytes = length;
    const scanner = this.scanner!;
    if (this.scannedKind === SCANNED_EDGE) this.builder.addEdge(scanner.edge, origin);
    else this.builder.addScannedEvent(this.scannedKind, scanner, origin);
    this.seenRecord = true;
    if (++this.added === SAMPLE_RECORDS && this.fileBytes !== undefined) this.estimate(offset + length);
  }

  /** Reserves room for the records of the whole file, at the rate of the first ones (`read` bytes so far). */
  private estimate(read: number): void {
    const scale = (this.fileBytes! / Math.max(read, 1)) * ESTIMATE_MARGIN;
    const most = this.fileBytes! / MIN_RECORD_BYTES;
    const builder = this.builder;
    builder.reserve(Math.ceil(Math.min(builder.eventCount * scale, most)), Math.ceil(Math.min(builder.edgeCount * scale, most)));
    this.fileBytes = undefined;
  }

  /**
   * Takes the trace fields of a line. (Apart from {@link add}: a function making a closure that
   * captures `this` or an argument allocates a context at every call, even when the closure is
   * not made: one per record for the few header lines.)
   */
  private setHeader(value: Record<string, unknown>, origin: Origin): void {
    this.builder.setHeader(value, { origin, locate: (path) => this.locate(origin, path) }, this.seenRecord);
  }

  /**
   * The trace read. @param problems those of the unusable lines; @param keep true when more lines
   * may come (see {@link TraceBuilder.finish}).
   */
  finish(problems: readonly Problem[], keep = false): LoadedTrace {
    return this.builder.finish('otrace-jsonl', problems, keep);
  }

  /** Takes lists of its own for what it shares with the trace it handed out last (see {@link TraceBuilder.ownLists}). */
  ownLists(): void {
    this.builder.ownLists();
  }

  /** The end of a whole read into the stores it was made with: the checks run, the problems sorted (see {@link TraceBuilder.check}). */
  check(problems: readonly Problem[]): CheckedTrace {
    try {
      return this.builder.check(problems, false);
    } finally {
      this.lastTree = undefined; // a long line's tree is not kept past the read
    }
  }

  /** The range of the value at `path` in a record's line (the line parsed again, only when a problem is positioned). */
  private locate(origin: Origin, path: Path): Range {
    if (!this.located) return this.locateInLine(origin, path);
    const key = `${origin.record}\u0000${path.join('\u0000')}`;
    let range = this.located.get(key);
    if (!range) this.located.set(key, (range = this.locateInLine(origin, path)));
    return range;
  }

  /** Notes where line `n` starts in the text, in characters (lines come in order: a line before the last is put in its place). */
  private setLineStart(n: number, start: number): void {
    const at = this.lineStarts!;
    const k = at.count;
    if (k > 0 && at.lines[k - 1] >= n) {
      const i = this.lineIndex(n);
      if (i < k && at.lines[i] === n) {
        at.starts[i] = start;
        return;
      }
    }
    if (k === at.lines.length) {
      at.lines = resized(at.lines, 2 * k, k);
      at.starts = resized(at.starts, 2 * k, k);
    }
    const i = k > 0 && at.lines[k - 1] > n ? this.lineIndex(n) : k;
    at.lines.copyWithin(i + 1, i, k);
    at.starts.copyWithin(i + 1, i, k);
    at.lines[i] = n;
    at.starts[i] = start;
    at.count = k + 1;
  }

  /** The first entry of {@link lineStarts} whose line is `n` or after (its count when none is). */
  private lineIndex(n: number): number {
    const at = this.lineStarts!;
    let lo = 0;
    let hi = at.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (at.lines[mid] < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Where line `n` starts in the text (characters), when it held a record; else undefined. */
  private lineStart(n: number): number | undefined {
    const at = this.lineStarts;
    if (!at) return undefined;
    const i = this.lineIndex(n);
    return i < at.count && at.lines[i] === n ? at.starts[i] : undefined;
  }

  private locateInLine(origin: Origin, path: Path): Range {
    const n = origin.record;
    const found = this.lineTree(origin)?.(path);
    return found
      ? { start: { line: n, character: found.offset }, end: { line: n, character: found.offset + found.length } }
      : { start: { line: n, character: 0 }, end: { line: n, character: 1 } };
  }

  /** The line {@link lineTree} parsed last (its record, start and length) and its tree: many problems of one line (a causes list of 100k missing ids) parse it once, not once each. */
  private lastTree?: { record: number; start: number; length: number; find: (path: Path) => Node | undefined };

  /** Finds a field's node in the parsed line of `origin` (parsed again only when it is another line than the last one asked). */
  private lineTree(origin: Origin): ((path: Path) => Node | undefined) | undefined {
    const n = origin.record;
    const start = origin.offset ?? this.lineStart(n) ?? 0;
    const length = origin.offset !== undefined ? (origin.bytes ?? 0) : origin.range.end.character;
    const last = this.lastTree;
    if (last && last.record === n && last.start === start && last.length === length) return last.find;
    let text = this.lineText(start, length);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a file's byte-order mark: columns count from after it
    const node = treeOf(text);
    const find = (path: Path) => (node ? findNodeAtLocation(node, path) : undefined);
    this.lastTree = { record: n, start, length, find };
    return find;
  }
}

/**
 * An otrace JSONL trace read as its file grows ({@link GrowingImport}): the records of the lines
 * appended since the last {@link update} go to the same reader a whole read uses, which keeps its
 * state (ids, lanes, pending references, trace fields); each update returns the trace so far
 * without reading the earlier lines again. A last line without its line break loads when it
 * parses (then its break must follow) and is reported cut off when it does not, as in a whole read.
 */
export class GrowingTraceJsonl implements GrowingImport {
  private readonly reader: JsonlTraceReader;
  private readonly feed = new JsonlFeed();
  /** Problems of the unusable complete lines read so far. */
  private readonly lineProblems: Problem[] = [];

  /** @param path the trace file; @param files where it is read as it grows. */
  constructor(
    private readonly path: string,
    private readonly files: GrowingFiles,
  ) {
    // Lines are read again only to place a problem at a field (rare): from the file's text.
    this.reader = new JsonlTraceReader((start, length) => (this.files.readText(this.path) ?? '').slice(start, start + length), true);
  }

  update(): LoadedTrace | undefined {
    const text = this.files.grown(this.path);
    const read = text && this.feed.next(text);
    if (!text || !read || read === 'reset') return undefined;
    for (const r of read.records) this.reader.add(r.line, r.start, r.length, r.value);
    for (const p of read.problems) this.lineProblems.push(p);
    const tail = this.feed.tail(text);
    if (tail.records.length === 0) return this.reader.finish(tail.problems.length ? this.lineProblems.concat(tail.problems) : this.lineProblems, true);
    // A last line that parses is a record (a whole read takes it too): taken now, its break must follow.
    for (const r of tail.records) this.reader.add(r.line, r.start, r.length, r.value);
    this.feed.hold(text);
    return this.reader.finish(this.lineProblems, true);
  }

  ownLists(): void {
    this.reader.ownLists();
  }
}

/**
 * The syntax tree of a line, to position a problem at a field; undefined when the line is nested
 * too deeply for the parser (it recurses once per level: a line of 5,000 brackets overflows the
 * stack), whose problems are then put at the line's start.
 */
function treeOf(text: string): Node | undefined {
  try {
    return parseTree(text, [], PARSE_OPTIONS);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describeParseError(e: ParseError): string {
  const words = printParseErrorCode(e.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words;
}

/** A JSON document the survey's own schema would accept the shape of (its required keys, its event types). */
function isSurveyShaped(header: Record<string, unknown>, builder: TraceBuilder): boolean {
  const required = ['trace_id', 'task_id', 'rewards', 'costs'];
  const survey = new Set<string>(SURVEY_EVENT_TYPES);
  return required.every((k) => k in header) && builder.events.every((e) => survey.has(e.type));
}

/**
 * Where a {@link TraceBuilder} keeps the events it accepts (index for index, in file order): a
 * list of objects ({@link ObjectEvents}) or columns (src/trace/columns). The checks read earlier
 * events back through it ({@link CheckedEvents}).
 */
export interface EventStore extends CheckedEvents {
  /** Appends an accepted event (the reader's value: the store must not change it). */
  add(event: TraceEvent): void;
  /**
   * Appends the event a record holds when the fast check is sure of it, keeping its fields, not
   * the record (optional: columns); @returns the fields the checks take (valid until the next
   * add), or undefined when it added nothing (the record goes to zod, then {@link add}).
   */
  addValue?(value: unknown): StoredEvent | undefined;
  /**
   * Appends the event a record's bytes hold, as a {@link RecordScan} read it (optional: columns):
   * its known fields by position (`scan.fields`, the bits of `mask`, as `fastEventFields` gives them) but its
   * content, of which it has the UTF-16 length and place in the line; @returns what {@link addValue} returns.
   */
  addScanned?(mask: number, scan: RecordScan): StoredEvent;
  /**
   * The store's table of scoped ids (`trace_id` NUL `id`, or the id for an event naming no trace)
   * -> index of the first event carrying it, filled as it adds each event (optional: columns): the
   * cross-record checks share it rather than keep a second one.
   */
  readonly idTable?: IdTable;
  /** Makes room for `events` events in all (an estimate). */
  reserve(events: number): void;
  /** Names trace `id` on the events from index `from` on that name none (a file holding several traces). */
  tag(from: number, id: string): void;
  /** A store with the same events that {@link tag} on either leaves the other as it is (a growing read finishing more than once). */
  copy(): EventStore;
}

/** What {@link RecordScan.scan} gives for an edge line (its ends in {@link RecordScan.edge}). */
export const SCANNED_EDGE = -2;
/** What {@link RecordScan.scan} gives for a line it leaves to JSON.parse. */
export const DECLINED = -1;

/**
 * Reads records from a line's bytes without JSON.parse, for a store that keeps fields
 * ({@link EventStore.addScanned}): src/trace/columns/record-scanner.ts. Only lines it is sure of:
 * the rest it declines, and they are parsed.
 */
export interface RecordScan {
  /** A run of whole lines of `buf` comes (valid UTF-8). */
  startRun(buf: Buffer): void;
  /**
   * Reads line [start, stop) of the run's buffer, `chars` UTF-16 units long. @returns an event's
   * field mask (≥ 0: the bits `fastEventFields` gives for the parsed line), {@link SCANNED_EDGE},
   * or {@link DECLINED}.
   */
  scan(start: number, stop: number, chars: number): number;
  /** The last event's known fields, by position in `EVENT_FIELD_NAMES` (its content as {@link contentChars}). */
  readonly fields: readonly unknown[];
  /** UTF-16 length of the last event's content. */
  readonly contentChars: number;
  /** Where the last event's content is in its line: bytes from the line's start to its first byte (after the opening quote). */
  readonly contentFrom: number;
  /** Bytes from the line's start to the content's closing quote, as `~to` (negative) when the content holds an escape. */
  readonly contentTo: number;
  /** The last event has fields beyond the schema's (an importer's `phase`, `exit_code`, ...). */
  readonly others: boolean;
  /** The last edge read (one object reused: read it before the next scan). */
  readonly edge: TraceEdge;
}

/** The fields of an event a store added ({@link EventStore.addValue}), and whether an earlier event carries its id in its trace. */
export type StoredEvent = CheckedEvent & { repeat: boolean };

/** Where a {@link TraceBuilder} keeps the edges it accepts, in file order. */
export interface EdgeStore {
  readonly length: number;
  add(edge: TraceEdge): void;
  /** The id at end `end` of edge `i`. */
  end(i: number, end: 'src' | 'dst'): string;
}

/** Items of room a list taken to change keeps for more (an append's lines; more grow it as any push does). */
const LIST_ROOM = 4096;

/** {@link LIST_ROOM} times `item`, in a packed list (one made with `new Array(n)` has holes, and so would the list it extends). */
function packedRoom<T>(item: T): T[] {
  const room: T[] = [];
  for (let k = 0; k < LIST_ROOM; k++) room.push(item);
  return room;
}

/**
 * A list of a store's, handed out by {@link ObjectEvents.copy} or {@link ObjectEdges.copy} without
 * copying it (issue #30: at 1M events a copy is a pass over 8 MB of pointers, 20-30 ms, on each
 * append of a followed file): the store and the copy share it until either changes it, which then
 * takes a list of its own first (copy on write). {@link own} takes it ahead of time, when nothing
 * waits (the end of a load: src/engine/session-input.ts). Each list handed out is noted against
 * the one before it (src/trace/shared-prefix.ts).
 */
class SharedList<T> {
  private readonly copies = new NotedCopies();
  /** True while another store holds this list too. */
  private shared: boolean;
  constructor(
    public list: T[],
    shared: boolean,
  ) {
    this.shared = shared;
  }

  /** The list, to change: a list of its own first when it is shared. */
  own(): T[] {
    if (this.shared) {
      // one copy with room to grow: a slice holds just its items, and the first push onto a million copies them all
      // again (a slice and that push: 80-140 ms at 1M while an analysis allocates, the copy with room 30-45)
      const n = this.list.length;
      const list = n ? this.list.concat(packedRoom(this.list[0])) : [];
      list.length = n;
      this.list = list;
      this.shared = false;
    }
    return this.list;
  }

  /** The list, shared from now on until either holder changes it, noted as handed out. */
  handOut(): T[] {
    this.shared = true;
    this.copies.made(this.list, this.list.length);
    return this.list;
  }

  /** Says that the items from `from` on were replaced in place (the next list handed out shares only those before). */
  changed(from: number): void {
    this.copies.changed(from);
    replacedFrom(this.list, from);
  }
}

/** Events kept as the objects the reader made (the object reader's `trace.events`). */
class ObjectEvents extends EventArray implements EventStore {
  private readonly held: SharedList<TraceEvent>;
  constructor(list: TraceEvent[] = [], shared = false) {
    const held = new SharedList(list, shared);
    super(held);
    this.held = held;
  }
  /** The events (a list another store may share: changed only through {@link add} and {@link tag}). */
  get list(): TraceEvent[] {
    return this.held.list;
  }
  add(event: TraceEvent): void {
    this.held.own().push(event);
  }
  reserve(): void {}
  tag(from: number, id: string): void {
    const list = this.held.own();
    for (let i = from; i < list.length; i++) if (list[i].trace_id === undefined) list[i] = { ...list[i], trace_id: id };
    this.held.changed(from);
  }
  /** A store with the same list, shared until either changes it (copy on write: see {@link SharedList}). */
  copy(): ObjectEvents {
    return new ObjectEvents(this.held.handOut(), true);
  }
  /** Takes a list of its own now if its list is shared (so the next change copies nothing). */
  ownList(): void {
    this.held.own();
  }
}

/** Edges kept as the objects the reader made. */
class ObjectEdges implements EdgeStore {
  private readonly held: SharedList<TraceEdge>;
  constructor(list: TraceEdge[] = [], shared = false) {
    this.held = new SharedList(list, shared);
  }
  /** The edges (a list another store may share: changed only through {@link add}). */
  get list(): TraceEdge[] {
    return this.held.list;
  }
  get length(): number {
    return this.held.list.length;
  }
  add(edge: TraceEdge): void {
    this.held.own().push(edge);
  }
  end(i: number, end: 'src' | 'dst'): string {
    return this.held.list[i][end];
  }
  /** The edges as a store of their own, sharing the list until either changes it (copy on write: see {@link SharedList}). */
  copy(): ObjectEdges {
    return new ObjectEdges(this.held.handOut(), true);
  }
  /** Takes a list of its own now if its list is shared (so the next change copies nothing). */
  ownList(): void {
    this.held.own();
  }
}

/** What a builder gives at the end of a read, whatever its stores: the checks run, the problems sorted. */
export interface CheckedTrace {
  /** Every problem, sorted by position. */
  problems: Problem[];
  /** The trace fields (of the file's first trace when it holds several). */
  header: TraceHeader;
  /** Trace fields per trace id, when the file holds several traces. */
  traceHeaders?: Record<string, TraceHeader>;
  /** The events (with their trace named when the file holds several), the edges, and their origins. */
  events: EventStore;
  edges: EdgeStore;
  eventOrigins: OriginStore;
  edgeOrigins: OriginStore;
}

/** Collects validated records, reports schema problems at their fields, and runs the cross-record checks. */
class TraceBuilder {
  /** Per event index, how to find a field when its reader gave one (else {@link locateOrigin}; JSONL gives none). */
  private eventLocates?: (Locate | undefined)[];
  private edgeLocates?: (Locate | undefined)[];
  private header: TraceHeader = {};
  /** The cross-record checks, run as records come; dropped (checked at the end) once a second trace starts, which tags earlier events. */
  private checks: CrossRecordChecks | undefined;

  /**
   * @param locateOrigin finds a field of a record from its origin, for records added without their own locator.
   * @param eventOrigins/edgeOrigins where the origins of the records kept go (a store may copy an origin's fields: see {@link OriginStore.add}).
   * @param store/edgeStore where the events and edges kept go (default: lists of objects).
   */
  constructor(
    private readonly problems: Problem[],
    private readonly locateOrigin: (origin: Origin, path: Path, kind: 'event' | 'edge') => Range,
    private readonly eventOrigins: OriginStore = new OriginArray(),
    private readonly edgeOrigins: OriginStore = new OriginArray(),
    private readonly store: EventStore = new ObjectEvents(),
    private readonly edges: EdgeStore = new ObjectEdges(),
  ) {
    this.checks = new CrossRecordChecks(store, store.idTable);
  }

  /**
   * Takes lists of its own for the events and edges it shares with the trace it handed out last
   * (a growing read: see {@link SharedList}), so that the next read copies nothing. O(events + edges);
   * for a time when nothing waits on the reader.
   */
  ownLists(): void {
    if (this.store instanceof ObjectEvents) this.store.ownList();
    if (this.edges instanceof ObjectEdges) this.edges.ownList();
  }

  /** The events added so far, as objects (a builder made with the default store). */
  get events(): TraceEvent[] {
    return (this.store as ObjectEvents).list;
  }

  /**
   * Makes room for `events` events and `edges` edges in all (an estimate: more may come, at the
   * cost of growing as without it), so that origin columns and id table are sized once.
   */
  reserve(events: number, edges: number): void {
    if (this.eventOrigins instanceof LineOrigins) this.eventOrigins.reserve(events);
    if (this.edgeOrigins instanceof LineOrigins) this.edgeOrigins.reserve(edges);
    this.store.reserve(events);
    this.checks?.reserve(events);
  }

  /** Number of events added so far. */
  get eventCount(): number {
    return this.store.length;
  }

  /** Number of edges added so far. */
  get edgeCount(): number {
    return this.edges.length;
  }

  addEvent(value: unknown, origin: Origin, locate?: Locate): void {
    const store = this.store;
    if (store.addValue !== undefined) {
      // a store that takes the record's fields itself (columns): no event object when the fast check is sure of it
      const fields = store.addValue(value);
      if (fields !== undefined) {
        this.eventOrigins.add(origin);
        if (locate) (this.eventLocates ??= [])[store.length - 1] = locate;
        this.checks?.event(fields, store.length - 1, fields.repeat);
        return;
      }
    }
    const event = fastEvent(value) ?? this.validateEvent(value, origin, locate);
    if (event) {
      store.add(event as TraceEvent);
      this.eventOrigins.add(origin);
      if (locate) (this.eventLocates ??= [])[store.length - 1] = locate;
      this.checks?.event(event as TraceEvent, store.length - 1);
    }
  }

  /** Adds the event a record scanner read from a line's bytes (see {@link EventStore.addScanned}): no validation, it is sure of it. */
  addScannedEvent(mask: number, scan: RecordScan, origin: Origin): void {
    const store = this.store;
    const checked = store.addScanned!(mask, scan);
    this.eventOrigins.add(origin);
    this.checks?.event(checked, store.length - 1, checked.repeat);
  }

  addEdge(value: unknown, origin: Origin, locate?: Locate): void {
    const edge = fastEdge(value) ?? this.validateEdge(value, origin, locate);
    if (edge) {
      const edges = this.edges;
      edges.add(edge);
      this.edgeOrigins.add(origin);
      if (locate) (this.edgeLocates ??= [])[edges.length - 1] = locate;
      this.checks?.edge(edge, edges.length - 1);
    }
  }

  // zod's checks of a record, apart from addEvent and addEdge: a function making a closure that
  // captures `this` or an argument allocates a context at every call, even when the closure is not
  // made (once per record: 40 MB at 1M events).

  private validateEvent(value: unknown, origin: Origin, locate: Locate | undefined) {
    return this.validate(EventSchema, value, (path) => this.locateAt('event', origin, locate, path), 'event', EVENT_REQUIRED);
  }

  private validateEdge(value: unknown, origin: Origin, locate: Locate | undefined) {
    return this.validate(EdgeSchema, value, (path) => this.locateAt('edge', origin, locate, path), 'edge', EDGE_REQUIRED);
  }

  /** Adds a problem found outside the records' own checks. */
  problem(p: Problem): void {
    this.problems.push(p);
  }

  /** Sets (or, for a later JSONL line, updates) the trace fields. */
  setHeader(value: Record<string, unknown>, span: RecordSpan, update: boolean): void {
    const header = this.validate(TraceHeaderSchema, value, span.locate, 'trace fields');
    if (!header) return;
    // A trace-fields line naming another trace after events were read starts a new trace of the file.
    if (update && header.trace_id !== undefined && this.header.trace_id !== undefined && header.trace_id !== this.header.trace_id && this.store.length > this.traceStart) {
      this.startTrace(header, span);
      return;
    }
    this.header = update ? { ...this.header, ...header } : header;
    if (this.headers.length) this.headers[this.headers.length - 1] = this.header;
  }

  /** Trace fields of each trace of the file, in order, when the file holds several (JSONL). */
  private readonly headers: TraceHeader[] = [];
  /** Index of the first event of the current trace. */
  private traceStart = 0;
  /** Where the file's second trace starts (for the "several traces" info). */
  private secondTrace?: Range;

  private startTrace(header: TraceHeader, span: RecordSpan): void {
    if (!this.headers.length) {
      this.headers.push(this.header);
      this.secondTrace = span.origin.range;
    }
    if (this.headers.some((h) => h.trace_id === header.trace_id)) {
      this.problems.push({ severity: 'warning', message: `trace ${preview(header.trace_id!)} starts again here; its events join the earlier part of that trace`, range: span.origin.range });
    }
    this.checks = undefined;
    this.tagTrace(this.store);
    this.headers.push(header);
    this.header = header;
  }

  /**
   * Names the current trace on the events of `events` read since it started (unless an event names
   * its own); `keep` leaves where the current trace starts as it is (more of its events may come).
   */
  private tagTrace(events: EventStore, keep = false): void {
    if (!this.headers.length) return;
    events.tag(this.traceStart, this.header.trace_id!);
    if (!keep) this.traceStart = events.length;
  }

  /**
   * The trace of the records added so far, with the cross-record checks run and the problems sorted.
   * @param extra problems found outside the records (unusable lines), added to the builder's own.
   * @param keep true when more records may come (a growing read): nothing of the builder changes,
   *   and the lists returned are the builder's, shared until its next record (copy on write: it
   *   then takes lists of its own, or earlier through {@link ownLists}); false for the end of a
   *   whole read (its lists are returned).
   */
  finish(format: string, extra: readonly Problem[] = [], keep = false): LoadedTrace {
    const { problems, header, traceHeaders, events, edges, eventOrigins, edgeOrigins } = this.check(extra, keep);
    return {
      format,
      trace: { ...header, events: (events as ObjectEvents).list, edges: (edges as ObjectEdges).list },
      eventOrigins,
      edgeOrigins,
      problems,
      ...(traceHeaders ? { traceHeaders } : {}),
    };
  }

  /**
   * The end of a read (as {@link finish}) in the builder's own stores: the cross-record checks run,
   * the problems sorted, the events of a file holding several traces named by their trace.
   * @param extra problems found outside the records (unusable lines), added to the builder's own.
   * @param keep true when more records may come: nothing of the builder changes and the stores returned are copies.
   */
  check(extra: readonly Problem[], keep: boolean): CheckedTrace {
    const problems = keep ? this.problems.slice() : this.problems;
    for (const p of extra) problems.push(p);
    let events = this.store;
    let header = this.header;
    let traceHeaders: Record<string, TraceHeader> | undefined;
    if (this.headers.length > 1) {
      if (keep) events = events.copy();
      this.tagTrace(events, keep);
      traceHeaders = {};
      for (const h of this.headers) traceHeaders[h.trace_id!] = { ...traceHeaders[h.trace_id!], ...h };
      header = this.headers[0];
      if (!keep) this.header = header;
      const ids = Object.keys(traceHeaders);
      problems.push({ severity: 'info', message: `${ids.length} traces in this file (${ids.slice(0, 5).map((id) => preview(id)).join(', ')}${ids.length > 5 ? ', ...' : ''}); one graph with a lane group per trace; each trace is analysed on its own`, range: this.secondTrace! });
    } else if (keep) events = events.copy();
    const locate = (kind: 'event' | 'edge', i: number, path: Path) =>
      kind === 'event' ? this.locateAt(kind, this.eventOrigins.get(i)!, this.eventLocates?.[i], path) : this.locateAt(kind, this.edgeOrigins.get(i)!, this.edgeLocates?.[i], path);
    const edges = this.edges;
    const edgeEnd = (i: number, end: 'src' | 'dst') => edges.end(i, end);
    if (this.checks) this.checks.finish(edgeEnd, locate, problems);
    else checkEvents(events, edges.length, edgeEnd, locate, problems);
    problems.sort(byPosition);
    if (events.length === 0 && !problems.some((p) => p.severity === 'error')) {
      problems.push({ severity: 'warning', message: 'the trace has no events', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } });
    }
    if (!keep) for (const origins of [this.eventOrigins, this.edgeOrigins]) if (origins instanceof LineOrigins) origins.trim();
    return {
      header,
      events,
      edges: keep ? (edges as ObjectEdges).copy() : edges,
      eventOrigins: keep ? this.eventOrigins.copy() : this.eventOrigins,
      edgeOrigins: keep ? this.edgeOrigins.copy() : this.edgeOrigins,
      problems,
      ...(traceHeaders ? { traceHeaders } : {}),
    };
  }

  private locateAt(kind: 'event' | 'edge', origin: Origin, locate: Locate | undefined, path: Path): Range {
    return locate ? locate(path) : this.locateOrigin(origin, path, kind);
  }

  /**
   * Parses `value`; reports each issue at the field it concerns. When only optional fields are bad,
   * the record still loads without them (a stop without a valid reason gets `unknown`): one bad
   * field must not hide a whole event. Returns undefined when a required field is bad.
   */
  private validate<T>(schema: z.ZodType<T>, value: unknown, locate: Locate, what: string, required: readonly string[] = []): T | undefined {
    const { salvaged, issues, paths } = checkRecord(schema, value, required);
    if (!issues) return salvaged;
    const id = isPlainObject(value) && typeof value.id === 'string' ? ` ${preview(value.id)}` : '';
    issues.forEach((issue, k) => {
      this.problems.push({
        severity: 'error',
        message: `${what}${id}: ${describeIssue(value, paths[k], issue)}${salvaged ? salvageNote(value, paths[k]) : what === 'trace fields' ? '' : `; the ${what} is skipped`}`,
        range: locate(paths[k]),
      });
    });
    return salvaged;
  }
}

/** The fields an event and an edge cannot load without. */
const EVENT_REQUIRED = ['id', 't', 'type', 'agent'];
const EDGE_REQUIRED = ['src', 'dst', 'type'];

/**
 * zod's verdict on a record: the value it loads as (zod's value; when only optional fields are
 * bad, the value without them, a stop without a valid reason getting `unknown`), or undefined when
 * it does not load; and the issues found, with their paths (none when the record is valid).
 * @param required the fields whose problem skips the record.
 */
function checkRecord<T>(schema: z.ZodType<T>, value: unknown, required: readonly string[]): { salvaged: T | undefined; issues?: z.core.$ZodIssue[]; paths: Path[] } {
  const result = schema.safeParse(value);
  if (result.success) return { salvaged: result.data, paths: [] };
  const paths = result.error.issues.map((issue) => issue.path.filter((p): p is string | number => typeof p !== 'symbol'));
  const badFields = new Set(paths.map((p) => String(p[0] ?? '')));
  let salvaged: T | undefined;
  if (isPlainObject(value) && !badFields.has('') && ![...badFields].some((f) => required.includes(f))) {
    const rest: Record<string, unknown> = { ...value };
    for (const f of badFields) delete rest[f];
    if (rest.type === 'stop' && rest.reason === undefined) rest.reason = 'unknown';
    const again = schema.safeParse(rest);
    if (again.success) salvaged = again.data;
  }
  return { salvaged, issues: result.error.issues, paths };
}

/**
 * The event a record loads as, as the otrace readers take it (the fast check, else zod's value,
 * salvaged when only optional fields are bad), or undefined when it does not load. Writes no
 * problem: for a record read again from its bytes (src/trace/columns).
 */
export function loadedEvent(value: unknown): TraceEvent | undefined {
  return fastEvent(value) ?? checkRecord(EventSchema, value, EVENT_REQUIRED).salvaged;
}

/** The edge a record (the value of an edge line's `edge`) loads as, or undefined (see {@link loadedEvent}). */
export function loadedEdge(value: unknown): TraceEdge | undefined {
  return fastEdge(value) ?? checkRecord(EdgeSchema, value, EDGE_REQUIRED).salvaged;
}

/** What happened to a bad optional field of a record that still loads. */
function salvageNote(value: unknown, path: Path): string {
  const field = String(path[0]);
  if (field === 'reason' && isPlainObject(value) && value.type === 'stop') return '; the stop loads with reason "unknown"';
  return '; the field is ignored, the rest of the record loads';
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Orders problems by where they start in the file. */
export function byPosition(a: Problem, b: Problem): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

function describeIssue(value: unknown, path: Path, issue: z.core.$ZodIssue): string {
  const field = path.map(String).join('.');
  let v: unknown = value;
  for (const p of path) v = isPlainObject(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[p] : undefined;
  if (v === undefined && path.length > 0) return `missing required field "${field}"`;
  if (field === 'type' && issue.code === 'invalid_value') {
    return `unknown type ${preview(v)} (expected one of: ${issue.values.join(', ')})`;
  }
  if (issue.code === 'invalid_value') return `"${field}" is ${preview(v)}; expected one of: ${issue.values.join(', ')}`;
  if (issue.code === 'too_small' && typeof v === 'string') return `"${field}" must not be empty`;
  if (issue.code === 'too_small') return `"${field}" must be >= ${issue.minimum}, not ${preview(v)}`;
  if (issue.code === 'invalid_type') return `${field ? `"${field}" ` : ''}must be ${article(issue.expected)}, not ${preview(v)}`;
  return field ? `"${field}": ${issue.message}` : issue.message;
}

