/**
 * Shared pieces of the importers of agent transcripts written as JSONL (Claude Code sessions,
 * Codex rollouts): reading the lines into records with positioned problems, clock times to trace
 * seconds, content (kept whole, ANSI stripped), file paths, and a builder that assembles events, edges and origins
 * into a {@link LoadedTrace} (with the shared cross-record checks).
 *
 * Pure: imports nothing from `vscode`.
 */
import { checkTrace } from '../check';
import { forEachJsonlRecord, lineRange, readJsonlRecords, type JsonlRecord, type JsonlRecords } from '../jsonl';
import { OriginArray, type LoadedTrace, type Origin, type Problem } from '../model';
export { forEachJsonlRecord, lineRange, readJsonlRecords, type JsonlRecord, type JsonlRecords };
import type { EdgeType, TraceEdge, TraceEvent, TraceHeader } from '../schema';
import { hasAnsi, stripAnsi } from '../ansi';

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

/**
 * Puts `text` on the event as `content`, whole (large values are kept: the UI collapses them, see
 * docs/model.md), terminal escape sequences stripped (then `content_ansi: true` says there were
 * some). Empty text is left out.
 */
export function setContent(event: Partial<TraceEvent>, text: string | undefined): void {
  if (text === undefined || text === '') return;
  if (hasAnsi(text)) {
    text = stripAnsi(text);
    (event as Record<string, unknown>).content_ansi = true;
  }
  event.content = text;
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
  private readonly origins: Origin[] = [];
  private readonly originById = new Map<string, Origin>();
  private readonly byId = new Map<string, TraceEvent>();
  /** Index in {@link events} of each id (until the events are ordered by time at the end). */
  private readonly indexById = new Map<string, number>();
  /**
   * Events this assembler may change in place: those it added, or copied since the last fork.
   * The others are shared with a fork (or the trace a fork returned): copied on their first {@link get}.
   */
  private owned = new WeakSet<TraceEvent>();
  /** The assembler this one is a fork of: ids and origins not found here are looked up there (it does not change while the fork is in use). */
  private parent?: TraceAssembler;

  constructor(readonly problems: Problem[]) {}

  /**
   * A copy to go on with while this one is kept (a growing import finishes a copy): the lists are
   * copied, the maps looked up through this one, and the events shared until either side asks
   * for one to change it ({@link get} copies it then, with its arrays: readers set an event's
   * fields and add to its lists, never change an object inside it). Neither may add to the other
   * while the copy is in use.
   * @param problems the copy's problem list.
   */
  fork(problems: Problem[]): TraceAssembler {
    const f = new TraceAssembler(problems);
    f.parent = this;
    for (let i = 0; i < this.events.length; i++) {
      f.events.push(this.events[i]);
      f.origins.push(this.origins[i]);
    }
    for (const edge of this.edges) f.edges.push(edge);
    // From now on the copy's trace holds these events: this assembler copies one before changing it.
    this.owned = new WeakSet();
    return f;
  }

  /** Adds an event; returns the id it got (its own, or a suffixed one when the id was taken). */
  add(event: TraceEvent, origin: Origin): string {
    let id = event.id;
    if (this.find(id)) {
      let k = 2;
      while (this.find(`${event.id}#${k}`)) k++;
      id = `${event.id}#${k}`;
      event.id = id;
    }
    this.events.push(event);
    this.origins.push(origin);
    this.byId.set(id, event);
    this.indexById.set(id, this.events.length - 1);
    this.originById.set(id, origin);
    this.owned.add(event);
    return id;
  }

  /** The event with this id, if added, to read or change (a shared one is copied first). */
  get(id: string): TraceEvent | undefined {
    const e = this.find(id);
    if (!e || this.owned.has(e)) return e;
    const copy = copyEvent(e);
    const i = this.indexOf(id);
    if (i !== undefined && this.events[i] === e) this.events[i] = copy;
    this.byId.set(id, copy);
    this.owned.add(copy);
    return copy;
  }

  /** Where the event with this id came from, if added. */
  originOf(id: string): Origin | undefined {
    return this.originById.get(id) ?? this.parent?.originOf(id);
  }

  private find(id: string): TraceEvent | undefined {
    return this.byId.get(id) ?? this.parent?.find(id);
  }

  private indexOf(id: string): number | undefined {
    return this.indexById.get(id) ?? this.parent?.indexOf(id);
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
      this.indexById.set(events[i].id, i);
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
        const dst = this.originOf(this.edges[i].dst) ?? this.originOf(this.edges[i].src);
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
      eventOrigins: new OriginArray([...this.origins]),
      edgeOrigins: new OriginArray(this.edges.map(() => undefined)),
      problems: this.problems,
    };
  }
}

/** A copy of an event: its fields, and a copy of each array field (`causes`, `response_events`). */
function copyEvent(e: TraceEvent): TraceEvent {
  const out = { ...e } as Record<string, unknown>;
  for (const k in out) if (Array.isArray(out[k])) out[k] = (out[k] as unknown[]).slice();
  return out as unknown as TraceEvent;
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

/** A JSON Lines reader's clock: the first timestamp read (ms since the epoch) and the last one. */
export interface RecordClock {
  base: number | undefined;
  lastMs: number | undefined;
}

/**
 * The time of a record in seconds since `clock.base`: its own `timestamp` ({@link parseTimestamp}),
 * else the last record's (a record without one happened after it); 0 until a time is known. The
 * first timestamp read becomes the base; `clock` is updated.
 */
export function recordSeconds(clock: RecordClock, timestamp: unknown): number {
  const own = parseTimestamp(timestamp);
  if (clock.base === undefined && own !== undefined) clock.base = own;
  const ms = own ?? clock.lastMs ?? clock.base;
  clock.lastMs = ms;
  return clock.base === undefined || ms === undefined ? 0 : secondsSince(clock.base, ms);
}

/**
 * The info a reader gives for records it read as their own kinds, e.g. `read as their own kinds:
 * 2 calls refused by the user, 1 user interruption`: each `[count, one, many]` above zero, in order;
 * undefined when every count is zero.
 */
export function ownKindsMessage(kinds: readonly (readonly [number, string, string])[]): string | undefined {
  const said = kinds.filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n > 1 ? many : one}`);
  return said.length ? `read as their own kinds: ${said.join(', ')}` : undefined;
}
