/**
 * What a reader returns: the trace, where each event and edge came from, and the problems found.
 * Positions are 0-based (line, character), like VS Code's; the CLI prints them 1-based.
 */
import type { EventFields } from './event-fields';
import type { Trace, TraceHeader } from './schema';
import { NotedCopies } from './shared-prefix';

/** A 0-based position in a text file; `character` counts UTF-16 code units. */
export interface Position {
  line: number;
  character: number;
}

/** A range in a text file, end exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

export type Severity = 'error' | 'warning' | 'info';

/** A positioned problem in a trace file. */
export interface Problem {
  severity: Severity;
  message: string;
  range: Range;
  /** Path of the file the problem is in, when it is not the file that was opened (e.g. a sub-agent file). */
  file?: string;
  /**
   * Set on the problem of a JSONL file's last line when it has no line break and does not parse: cut
   * off, or still being written (src/engine/shown-problems.ts says which, for a file seen growing).
   */
  unterminated?: true;
  /**
   * What the problem says instead, as information, when its file is being written (seen growing:
   * src/engine/shown-problems.ts): an empty file, tool calls with no result yet are what a
   * running writer leaves, not faults.
   */
  whileWritten?: string;
}

/** Where an event or edge came from. */
export interface Origin {
  range: Range;
  /** 0-based index of the record in its source's own list (line index for JSONL, array index for JSON). */
  record: number;
  /** Path of the file, when it is not the file that was opened (e.g. a Claude Code sub-agent file). */
  file?: string;
  /** Byte offset of the record in its file, when it was read from bytes (the streaming JSONL reader): to read it again on demand. */
  offset?: number;
  /** Byte length of the record (with {@link offset}). */
  bytes?: number;
}

/**
 * The origins of a trace's events (or edges), index for index. Read them with {@link get}: a
 * compact list ({@link LineOrigins}) makes each origin when asked, a fresh object each time (do
 * not compare origins by identity, do not change them). JSON gives the array of the origins.
 */
export interface OriginList {
  /** Number of records (events or edges) the list covers. */
  readonly length: number;
  /** The origin of record `i`; undefined when it has none (an importer derived it) or `i` is not an index. */
  get(i: number): Origin | undefined;
  /** The `record` of origin `i` (its line, for JSONL), without making the origin; undefined as for {@link get}. */
  record(i: number): number | undefined;
}

/** The origins of a list as an array, index for index (one object made per origin of a compact list). */
export function originsOf(list: OriginList): (Origin | undefined)[] {
  return Array.from({ length: list.length }, (_, i) => list.get(i));
}

/** An {@link OriginList} that takes origins one at a time, as a reader makes them (src/trace/read.ts). */
export interface OriginStore extends OriginList {
  /** Appends the origin of the next record (a store may copy its fields and not keep `origin`). */
  add(origin: Origin): void;
  /** A store with the same origins, for a reader that goes on adding to this one. */
  copy(): OriginStore;
}

/** Origins as an array of objects (or undefined, for derived records): the readers of text and the importers. */
export class OriginArray implements OriginStore {
  /** The copies handed out, each noted against the one before it (src/trace/shared-prefix.ts). */
  private copies?: NotedCopies;
  /** @param items the origins, index for index (kept, not copied). */
  constructor(private readonly items: (Origin | undefined)[] = []) {}

  get length(): number {
    return this.items.length;
  }

  get(i: number): Origin | undefined {
    return this.items[i];
  }

  record(i: number): number | undefined {
    return this.items[i]?.record;
  }

  add(origin: Origin | undefined): void {
    this.items.push(origin);
  }

  copy(): OriginArray {
    const items = this.items.slice();
    const out = new OriginArray(items);
    (this.copies ??= new NotedCopies()).made(out, items.length);
    return out;
  }

  toJSON(): (Origin | undefined)[] {
    return this.items;
  }
}

/**
 * The origin of a whole-line record read from bytes: line `record` from character 0 to `chars`,
 * at byte `offset`, `bytes` long. The streaming JSONL reader moves one such object from line to
 * line and hands it to {@link LineOrigins.add}, which copies its four numbers; `range` is made
 * when asked (a fresh object each time). JSON gives the plain origin's fields in its order.
 * Spreading it (`{ ...o }`) loses `range`: read its fields instead.
 */
export class LineOrigin implements Origin {
  /** @param chars length of the line in UTF-16 code units. */
  constructor(
    public record: number,
    public chars: number,
    public offset: number,
    public bytes: number,
  ) {}

