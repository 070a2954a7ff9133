/**
 * Reading a trace from disk by path (the CLI, the bench, a worker): otrace JSONL is streamed in
 * chunks of bytes, never held as one string, so a trace of any size loads (V8 strings end near
 * 512 MB); each event's origin keeps its byte offset, so a record (its long content) can be read
 * again on demand. Other formats are read as text up to {@link MAX_TEXT_BYTES}; a larger file gets
 * one clear problem instead of a crash. A file in UTF-16 or UTF-32 (text-encoding.ts) is decoded whole
 * and read as text, whatever its format. The editor, which holds documents as text, keeps using
 * `loadTrace` (formats.ts).
 */
import * as fs from 'node:fs';
import { detectFormat, loadTrace, otraceJsonl, type FileAccess } from './formats';
import { isUtf8 } from 'node:buffer';
import { LineIndex, OriginArray, type LoadedTrace, type Origin, type Problem } from './model';
import { CHUNK_BYTES, notUtf8Problem, type ReadBytes } from './jsonl';
import { readTraceColumns, type LoadedColumns } from './columns/read-columns';
import { readTraceJsonlBytes } from './read';
import { decodeText } from './text-encoding';

/** Largest file read as one text (JSON documents: Jaeger, Langfuse, LangSmith exports; non-otrace JSONL): 200 MB. */
export const MAX_TEXT_BYTES = 200 * 1024 * 1024;

/** Bytes of the file's start that format detection reads. */
const HEAD_BYTES = 1 << 20;

/** A loaded trace and the number of bytes read from disk. */
export type LoadedFile = LoadedTrace & { bytes: number };

/**
 * Reads a trace file of any registered format from disk.
 * @param path the file; @param files reads sibling files (sub-agent transcripts), as for `loadTrace`.
 * @param maxTextBytes largest non-streamed file, in bytes (default {@link MAX_TEXT_BYTES}).
 * @returns the trace as `loadTrace` reads the same file's text (otrace JSONL origins also carry
 *   `offset` and `bytes`), and the bytes read. Errors: I/O errors (a missing file) are thrown.
 */
export function loadTraceFile(path: string, files?: FileAccess, maxTextBytes = MAX_TEXT_BYTES): LoadedFile {
  return withTraceFile(path, (stream) => stream(readTraceJsonlBytes), (fd, size, headText, utf8) => {
    if (size > maxTextBytes) return tooLarge(path, size, headText, maxTextBytes);
    if (!utf8) return { ...loadTrace(decodeText(fs.readFileSync(fd)).text, path, files), bytes: size };
    const bytes = fs.readFileSync(fd);
    const text = bytes.toString('utf8');
    const loaded = loadTrace(text, path, files);
    // bytes that are not UTF-8 are read as U+FFFD: said where in a trace, not changed silently (a binary or unknown file has its one problem)
    if (loaded.format !== 'unknown' && !isUtf8(bytes)) loaded.problems.push(notUtf8(text));
    return { ...loaded, bytes: size };
  });
}

/**
 * The warning of a text decoded from bytes that are not all UTF-8, at the first of its lines that holds a
 * U+FFFD, with how many do. @param file the file it is in, when not the trace file (a sub-agent transcript).
 */
export function notUtf8(text: string, file?: string): Problem {
  const first = text.indexOf('\uFFFD');
  const lines = new LineIndex(text);
  const at = lines.range(Math.max(0, first), 1).start;
  let count = 0;
  for (let i = first, line = -1; i !== -1; i = text.indexOf('\uFFFD', i + 1)) {
    const l = lines.range(i, 0).start.line;
    if (l !== line) count++;
    line = l;
  }
  const problem = notUtf8Problem(at.line, at.character, file);
  if (count > 1) problem.message = `${problem.message}; ${count} lines hold such bytes, this is the first`;
  return problem;
}

/**
 * An otrace JSONL file read from disk into columns (src/trace/columns: problems, counts and the
 * columns; no object per record), or undefined when the file is not otrace JSONL streamed in UTF-8
 * (read it with {@link loadTraceFile}). The columns read a record again (`columns.event(i)`) by
 * opening the file for that read. Errors: I/O errors are thrown.
 */
export function loadTraceColumnsFile(path: string): LoadedColumns | undefined {
  const before = fileStamp(path);
  // the stamp of the file the read opened (a path swapped to another file around the read is not the file stat'ed)
  let read: string | undefined;
  // set once a later read opens a file whose stamp is not the read's: the file changed (for good)
  let changed = false;
  const records = (buffer: Buffer, offset: number, length: number, position: number) =>
    readAgain(path, buffer, offset, length, position, (fd) => {
      if (!changed && before?.settled && stampOf(fs.fstatSync(fd, { bigint: true })) !== before.key) changed = true;
    });
  const loaded = withTraceFile(
    path,
    (stream, fd) => {
      read = stampOf(fs.fstatSync(fd, { bigint: true }));
      return stream((readBytes, readLine, chunk, size) => readTraceColumns(readBytes, readLine, chunk, size, records));
    },
    () => undefined,
  );
  // a file settled before the read and not written while it was read: its contents are decoded from their places
  // while it stays so (the file each later read opens, and the path after it, have the read's stamp)
  if (loaded && before?.settled && read === before.key && fileStamp(path)?.key === before.key) loaded.columns.unchanged = () => !changed && fileStamp(path)?.key === before.key;
  return loaded;
}

