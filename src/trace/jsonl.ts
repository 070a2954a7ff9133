/**
 * Walking a JSONL text line by line: each line that is a JSON object becomes a record; each line
 * that is not becomes a positioned problem ("last line is cut off" for an unterminated last line),
 * and the other lines still load. Shared by the otrace JSONL reader and the JSONL importers.
 *
 * Pure: imports nothing from `vscode`.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { randomInt } from 'node:crypto';
import { parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { Problem, Range } from './model';

/** One parsed line of a JSONL file. */
export interface JsonlRecord {
  /** 0-based line index in its file (also the `record` of the origins of its events). */
  line: number;
  /** Offset of the line's first character in the text. */
  start: number;
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
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Calls `onRecord` for each record of a JSONL text, in line order, without keeping them (so a
 * one-pass importer holds only what it makes of them). Blank lines are skipped. A line that is not
 * JSON gives an error at the parse error's column ("last line is cut off" when it is the last line
 * and the text does not end in a line break); a line that is not an object gives an error on the
 * line; the other lines load. Never throws.
 * @param file path put on every problem (for files other than the one opened), or undefined.
 * @param firstLine line index of the text's first line in its file (a part appended to a file
 *   read before: src/trace/jsonl-feed.ts); records and problems are numbered from it.
 * @returns the problems, and the number of lines (counting a last line without a line break).
 */
export function forEachJsonlRecord(text: string, onRecord: (record: JsonlRecord) => void, file?: string, firstLine = 0): { problems: Problem[]; lineCount: number } {
  const problems: Problem[] = [];
  let line = firstLine;
  let start = 0;
  const n = text.length;
  while (start <= n) {
    let end = text.indexOf('\n', start);
    const last = end === -1;
    if (last) end = n;
    let stop = end;
    if (stop > start && text.charCodeAt(stop - 1) === 13) stop--;
    if (!(last && start === n) && !isBlank(text, start, stop)) {
      const value = parseLine(text.slice(start, stop), line, last && !text.endsWith('\n'), file, problems);
      if (value) onRecord({ line, start, length: stop - start, value });
    }
    if (last) break;
    start = end + 1;
    line++;
  }
  return { problems, lineCount: line + 1 - firstLine };
}

/**
 * Parses one non-blank line: the object, or undefined after adding its problem (syntax error at
 * the error's column, "last line is cut off" when `cutOff`, or "must be a JSON object").
 */
function parseLine(body: string, line: number, cutOff: boolean, file: string | undefined, problems: Problem[]): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    problems.push(badLineProblem(body, line, cutOff, file));
    return undefined;
  }
  if (isObject(value)) return value;
  problems.push(notObject(line, body.length, file));
  return undefined;
}

/** The problem of a line of `chars` characters that is JSON but not an object. */
function notObject(line: number, chars: number, file: string | undefined): Problem {
  return withFile({ severity: 'error', message: 'a JSONL record must be a JSON object; line skipped', range: lineRange(line, chars) }, file);
}

/** Reads bytes of a file: fills `buffer` from `position`, returns the number of bytes read (0 at the end). */
export type ReadBytes = (buffer: Buffer, offset: number, length: number, position: number) => number;

/** One parsed line of a JSONL file read as bytes: a {@link JsonlRecord} whose `start` is a byte offset. */
export interface JsonlByteRecord extends JsonlRecord {
  /** Byte offset of the line's first byte in the file (also `start`). */
  offset: number;
  /** Byte length of the line, without its line break. */
  bytes: number;
}

/** Bytes read from disk at a time by {@link forEachJsonlRecordInBytes} (a longer line grows the buffer). */
export const CHUNK_BYTES = 8 << 20;

