/**
 * What a reader returns: the trace, where each event and edge came from, and the problems found.
 * Positions are 0-based (line, character), like VS Code's; the CLI prints them 1-based.
 */
import type { Trace, TraceHeader } from './schema';

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
 * The origin of a whole-line record read from bytes (the streaming JSONL reader): the same fields
 * as a plain {@link Origin} of line `record` from character 0 to `chars`, with `offset` and
 * `bytes`, in one small object (about 56 bytes instead of 180: a 1M-event trace keeps one per
 * event and edge). `range` is made when asked (a fresh object each time: do not compare ranges by
 * identity); JSON gives the plain origin's fields in its order. Spreading it (`{ ...o }`) loses
 * `range`: read its fields instead.
 */
export class LineOrigin implements Origin {
  readonly #chars: number;
  /** @param chars length of the line in UTF-16 code units. */
  constructor(
    readonly record: number,
    chars: number,
    readonly offset: number,
    readonly bytes: number,
  ) {
    this.#chars = chars;
  }

  get range(): Range {
    return { start: { line: this.record, character: 0 }, end: { line: this.record, character: this.#chars } };
  }

  toJSON(): Origin {
    return Object.assign({ range: this.range }, this);
  }
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
  eventOrigins: (Origin | undefined)[];
  /** Origins of `trace.edges`, index for index (undefined for edges an importer derived). */
  edgeOrigins: (Origin | undefined)[];
  problems: Problem[];
  /**
   * Trace fields per trace, by `trace_id`, when the file holds several traces each with its own
   * fields (a JSONL file with several trace-fields lines); see src/trace/trace-groups.ts.
   */
  traceHeaders?: Record<string, TraceHeader>;
  /** The mapping file (`*.otrace-map.json`) that read it, when one did (src/trace/mapping-choice.ts). */
  mappingPath?: string;
}

/** The origin of the first event with this id (for callers that only hold an id, such as tests and the CLI). */
export function originOfId(loaded: LoadedTrace, id: string): Origin | undefined {
  const i = loaded.trace.events.findIndex((e) => e.id === id);
  return i === -1 ? undefined : loaded.eventOrigins[i];
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