  get range(): Range {
    return { start: { line: this.record, character: 0 }, end: { line: this.record, character: this.chars } };
  }

  toJSON(): Origin {
    return { range: this.range, record: this.record, offset: this.offset, bytes: this.bytes };
  }
}

/**
 * The origin of a whole-line record read from a text (a document's, or a followed file's text):
 * line `record` from character 0 to `chars`. The JSONL reader of a text moves one such object from
 * line to line and hands it to {@link LineOrigins.add} (a store made for text), which copies its two
 * numbers; `range` is made when asked. JSON gives the plain origin `{ range, record }`.
 */
export class TextLineOrigin implements Origin {
  /** @param chars length of the line in UTF-16 code units. */
  constructor(
    public record: number,
    public chars: number,
  ) {}

  get range(): Range {
    return { start: { line: this.record, character: 0 }, end: { line: this.record, character: this.chars } };
  }

  toJSON(): Origin {
    return { range: this.range, record: this.record };
  }
}

/**
 * The origins of whole-line records (the JSONL reader's), in typed columns: line and UTF-16 length,
 * and, read from bytes (the streaming reader), byte offset and byte length: 8 or 20 bytes a record,
 * no object per record (a 1M-event trace kept an object of about 66 bytes per event and edge read
 * from bytes; read from a text, four objects a record and a map entry). {@link get} makes the plain
 * origin of a record when asked: `{ range, record, offset, bytes }` from bytes, `{ range, record }`
 * from a text.
 */
export class LineOrigins implements OriginStore {
  private lines = new Int32Array(16);
  private chars = new Int32Array(16);
  private offsets: Float64Array;
  private sizes: Int32Array;
  private count = 0;
  /** True while the columns are those of the store this one is a {@link copy} of (read up to {@link count}; written only once copied). */
  private shared = false;
  /** The copies handed out, each noted against the one before it. */
  private copies?: NotedCopies;
  /** True while each record's line is after the one before (then the records are in range order: see {@link inLineOrder}). */
  private ordered = true;

  /**
   * @param fromBytes true for records read from bytes ({@link add} takes {@link LineOrigin}s: byte
   *   offsets and lengths kept), false for records read from a text ({@link TextLineOrigin}s).
   */
  constructor(readonly fromBytes = true) {
    this.offsets = new Float64Array(fromBytes ? 16 : 0);
    this.sizes = new Int32Array(fromBytes ? 16 : 0);
  }

  get length(): number {
    return this.count;
  }

  /** True when each record is on a later line than the one before: its index order is the order of its ranges. */
  get inLineOrder(): boolean {
    return this.ordered;
  }

  /**
   * Appends a whole-line origin: @param origin a {@link LineOrigin} for a store made for bytes, a
   * {@link TextLineOrigin} for one made for text (its fields are copied; it may be reused).
   */
  add(origin: Origin): void {
    const o = origin as LineOrigin | TextLineOrigin;
    const n = this.count;
    // columns of its own before the first write of a copy (one copy, grown at once when full)
    if (this.shared || n === this.lines.length) this.grow(n === this.lines.length ? 2 * n : this.lines.length);
    if (n > 0 && o.record <= this.lines[n - 1]) this.ordered = false;
    this.lines[n] = o.record;
    this.chars[n] = o.chars;
    if (this.fromBytes) {
      this.offsets[n] = (o as LineOrigin).offset;
      this.sizes[n] = (o as LineOrigin).bytes;
    }
    this.count = n + 1;
  }

  get(i: number): Origin | undefined {
    if (!(i >= 0 && i < this.count) || !Number.isInteger(i)) return undefined;
    const line = this.lines[i];
    const range = { start: { line, character: 0 }, end: { line, character: this.chars[i] } };
    return this.fromBytes ? { range, record: line, offset: this.offsets[i], bytes: this.sizes[i] } : { range, record: line };
  }

  record(i: number): number | undefined {
    return i >= 0 && i < this.count && Number.isInteger(i) ? this.lines[i] : undefined;
  }

  /** Byte offset of record i's line in its file (a store made for bytes; i must be an index below {@link length}). */
  offsetOf(i: number): number {
    return this.offsets[i];
  }

  /** Byte length of record i's line, without its line break (a store made for bytes; i below {@link length}). */
  bytesOf(i: number): number {
    return this.sizes[i];
  }