/**
 * {@link forEachJsonlRecord} over a file read in chunks of {@link CHUNK_BYTES}, never as one string
 * (V8 strings end near 512 MB): lines, columns (UTF-16) and problems are those of the text reader
 * on the same file; each record also has its byte `offset` and length, to read it again later
 * (long content on demand). Runs of whole lines are parsed together ({@link LineBatch}: one decode
 * and one JSON.parse per run, each line's value the one a parse of the line alone gives). A
 * byte-order mark is not part of the first line's text (as in `loadTrace` and VS Code), though its
 * bytes are in the line's. Never throws for bad content; I/O errors from `read` pass.
 * @param read reads bytes at a position (fs.readSync on an open file, or a Buffer's copy).
 * @param chunkBytes bytes asked of `read` at a time (tests use a few, to cut lines across chunks).
 * @param firstLine/startOffset where to start: the index of the line at byte `startOffset` of the
 *   file (a line start), for the part appended to a file read before (src/trace/growing-file.ts).
 * @returns the problems, the number of lines and the number of bytes read.
 */
export function forEachJsonlRecordInBytes(read: ReadBytes, onRecord: (record: JsonlByteRecord) => void, file?: string, chunkBytes = CHUNK_BYTES, firstLine = 0, startOffset = 0): { problems: Problem[]; lineCount: number; bytes: number } {
  return forEachJsonlLineInBytes(read, (line, offset, bytes, chars, value) => onRecord({ line, start: offset, length: chars, value, offset, bytes }), file, chunkBytes, firstLine, startOffset);
}

/**
 * Takes one parsed line of {@link forEachJsonlLineInBytes}: its 0-based index in the file, its
 * byte offset and byte length (without the line break), its length in UTF-16 code units, its object.
 */
export type OnJsonlLine = (line: number, offset: number, bytes: number, chars: number, value: Record<string, unknown>) => void;

/**
 * {@link forEachJsonlRecordInBytes} handing each record's fields to `onLine` as arguments (no
 * object per record: the reader of a 1M-line trace takes them straight into its columns).
 */
export function forEachJsonlLineInBytes(
  read: ReadBytes,
  onLine: OnJsonlLine,
  file?: string,
  chunkBytes = CHUNK_BYTES,
  firstLine = 0,
  startOffset = 0,
  scanner?: JsonlLineScanner,
): { problems: Problem[]; lineCount: number; bytes: number } {
  const problems: Problem[] = [];
  const batch = new LineBatch(onLine, file, problems, scanner);
  let buf = Buffer.allocUnsafe(Math.max(1, chunkBytes));
  let filled = 0; // bytes of buf holding data
  let base = startOffset; // file offset of buf[0]
  let line = firstLine;
  let eof = false;
  let at = 0; // start of the current line in buf
  for (;;) {
    let nl = at < filled ? buf.indexOf(10, at) : -1;
    if (nl === -1 || nl >= filled) {
      if (!eof) {
        batch.flush(buf, base); // its lines are read from buf, which is about to move
        // keep the partial line, read more behind it
        if (at > 0) {
          buf.copy(buf, 0, at, filled);
          filled -= at;
          base += at;
          at = 0;
        }
        if (filled === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, filled);
          buf = bigger;
        }
        const got = read(buf, filled, buf.length - filled, base + filled);
        if (got === 0) eof = true;
        filled += got;
        continue;
      }
      nl = -1;
    }
    const last = nl === -1;
    const end = last ? filled : nl;
    let stop = end;
    if (stop > at && buf[stop - 1] === 13) stop--;
    if (last && at === end) {
      // no last line
    } else if (isBlankBytes(buf, at, stop)) {
      batch.flush(buf, base); // a run holds no blank line
    } else if (last || base + at === 0) {
      // a last line may be cut off, a first one may start with a byte-order mark: read alone
      batch.flush(buf, base);
      batch.one(buf, base, at, stop, line, last);
    } else if (batch.add(at, stop, nl, line)) batch.flush(buf, base);
    if (last) return { problems, lineCount: line + 1 - firstLine, bytes: base + filled - startOffset };
    at = nl + 1;
    line++;
  }
}