/**
 * How long ago a file's last change must be for its stamp ({@link fileStamp}) to tell it from any
 * later write, in milliseconds: file times are taken from a coarse clock (a few milliseconds on
 * Linux, a second or two on some file systems), so a write in the same tick as the last one keeps
 * the stamp (git's "racily clean" files). Past this, a later write has a later time.
 */
export const SETTLED_MS = 3000;

/**
 * What tells a file's bytes apart from its bytes at another time (`key`: its device, inode, size,
 * and modification and change times in nanoseconds; a write sets the change time, which no program
 * sets back), and whether its last change is {@link SETTLED_MS} old (`settled`: only then does
 * every later write change the key); undefined when the file cannot be stat'ed.
 */
export function fileStamp(path: string): { key: string; settled: boolean } | undefined {
  try {
    const now = Date.now();
    const s = fs.statSync(path, { bigint: true, throwIfNoEntry: false });
    if (!s) return undefined;
    const changed = Number((s.ctimeNs > s.mtimeNs ? s.ctimeNs : s.mtimeNs) / 1_000_000n);
    return { key: stampOf(s), settled: now - changed >= SETTLED_MS };
  } catch {
    return undefined;
  }
}

/** The key of {@link fileStamp} from a stat. */
function stampOf(s: fs.BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** Reads a file given its bytes by the streaming reader `reader` (chunk size, file size), the way {@link loadTraceFile} streams. */
type Stream = <T>(reader: (read: ReadBytes, readLine: (offset: number, bytes: number) => string, chunkBytes: number, fileBytes: number) => T) => T;

/**
 * Opens `path` and reads its head: `streamed` for otrace JSONL in UTF-8 (read in a stream at any
 * size), else `other` (the open file, its size, its head's text, whether it is UTF-8). The file is
 * closed after.
 */
function withTraceFile<T>(path: string, streamed: (stream: Stream, fd: number) => T, other: (fd: number, size: number, headText: string, utf8: boolean) => T): T {
  const fd = fs.openSync(path, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    const got = fs.readSync(fd, head, 0, head.length, 0);
    const decodedHead = decodeText(head.subarray(0, got));
    const utf8 = decodedHead.encoding === 'utf-8';
    const headText = decodedHead.text;
    // Only UTF-8 is streamed by byte offsets; a file in another encoding is decoded whole (text-encoding.ts).
    if (utf8 && headText.trim() !== '' && detectFormat(headText, path) === otraceJsonl) {
      const read = (buffer: Buffer, offset: number, length: number, position: number) => fs.readSync(fd, buffer, offset, length, position);
      // a buffer of the file's size (and one byte, to see its end in the first read), not of a whole
      // chunk: over a corpus of small files, a chunk-sized buffer per file is the external memory
      // that made V8 collect every few files (issue 30)
      return streamed((reader) => reader(read, (offset, bytes) => readText(fd, offset, bytes), Math.min(CHUNK_BYTES, size + 1), size), fd);
    }
    return other(fd, size, headText, utf8);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads bytes of the file at `path` at a position, opening it for that read (fs.readSync's arguments
 * and result); `opened` is given the open file first (to stat it).
 */
function readAgain(path: string, buffer: Buffer, offset: number, length: number, position: number, opened?: (fd: number) => void): number {
  const fd = fs.openSync(path, 'r');
  try {
    opened?.(fd);
    return fs.readSync(fd, buffer, offset, length, position);
  } finally {
    fs.closeSync(fd);
  }
}

/** The text of `bytes` bytes at `offset` of an open file. */
function readText(fd: number, offset: number, bytes: number): string {
  const buf = Buffer.alloc(bytes);
  const got = fs.readSync(fd, buf, 0, bytes, offset);
  return buf.toString('utf8', 0, got);
}

/**
 * The record an origin points at, read again from disk (for long content: the details pane, a
 * hover), as parsed JSON; undefined when the origin has no byte offset (not read by the streaming
 * reader) or the bytes there no longer parse (the file changed).
 */
export function readRecordAt(path: string, origin: Origin): unknown {
  if (origin.offset === undefined || origin.bytes === undefined) return undefined;
  const fd = fs.openSync(path, 'r');
  try {
    return JSON.parse(readText(fd, origin.offset, origin.bytes));
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function tooLarge(path: string, size: number, head: string, max: number): LoadedFile {
  const format = detectFormat(head, path);
  const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
  const what = format ? `a ${format.label} file` : 'a file';
  const message = `this is ${what} of ${mb(size)}; otrace reads such files as one text up to ${mb(max)} (only otrace JSONL is read in a stream, at any size). split it into files of at most that size`;
  return {
    format: format?.id ?? 'unknown',
    trace: { events: [], edges: [] },
    eventOrigins: new OriginArray(),
    edgeOrigins: new OriginArray(),
    problems: [{ severity: 'error', message, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }],
    bytes: Math.min(size, HEAD_BYTES),
  };
}
