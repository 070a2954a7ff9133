/**
 * Reading a JSONL file that grows, a part at a time: each call parses only the lines completed
 * since the last one, numbered and placed as in the whole file, so the records and problems are
 * those {@link forEachJsonlRecord} gives on the whole text. A last line without its line break yet
 * is read on its own each time (a cut-off line, or a record whose break has not come) and never
 * taken into what was read, unless the caller takes it ({@link JsonlFeed.hold}): then the line that
 * completes it must be the same text, else the file reads whole again.
 *
 * Pure: imports nothing from `vscode` or `node:fs`; the files come through {@link GrowingFiles}
 * (src/trace/live-files.ts on disk, a map in tests).
 */
import type { FileAccess } from './formats';
import { forEachJsonlRecord, type JsonlRecord, type JsonlRecords } from './jsonl';
import type { Problem } from './model';

/** A file as a growing read sees it at one moment. */
export interface GrowingText {
  /** Changes each time the file was read whole again (truncated, replaced, rewritten): what was read of it before no longer holds. */
  epoch: number;
  /** UTF-16 length of its complete lines (the text up to and including its last line break). */
  complete: number;
  /** Its complete lines from character `from` on (0 ≤ from ≤ complete). */
  since(from: number): string;
  /** Its last line, not ended by a line break yet ('' when the text ends in one). */
  tail: string;
}

/** Files read as they grow: the opened trace and the files it pulls in (sub-agent transcripts). */
export interface GrowingFiles extends FileAccess {
  /** The file as read so far (read whole the first time it is asked for), or undefined when it cannot be read. */
  grown(path: string): GrowingText | undefined;
}

/** What a {@link JsonlFeed} read: records (line and `start` in the whole file), problems of unusable lines, and the text they came from. */
export interface FeedRead {
  records: JsonlRecord[];
  problems: Problem[];
  text: string;
}

/** One file read line by line as it grows (see the file comment). */
export class JsonlFeed {
  private epoch: number | undefined;
  /** Characters of complete lines read (the start of the next line to read). */
  private consumed = 0;
  /** Index of the next line to read. */
  private line = 0;
  /** The pending last line, taken as a record already (see {@link hold}). */
  private held: string | undefined;

  /** @param file path put on every problem (a file other than the opened one), or undefined. */
  constructor(private readonly file?: string) {}

  /** Lines read so far (complete ones). */
  get lines(): number {
    return this.line;
  }

  /**
   * The lines completed since the last call, or `reset` when they cannot follow what was read: the
   * file was read whole again (another epoch) or a held line came back different.
   */
  next(text: GrowingText): FeedRead | 'reset' {
    if (this.epoch === undefined) this.epoch = text.epoch;
    else if (text.epoch !== this.epoch || text.complete < this.consumed) return 'reset';
    let base = this.consumed;
    let chunk = text.since(base);
    if (this.held !== undefined) {
      const nl = chunk.indexOf('\n');
      if (nl === -1) return text.tail === this.held ? { records: [], problems: [], text: '' } : 'reset';
      const body = chunk.charCodeAt(nl - 1) === 13 ? chunk.slice(0, nl - 1) : chunk.slice(0, nl);
      // the held record was read as a last line (one carriage return at its end left out), the line now as a whole line
      const held = this.held.charCodeAt(this.held.length - 1) === 13 ? this.held.slice(0, -1) : this.held;
      if (body !== held) return 'reset';
      this.held = undefined;
      base += nl + 1;
      chunk = chunk.slice(nl + 1);
      this.line++;
    }
    const records: JsonlRecord[] = [];
    const { problems, lineCount } = forEachJsonlRecord(chunk, (r) => records.push(shift(r, base)), this.file, this.line);
    // `chunk` ends in a line break, so its last "line" is the empty one after it.
    this.line += lineCount - 1;
    this.consumed = base + chunk.length;
    return { records, problems, text: chunk };
  }

  /**
   * The pending last line as the whole reader reads it (a record, or a problem: cut off), numbered
   * after the lines read; nothing when it is empty or {@link hold held}. Call after {@link next}.
   */
  tail(text: GrowingText): FeedRead {
    if (this.held !== undefined || text.tail === '') return { records: [], problems: [], text: '' };
    const records: JsonlRecord[] = [];
    const { problems } = forEachJsonlRecord(text.tail, (r) => records.push(shift(r, text.complete)), this.file, this.line);
    return { records, problems, text: text.tail };
  }

  /**
   * Takes the pending last line (whose record the caller kept) as read: its line break must come
   * next, after nothing but a carriage return, else the next {@link next} says `reset`.
   */
  hold(text: GrowingText): void {
    this.held = text.tail;
  }
}

/** `r` with its `start` moved by `base` characters (from a part of the text to the whole). */
function shift(r: JsonlRecord, base: number): JsonlRecord {
  r.start += base;
  return r;
}

/**
 * The records of files read as they grow, each file parsed once line by line ({@link JsonlFeed}),
 * for importers that go over all records of a file on each read (Claude Code, Codex): they get the
 * same {@link JsonlRecords} as `readJsonlRecords` on the file's whole text, for the cost of parsing
 * the new lines. A file read whole again is parsed again, alone.
 */
export class GrowingRecords {
  private readonly read = new Map<string, { feed: JsonlFeed; records: JsonlRecord[]; problems: Problem[]; marked: boolean; generation: number }>();
  /** Counts the files started over, so each start has its own generation. */
  private generations = 0;

  /** @param mark a pattern the importer asks about ({@link JsonlParts.marked}): tested on each new part of the text. */
  constructor(
    readonly files: GrowingFiles,
    private readonly mark?: RegExp,
  ) {}

  /**
   * The records and problems of the file at `path` as its whole text gives them now, or undefined
   * when it cannot be read. @param file path put on its problems (undefined for the opened file).
   */
  records(path: string, file?: string): JsonlParts | undefined {
    const text = this.files.grown(path);
    if (!text) {
      this.read.delete(path);
      return undefined;
    }
    let kept = this.read.get(path);
    let got = kept?.feed.next(text);
    if (!kept || got === 'reset') {
      kept = { feed: new JsonlFeed(file), records: [], problems: [], marked: false, generation: ++this.generations };
      this.read.set(path, kept);
      got = kept.feed.next(text) as FeedRead;
    }
    for (const r of (got as FeedRead).records) kept.records.push(r);
    for (const p of (got as FeedRead).problems) kept.problems.push(p);
    if (this.mark && !kept.marked) kept.marked = this.mark.test((got as FeedRead).text);
    const tail = kept.feed.tail(text);
    const records = tail.records.length ? kept.records.concat(tail.records) : kept.records.slice();
    const problems = tail.problems.length ? kept.problems.concat(tail.problems) : kept.problems.slice();
    const marked = kept.marked || (!!this.mark && tail.text !== '' && this.mark.test(tail.text));
    return { records, problems, lineCount: kept.feed.lines + 1, marked, complete: kept.records.length, generation: kept.generation };
  }
}

/** {@link JsonlRecords} and what a growing read adds (see {@link GrowingRecords}). */
export interface JsonlParts extends JsonlRecords {
  /** Whether the text matched the reader's mark. */
  marked?: boolean;
  /** How many of the records are of complete lines (the rest: the pending last line). */
  complete?: number;
  /** Changes when the file was started over (read whole again): the records are not the ones before. */
  generation?: number;
}