/**
 * Reads lines from their bytes without JSON.parse when it is sure of them (the column reader's
 * record scanner, src/trace/columns/record-scanner.ts), for {@link forEachJsonlLineInBytes}: a line
 * it declines is parsed as any other, and every line comes out in file order either way.
 */
export interface JsonlLineScanner {
  /** A run of whole lines of `buf` comes (valid UTF-8). */
  startRun(buf: Buffer): void;
  /**
   * Reads line [start, stop) of the run's buffer (no line break; `chars` UTF-16 units long): true
   * when it takes it (then {@link take} comes before the next scan), false to have it parsed.
   */
  scan(start: number, stop: number, chars: number): boolean;
  /** Takes the line scanned last: its 0-based index in the file, byte offset, byte length and UTF-16 length. */
  take(line: number, offset: number, bytes: number, chars: number): void;
}

/** A scanner that declined more than this many lines, and more than it took, is asked no more (a file of records it cannot read: each would be read twice). */
const SCAN_GIVE_UP = 256;

/** Bytes of whole lines parsed together at most (a run of short lines; a longer line is a run of its own). */
const BATCH_BYTES = 1 << 16;
/**
 * A number a trace file cannot be written to hold where it would matter (random per process, drawn
 * after the file was written): put between the lines of a run as an array element, it shows where
 * each line's value ends (see {@link LineBatch.parse}). A small integer: JSON.parse makes no object
 * for it.
 */
const MARK = 100_000_000 + randomInt(2_000_000_000 - 100_000_000);
const SEPARATOR = `,${MARK},`;

/**
 * Consecutive whole, non-blank lines of a chunk, parsed with one decode and one JSON.parse
 * (`[line0,MARK,line1,MARK,...]`): for a trace of short lines, the per-line decode and parse
 * calls and their garbage were most of the reading time. The run's values are used only when the
 * parse gives a MARK between every two lines and nothing else (then each line's text is one JSON
 * value on its own, the value its own parse gives); else, and for bytes that are not UTF-8, each
 * line is parsed alone, as before. Lines and problems come out in line order.
 */
class LineBatch {
  /**
   * Per line of the run: its start and stop (without CR) in the chunk, its newline, its index in
   * the file; the first {@link count} entries are the run's (the lists are reused from run to run,
   * not emptied: emptying a list lets go of its room, which the next run then grows again).
   */
  private readonly starts: number[] = [];
  private readonly stops: number[] = [];
  private readonly breaks: number[] = [];
  private readonly lines: number[] = [];
  /** Number of lines in the run. */
  private count = 0;
  /** The run's text, as decoded by the last {@link parse}. */
  private text = '';

  /** Lines the scanner took and declined so far. */
  private scanned = 0;
  private declined = 0;

  constructor(
    private readonly onLine: OnJsonlLine,
    private readonly file: string | undefined,
    private readonly problems: Problem[],
    private scanner?: JsonlLineScanner,
  ) {}

  /** Adds the line [start, stop) of the chunk ending at newline `nl`; @returns true when the run is full (flush it). */
  add(start: number, stop: number, nl: number, line: number): boolean {
    const k = this.count++;
    this.starts[k] = start;
    this.stops[k] = stop;
    this.breaks[k] = nl;
    this.lines[k] = line;
    return stop - this.starts[0] >= BATCH_BYTES;
  }

