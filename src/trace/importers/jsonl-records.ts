/**
 * Shared pieces of the importers of agent transcripts written as JSONL (Claude Code sessions,
 * Codex rollouts): reading the lines into records with positioned problems, clock times to trace
 * seconds, content clipping, file paths, and a builder that assembles events, edges and origins
 * into a {@link LoadedTrace} (with the shared cross-record checks).
 *
 * Pure: imports nothing from `vscode`.
 */
import { parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { checkTrace } from '../check';
import type { LoadedTrace, Origin, Problem, Range } from '../model';
import type { EdgeType, TraceEdge, TraceEvent, TraceHeader } from '../schema';

/** One parsed line of a JSONL file. */
export interface JsonlRecord {
  /** 0-based line index in its file (also the `record` of the origins of its events). */
  line: number;
  /** Length of the line in UTF-16 code units, without its line break. */
  length: number;
  /** The parsed JSON object. */
  value: Record<string, unknown>;
}

/** The records of a JSONL text, and the problems of the lines that could not be used. */
export interface JsonlRecords {
  records: JsonlRecord[];
  problems: Problem[];
  /** Number of lines, counting a last line without a line break. */
  lineCount: number;
}

/** True for a non-null, non-array object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` if it is a string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** `v` if it is a finite number, else undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * Calls `onRecord` for each record of a JSONL text, in line order, without keeping them (so a
 * one-pass importer holds only what it makes of them). Blank lines are skipped. A line that is not
 * JSON gives an error at the parse error's column ("last line is cut off" when it is the last line
 * and the text does not end in a line break); a line that is not an object gives an error on the
 * line; the other lines load. Never throws.
 * @param file path put on every problem (for files other than the one opened), or undefined.
 * @returns the problems, and the number of lines (counting a last line without a line break).
 */
export function forEachJsonlRecord(text: string, onRecord: (record: JsonlRecord) => void, file?: string): { problems: Problem[]; lineCount: number } {
  const problems: Problem[] = [];
  let line = 0;
  let start = 0;
  const n = text.length;
  while (start <= n) {
    let end = text.indexOf('\n', start);
    const last = end === -1;
    if (last) end = n;
    let stop = end;
    if (stop > start && text.charCodeAt(stop - 1) === 13) stop--;
    if (!(last && start === n) && !isBlank(text, start, stop)) {
      const body = text.slice(start, stop);
      let value: unknown;
      let ok = true;
      try {
        value = JSON.parse(body);
      } catch {
        ok = false;
      }
      if (!ok) {
        problems.push(badLineProblem(body, line, last && !text.endsWith('\n'), file));
      } else if (!isObject(value)) {
        problems.push(withFile({ severity: 'error', message: 'a JSONL record must be a JSON object; line skipped', range: lineRange(line, body.length) }, file));
      } else {
        onRecord({ line, length: body.length, value });
      }
    }
    if (last) break;
    start = end + 1;
    line++;
  }
  return { problems, lineCount: line + 1 };
}

/** All the records of a JSONL text, with the problems of its unusable lines (see {@link forEachJsonlRecord}). */
export function readJsonlRecords(text: string, file?: string): JsonlRecords {
  const records: JsonlRecord[] = [];
  const { problems, lineCount } = forEachJsonlRecord(text, (r) => records.push(r), file);
  return { records, problems, lineCount };
}

/** True when `text[start, stop)` is only whitespace (without copying it). */
function isBlank(text: string, start: number, stop: number): boolean {
  for (let i = start; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10 && c !== 0xfeff) return false;
  }
  return true;
}

function badLineProblem(body: string, line: number, cutOff: boolean, file: string | undefined): Problem {
  const errors: ParseError[] = [];
  parseTree(body, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  const at = first ? Math.min(first.offset, body.length) : 0;
  const what = first ? printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() : 'invalid JSON';
  return withFile(
    {
      severity: 'error',
      message: cutOff ? `last line is cut off (incomplete JSON: ${what}); the lines before it loaded` : `JSON syntax error: ${what}; line skipped`,
      range: { start: { line, character: at }, end: { line, character: Math.min(body.length, at + Math.max(first?.length ?? 1, 1)) } },
    },
    file,
  );
}

function withFile(p: Problem, file: string | undefined): Problem {
  if (file !== undefined) p.file = file;
  return p;
}

/** The range of a whole line of `length` characters. */
export function lineRange(line: number, length: number): Range {
  return { start: { line, character: 0 }, end: { line, character: length } };
}

/** The origin of an event made from a whole record (its line), in `file` when that is not the opened file. */
export function recordOrigin(record: JsonlRecord, file?: string): Origin {
  const origin: Origin = { range: lineRange(record.line, record.length), record: record.line };
  if (file !== undefined) origin.file = file;
  return origin;
}

/** The value of `n` decimal digits of `s` at `i`, or -1 when one is not a digit. */
function digits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = s.charCodeAt(i + k) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * Milliseconds since the epoch of an ISO 8601 timestamp, or undefined when it does not parse.
 * The UTC form agent transcripts write (`2026-02-12T15:36:08.028Z`) is read digit by digit (several
 * times faster than `Date.parse`, which it agrees with); any other form goes to `Date.parse`.
 */
export function parseTimestamp(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  if (v.length === 24 && v.charCodeAt(4) === 45 && v.charCodeAt(7) === 45 && v.charCodeAt(10) === 84 && v.charCodeAt(13) === 58 && v.charCodeAt(16) === 58 && v.charCodeAt(19) === 46 && v.charCodeAt(23) === 90) {
    const y = digits(v, 0, 4);
    const mo = digits(v, 5, 2);
    const d = digits(v, 8, 2);
    const h = digits(v, 11, 2);
    const mi = digits(v, 14, 2);
    const se = digits(v, 17, 2);
    const ms = digits(v, 20, 3);
    if (y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && se >= 0 && se <= 59 && ms >= 0) {
      return Date.UTC(y, mo - 1, d, h, mi, se, ms);
    }
  }
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Inline content is clipped to this many UTF-16 code units (see {@link clipContent}). */
export const MAX_CONTENT_CHARS = 4000;

/**
 * Puts `text` on the event as `content`, clipped to `max` characters plus an ellipsis `…` when it
 * is longer; then `content_length` records the full length (UTF-16 code units). Empty text is left out.
 */
export function clipContent(event: Partial<TraceEvent>, text: string | undefined, max = MAX_CONTENT_CHARS): void {
  if (text === undefined || text === '') return;
  if (text.length <= max) {
    event.content = text;
    return;
  }
  let cut = max;
  const c = text.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--; // do not split a surrogate pair
  event.content = text.slice(0, cut) + '…';
  (event as Record<string, unknown>).content_length = text.length;
}

/** The directory part of a path ('' when there is none); keeps the path's own separator. */
export function dirName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i === -1 ? '' : path.slice(0, i);
}

/** The last part of a path. */
export function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return path.slice(i + 1);
}