  /**
   * The origins so far, for a reader that goes on adding to this store: the copy reads the same
   * columns up to its length (this store only writes after its own length, or into new columns
   * once it grows) and takes columns of its own when it is added to. O(1); noted against the copy
   * made before it (src/trace/shared-prefix.ts: records are never changed, only added).
   */
  copy(): LineOrigins {
    const out = new LineOrigins(this.fromBytes);
    out.lines = this.lines;
    out.chars = this.chars;
    out.offsets = this.offsets;
    out.sizes = this.sizes;
    out.shared = true;
    out.count = this.count;
    out.ordered = this.ordered;
    (this.copies ??= new NotedCopies()).made(out, this.count);
    return out;
  }

  /** Makes room for `count` records in all, so that adding up to that many copies nothing. */
  reserve(count: number): void {
    if (count > this.lines.length) this.grow(count);
  }

  /**
   * Lets go of the room kept for more records (a whole read is done), unless it is at most an
   * eighth of the records (room {@link reserve}d from an estimate: copying the columns to free it
   * would cost more time than the room holds memory).
   */
  trim(): void {
    if (this.lines.length - this.count > this.count / 8) this.grow(this.count);
  }

  toJSON(): Origin[] {
    return Array.from({ length: this.count }, (_, i) => this.get(i)!);
  }

  private grow(size: number): void {
    size = Math.max(size, 1);
    this.lines = resized(this.lines, size, this.count);
    this.chars = resized(this.chars, size, this.count);
    if (this.fromBytes) {
      this.offsets = resized(this.offsets, size, this.count);
      this.sizes = resized(this.sizes, size, this.count);
    }
    this.shared = false;
  }
}

/** A column of its own of `size` entries holding the first `count` of `column` (then zeros). */
export function resized<T extends Int32Array | Float64Array>(column: T, size: number, count: number): T {
  const out = new (column.constructor as new (length: number) => T)(size);
  out.set(column.subarray(0, count));
  return out;
}

/** A trace read from a file, with its origins and problems. */
export interface LoadedTrace {
  /** Id of the format that read it, e.g. `otrace-jsonl`, `survey-json`, `claude-code`. */
  format: string;
  trace: Trace & { edges: NonNullable<Trace['edges']> };
  /**
   * Where each event came from, index for index with `trace.events` (ids can repeat in real files,
   * so events are keyed by their index, never by their id).
   */
  eventOrigins: OriginList;
  /** Origins of `trace.edges`, index for index (undefined for edges an importer derived). */
  edgeOrigins: OriginList;
  problems: Problem[];
  /**
   * Trace fields per trace, by `trace_id`, when the file holds several traces each with its own
   * fields (a JSONL file with several trace-fields lines); see src/trace/trace-groups.ts.
   */
  traceHeaders?: Record<string, TraceHeader>;
  /** The mapping file (`*.otrace-map.json`) that read it, when one did (src/trace/mapping-choice.ts). */
  mappingPath?: string;
  /**
   * Other files the import read that no event points into (as the importer named them: an OTel
   * export's sibling logs file, whose records are joined into span content), so a change to one
   * reads the trace again as a change to a sub-agent file does.
   */
  readFiles?: string[];
  /**
   * The events field by field, when something other than `trace.events` keeps them (the column
   * reader's columns: src/trace/columns/column-fields.ts); the analysis's index reads them from here
   * then. Index for index with `trace.events`.
   */
  eventFields?: EventFields;
}

/** True when the trace records no clock: its importer says `t` counts steps (`metadata.time: 'step-index'`: Who&When, MAST AG2). */
export function countsSteps(loaded: Pick<LoadedTrace, 'trace'>): boolean {
  return (loaded.trace.metadata as { time?: unknown } | undefined)?.time === 'step-index';
}

/** The origin of the first event with this id (for callers that only hold an id, such as tests and the CLI). */
export function originOfId(loaded: LoadedTrace, id: string): Origin | undefined {
  const i = loaded.trace.events.findIndex((e) => e.id === id);
  return i === -1 ? undefined : loaded.eventOrigins.get(i);
}

/** Maps character offsets of one text to positions, by binary search over line starts. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  /** Number of lines (a final newline starts an empty last line). */
  get lineCount(): number {
    return this.starts.length;
  }

  /** Offset of the first character of a 0-based line. */
  lineStart(line: number): number {
    return this.starts[line];
  }

  /** The position of a 0-based character offset. */
  position(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }

  /** The range of `length` characters at `offset`. */
  range(offset: number, length: number): Range {
    return { start: this.position(offset), end: this.position(offset + length) };
  }
}

/** Formats a position 1-based as `LINE:COLUMN`. */
export function formatPosition(p: Position): string {
  return `${p.line + 1}:${p.character + 1}`;
}