  /** Hands out the run's records (scanned, else parsed), in line order; `base` is the file offset of `buf[0]`. */
  flush(buf: Buffer, base: number): void {
    const n = this.count;
    if (n === 0) return;
    const scanner = this.scanner;
    const run = scanner === undefined ? undefined : buf.subarray(this.starts[0], this.stops[n - 1]);
    if (scanner !== undefined && isUtf8(run!)) {
      const ascii = isAscii(run!);
      // not all ASCII: the lines' UTF-16 lengths from the run decoded once (as the parse below does)
      const text = ascii ? '' : run!.toString('utf8');
      let at = 0; // in `text`: the start of line k
      scanner.startRun(buf);
      let parseFrom = 0; // the lines declined since the last one taken: parsed before the next is taken
      for (let k = 0; k < n; k++) {
        const start = this.starts[k];
        const stop = this.stops[k];
        let chars = stop - start;
        if (!ascii) {
          const end = k < n - 1 ? text.indexOf('\n', at) : text.length;
          chars = end - at - (k < n - 1 && this.breaks[k] > stop ? 1 : 0);
          at = end + 1;
        }
        if (!scanner.scan(start, stop, chars)) {
          this.declined++;
          continue;
        }
        // parsing them does not touch what the scanner read of line k
        if (parseFrom < k) this.parse(buf, base, parseFrom, k);
        scanner.take(this.lines[k], base + start, stop - start, chars);
        this.scanned++;
        parseFrom = k + 1;
      }
      if (parseFrom < n) this.parse(buf, base, parseFrom, n);
      if (this.declined > SCAN_GIVE_UP && this.declined > this.scanned) this.scanner = undefined;
    } else this.parse(buf, base, 0, n);
    this.count = 0;
    this.text = '';
  }

  /** Parses lines `from`..`to` (exclusive) of the run together when they are more than one, else alone, and hands out their records. */
  private parse(buf: Buffer, base: number, from: number, to: number): void {
    const values = to - from > 1 ? this.parseRun(buf, from, to) : undefined;
    if (values) {
      const text = this.text;
      // all ASCII: a line's UTF-16 length is its byte length
      const ascii = text.length === this.stops[to - 1] - this.starts[from];
      let at = 0; // in `text`: the start of line k
      for (let k = from; k < to; k++) {
        const start = this.starts[k];
        const bytes = this.stops[k] - start;
        let chars = bytes;
        if (!ascii) {
          // UTF-16 length of the line: from its start to its newline in the run's text, less a CR
          const end = k < to - 1 ? text.indexOf('\n', at) : text.length;
          chars = end - at - (k < to - 1 && this.breaks[k] > this.stops[k] ? 1 : 0);
          at = end + 1;
        }
        const value = values[2 * (k - from)];
        if (isObject(value)) this.onLine(this.lines[k], base + start, bytes, chars, value);
        else this.problems.push(notObject(this.lines[k], chars, this.file));
      }
    } else for (let k = from; k < to; k++) this.one(buf, base, this.starts[k], this.stops[k], this.lines[k], false);
  }

  /** Parses the line [start, stop) of `buf` alone. @param last true for a last line without a line break (it may be cut off). */
  one(buf: Buffer, base: number, start: number, stop: number, line: number, last: boolean): void {
    let body = buf.toString('utf8', start, stop);
    if (base + start === 0 && body.charCodeAt(0) === 0xfeff) body = body.slice(1); // not text: columns count from after it
    if (!isUtf8(buf.subarray(start, stop))) this.problems.push(notUtf8Problem(line, Math.max(0, body.indexOf('\uFFFD')), this.file));
    const value = parseLine(body, line, last, this.file, this.problems);
    if (value) this.onLine(line, base + start, stop - start, body.length, value);
  }

  /**
   * The values of lines `from`..`to` of the run, `[line0, MARK, line1, MARK, ...]`, or undefined when they must be parsed
   * line by line: a line that is not one JSON value on its own (the parse fails, or the MARKs do not
   * fall between the lines: a line holding `1,2` or an unclosed bracket), or bytes that are not
   * UTF-8 (decoded alone, each line gets its own replacement characters).
   */
  private parseRun(buf: Buffer, from: number, to: number): unknown[] | undefined {
    const n = to - from;
    const run = buf.subarray(this.starts[from], this.stops[to - 1]);
    if (!isUtf8(run)) return undefined;
    // Between two lines is a newline (maybe after a CR, JSON white space): it becomes the separator.
    this.text = run.toString('utf8');
    let values: unknown;
    try {
      values = JSON.parse(`[${this.text.replaceAll('\n', SEPARATOR)}]`);
    } catch {
      return undefined;
    }
    if (!Array.isArray(values) || values.length !== 2 * n - 1) return undefined;
    for (let k = 1; k < values.length; k += 2) if (values[k] !== MARK) return undefined;
    return values;
  }
}