/** Joins path parts with the separator `like` uses (`\` for a Windows path, else `/`). */
export function joinPath(like: string, ...parts: string[]): string {
  const sep = like.includes('\\') && !like.includes('/') ? '\\' : '/';
  return parts.filter((p) => p !== '').join(sep);
}

/**
 * Collects the events and edges of an import with their origins, keeps event ids unique
 * (a repeated id gets `#2`, `#3`, ...), and finishes with the shared checks of {@link checkTrace};
 * problems about events of another file carry that file.
 */
export class TraceAssembler {
  readonly events: TraceEvent[] = [];
  readonly edges: TraceEdge[] = [];
  readonly eventOrigins = new Map<string, Origin>();
  private readonly origins: Origin[] = [];
  private readonly byId = new Map<string, TraceEvent>();

  constructor(readonly problems: Problem[]) {}

  /** Adds an event; returns the id it got (its own, or a suffixed one when the id was taken). */
  add(event: TraceEvent, origin: Origin): string {
    let id = event.id;
    if (this.byId.has(id)) {
      let k = 2;
      while (this.byId.has(`${event.id}#${k}`)) k++;
      id = `${event.id}#${k}`;
      event.id = id;
    }
    this.events.push(event);
    this.origins.push(origin);
    this.byId.set(id, event);
    this.eventOrigins.set(id, origin);
    return id;
  }

  /** The event with this id, if added. */
  get(id: string): TraceEvent | undefined {
    return this.byId.get(id);
  }

  /** Adds an edge between two added events (ignored when either is undefined). */
  edge(src: string | undefined, dst: string | undefined, type: EdgeType): void {
    if (src === undefined || dst === undefined || src === dst) return;
    this.edges.push({ src, dst, type });
  }

  /**
   * Orders the events by `t`, keeping the order they were added in among equal times (the order of
   * their records). Agent transcripts are not written in time order: a tool's result record can
   * follow calls streamed after it started, with its own, earlier timestamp.
   */
  private sortByTime(): void {
    const n = this.events.length;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) if (this.events[i].t < this.events[i - 1].t) sorted = false;
    if (sorted) return;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => this.events[a].t - this.events[b].t || a - b);
    const events = order.map((i) => this.events[i]);
    const origins = order.map((i) => this.origins[i]);
    for (let i = 0; i < n; i++) {
      this.events[i] = events[i];
      this.origins[i] = origins[i];
    }
  }

  /**
   * Orders the events by time, runs the cross-record checks and returns the loaded trace.
   * @param format the importer's format id; @param header trace fields (trace_id, metadata, ...).
   */
  finish(format: string, header: TraceHeader): LoadedTrace {
    this.sortByTime();
    let located: string | undefined;
    const checked = new FileProblems(() => located);
    checkTrace(
      this.events,
      this.edges,
      (kind, i) => {
        if (kind === 'event') {
          const o = this.origins[i];
          located = o.file;
          return o.range;
        }
        const dst = this.eventOrigins.get(this.edges[i].dst) ?? this.eventOrigins.get(this.edges[i].src);
        located = dst?.file;
        return dst?.range ?? lineRange(0, 0);
      },
      checked,
    );
    for (const p of checked) this.problems.push(p);
    if (this.events.length === 0 && !this.problems.some((p) => p.severity === 'error')) {
      this.problems.push({ severity: 'warning', message: 'the trace has no events', range: lineRange(0, 0) });
    }
    return {
      format,
      trace: { ...header, events: this.events, edges: this.edges },
      eventOrigins: this.eventOrigins,
      edgeOrigins: this.edges.map(() => undefined),
      problems: this.problems,
    };
  }
}

/** A problem list that stamps each pushed problem with the file of the record last located. */
class FileProblems extends Array<Problem> {
  constructor(private readonly fileOfLast: () => string | undefined) {
    super();
  }

  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  override push(...items: Problem[]): number {
    const file = this.fileOfLast();
    for (const p of items) if (file !== undefined && p.file === undefined) p.file = file;
    return super.push(...items);
  }
}

/**
 * Seconds from `base` (epoch ms) to `ms`, never negative, rounded to the millisecond.
 * Used for every event's `t` (the source timestamps are ISO strings with millisecond precision).
 */
export function secondsSince(base: number, ms: number): number {
  const s = (ms - base) / 1000;
  return s > 0 ? Math.round(s * 1000) / 1000 : 0;
}