/** True when bytes [start, stop) are only white space (a UTF-8 byte-order mark counts as such). */
function isBlankBytes(buf: Buffer, start: number, stop: number): boolean {
  for (let i = start; i < stop; i++) {
    const c = buf[i];
    if (c === 32 || c === 9 || c === 13 || c === 10) continue;
    if (c === 0xef && buf[i + 1] === 0xbb && buf[i + 2] === 0xbf && i + 2 < stop) {
      i += 2;
      continue;
    }
    return false;
  }
  return true;
}

/** All the records of a JSONL text, with the problems of its unusable lines (see {@link forEachJsonlRecord}). */
export function readJsonlRecords(text: string, file?: string, firstLine = 0): JsonlRecords {
  const records: JsonlRecord[] = [];
  const { problems, lineCount } = forEachJsonlRecord(text, (r) => records.push(r), file, firstLine);
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

/**
 * The warning of a line holding bytes that are not UTF-8, at `character` (0-based, UTF-16: its first
 * replacement character): the decoder shows each as U+FFFD, so what the line said there is not what
 * the file holds (a record that still parses loads; its text differs from the bytes).
 */
export function notUtf8Problem(line: number, character: number, file: string | undefined): Problem {
  return withFile(
    {
      severity: 'warning',
      message: 'bytes that are not UTF-8 here: read as U+FFFD (�), so the text differs from the file; JSON text is UTF-8 (was the file written in another encoding, or cut inside a character?)',
      range: { start: { line, character }, end: { line, character: character + 1 } },
    },
    file,
  );
}

function badLineProblem(body: string, line: number, cutOff: boolean, file: string | undefined): Problem {
  const errors: ParseError[] = [];
  parseTree(body, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  const at = first ? Math.min(first.offset, body.length) : 0;
  const cr = loneCarriageReturn(body);
  if (cr >= 0 && cr <= at) {
    // a file whose lines end in CR alone reads as one line: "cut off" or "syntax error" would mislead
    return withFile(
      {
        severity: 'error',
        message: 'lines end in a carriage return alone (CR, as classic Mac OS wrote them): JSONL lines end in LF or CRLF, so these records read as one line, which was skipped; the file loads once its line ends are LF',
        range: { start: { line, character: cr }, end: { line, character: cr + 1 } },
      },
      file,
    );
  }
  const what = first ? printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() : 'invalid JSON';
  return withFile(
    {
      severity: 'error',
      message: cutOff ? `last line is cut off (incomplete JSON: ${what}); the lines before it loaded` : `JSON syntax error: ${what}; line skipped`,
      range: { start: { line, character: at }, end: { line, character: Math.min(body.length, at + Math.max(first?.length ?? 1, 1)) } },
      ...(cutOff ? { unterminated: true as const } : {}),
    },
    file,
  );
}

/** The offset of the first CR in `body` followed by something other than whitespace (a CR-only line end), or -1. */
function loneCarriageReturn(body: string): number {
  for (let i = body.indexOf('\r'); i >= 0; i = body.indexOf('\r', i + 1)) if (!isBlank(body, i + 1, Math.min(body.length, i + 2))) return i;
  return -1;
}

function withFile(p: Problem, file: string | undefined): Problem {
  if (file !== undefined) p.file = file;
  return p;
}

/** The range of a whole line of `length` characters. */
export function lineRange(line: number, length: number): Range {
  return { start: { line, character: 0 }, end: { line, character: length } };
}

