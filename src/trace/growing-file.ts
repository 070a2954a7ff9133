/**
 * An otrace JSONL file of any size followed as it grows, read from its bytes (never held as one
 * string, as the streaming reader of src/trace/load-file.ts): the first update streams the file's
 * complete lines into an otrace reader, each later one reads only the bytes appended since and
 * adds their lines to the same reader, which keeps its state; each update returns the trace as
 * `loadTraceFile` reads the file now (byte offsets on the origins). A last line without its break
 * is read on its own each time (cut off, or a record whose break is still to come: then taken,
 * and its break must follow). A file that shrank, was replaced (another inode) or holds other
 * bytes in the first or the last 4 KB of what was read (read-ends.ts) cannot be followed: `update`
 * says so and the caller reads it whole again. Pure Node (`node:fs`), no `vscode`.
 */
import * as fs from 'node:fs';
import { CHUNK_BYTES, forEachJsonlRecordInBytes, type JsonlByteRecord, type ReadBytes } from './jsonl';
import type { LoadedTrace, Problem } from './model';
import { JsonlTraceReader } from './read';
import { readEndsOf, sameEnds, type ReadEnds } from './read-ends';

/** Bytes looked at, at a time, going back from the end of the file to its last line break. */
const BACK_BYTES = 64 * 1024;

/** Appended bytes up to this many are read once, into memory (more are read from the file as needed). */
const IN_MEMORY_BYTES = 8 << 20;

/** See the file comment. */
export class GrowingTraceFile {
  private readonly reader: JsonlTraceReader;
  /** Problems of the unusable complete lines read so far. */
  private readonly lineProblems: Problem[] = [];
  /** Bytes of complete lines read (where the next line starts). */
  private offset = 0;
  /** Index of the next line. */
  private line = 0;
  private ino = 0;
  /** The first and last bytes of what was read (the held line's too), as read: to notice a rewrite. */
  private ends: ReadEnds | undefined;
  /** Bytes of the pending last line taken as a record (its break still to come). */
  private held: number | undefined;
  private started = false;
  /** The bytes from {@link offset} to the end of the file as last read, when few (a pending line): not read again. */
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of the trace read from the file so far (not the few compared to see it unchanged). */
  bytesRead = 0;
  /** Bytes of the file when it was last read. */
  size = 0;

  /** @param path the trace file. */
  constructor(private readonly path: string) {
    this.reader = new JsonlTraceReader((offset, bytes) => readAt(this.path, offset, bytes), true, true);
  }

  /**
   * Reads what was appended since the last call (the whole file the first time).
   * @param upTo read no further than this byte of the file (a part of a large file read in steps,
   *   src/engine/session-input.ts): only the complete lines that end there or before are read (when
   *   none does, the line that goes on past it: a part always moves on), and the trace returned is
   *   `loadTraceFile`'s of the file's first {@link offset} bytes; default: all ({@link atEnd} then).
   * @returns the trace as `loadTraceFile` reads the file now (or its part), or undefined when the file
   *   cannot be followed from where it was read (shrank, replaced, rewritten, or a held line ended otherwise).
   * @throws the file system's error when the file cannot be read; RangeError for a line nested too deeply to parse.
   */
  update(upTo = Infinity): LoadedTrace | undefined {
    const fd = fs.openSync(this.path, 'r');
    try {
      const stat = fs.fstatSync(fd);
      const size = stat.size;
      if (this.started && (stat.ino !== this.ino || size < this.offset + (this.held ?? 0) || !sameEnds(fd, this.ends!))) return undefined;
      // the whole file's record count is estimated from its size (the reader's lists sized once)
      if (!this.started) this.reader.expectBytes(size);
      this.started = true;
      this.ino = stat.ino;
      this.size = size;
      // a part ends at a line break: a held line (a pending last line taken) is only ever the file's last
      const cut = upTo < size && this.held === undefined ? breakNear(fd, this.offset, Math.max(upTo, this.offset), size) : size;
      this.atEnd = cut === size;
      const loaded = this.take(fd, cut, !this.atEnd);
      if (loaded) this.ends = readEndsOf(fd, this.offset + (this.held ?? 0), this.ends);
      return loaded;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Bytes of complete lines read so far: the trace last returned is the file's up to here (and a held last line). */
  get readTo(): number {
    return this.offset;
  }

  /** True when the last update read to the file's end (its last line too, complete or not), not a part of it. */
  atEnd = false;

  /**
   * Reads the bytes after what was read, up to `size`; the trace so far, or undefined when a held line went on.
   * @param part true when `size` is not the file's end: the bytes after the last line break are left for the next read.
   */
  private take(fd: number, size: number, part = false): LoadedTrace | undefined {
    const read = this.reading(fd, size);
    const end = lastBreak(read, this.offset, size);
    if (this.held !== undefined && end > this.offset && !this.skipHeld(read, end)) return undefined;
    if (end > this.offset) {
      const capped: ReadBytes = (buffer, off, length, position) => (position >= end ? 0 : read(buffer, off, Math.min(length, end - position), position));
      const got = forEachJsonlRecordInBytes(capped, (r) => this.add(r), undefined, bufferFor(end - this.offset), this.line, this.offset);
      for (const p of got.problems) this.lineProblems.push(p);
      // The part ends in a line break: its last "line" is the empty one after it.
      this.line += got.lineCount - 1;
      this.pending = this.pending.subarray(Math.min(this.pending.length, end - this.offset));
      this.offset = end;
    }
    // a held line that went on with no break yet (bytes after it) is no longer the record taken of it: read whole
    if (this.held !== undefined && size > this.offset + this.held) return undefined;
    if (part || this.held !== undefined || end === size) return this.reader.finish(this.lineProblems, true);
    // The pending last line, as the whole reader reads a last line.
    const tail: JsonlByteRecord[] = [];
    const got = forEachJsonlRecordInBytes(read, (r) => tail.push(r), undefined, bufferFor(size - end), this.line, end);
    if (!tail.length) return this.reader.finish(got.problems.length ? this.lineProblems.concat(got.problems) : this.lineProblems, true);
    for (const r of tail) this.add(r);
    this.held = size - end;
    return this.reader.finish(this.lineProblems, true);
  }

  /**
   * Takes lists of its own for what the trace it returned last shares with its reader (src/trace/read.ts:
   * copy on write), so that the next {@link update} copies nothing: O(events + edges), for a time
   * when nothing waits on it (the end of a load).
   */
  ownLists(): void {
    this.reader.ownLists();
  }

  private add(r: JsonlByteRecord): void {
    this.reader.add(r.line, r.offset, r.bytes, r.value, r.length);
  }

  /**
   * Reads the file up to `size` (what it held when this update began): the bytes after what was
   * read come from one buffer when they are few (read once), else from the file, counted.
   */
  private reading(fd: number, size: number): ReadBytes {
    const from = this.offset;
    if (size - from <= IN_MEMORY_BYTES) {
      if (this.pending.length >= size - from && samePending(fd, from, this.pending.subarray(0, size - from))) {
        // a part that ends within the bytes read before (kept whole for the next read)
        const kept = this.pending;
        return (buffer, off, length, position) => (position >= size ? 0 : kept.copy(buffer, off, position - from, Math.min(size, position + length) - from));
      }
      // The bytes after `offset` read last time (a pending line) are kept: only what follows them is read.
      // (their last bytes compared with the file's first: a file cut and written anew since holds others there)
      const kept = this.pending.length <= size - from && samePending(fd, from, this.pending) ? this.pending : Buffer.alloc(0);
      const bytes = Buffer.alloc(size - from);
      kept.copy(bytes);
      const got = bytes.length > kept.length ? fs.readSync(fd, bytes, kept.length, bytes.length - kept.length, from + kept.length) : 0;
      this.bytesRead += got;
      const n = kept.length + got;
      this.pending = bytes.subarray(0, n);
      return (buffer, off, length, position) => (position >= from + n ? 0 : bytes.copy(buffer, off, position - from, Math.min(n, position - from + length)));
    }
    this.pending = Buffer.alloc(0);
    return (buffer, off, length, position) => {
      const got = position >= size ? 0 : fs.readSync(fd, buffer, off, Math.min(length, size - position), position);
      this.bytesRead += got;
      return got;
    };
  }

  /**
   * The held line came back ended: its break right after its bytes (after a carriage return at
   * most, unless the held bytes end in one: the record was read without it, and a line that ends
   * in two is read with one). Moves past it; false when the line went on instead.
   */
  private skipHeld(read: ReadBytes, end: number): boolean {
    const at = this.offset + this.held!;
    const b = Buffer.alloc(3);
    // the held line's last byte, then the two after it
    const n = read(b, 0, Math.min(3, end - at + 1), at - 1) - 1;
    const endsInCR = b[0] === 0x0d;
    const skip = b[1] === 0x0a ? 1 : !endsInCR && n === 2 && b[1] === 0x0d && b[2] === 0x0a ? 2 : 0;
    if (!skip) return false;
    this.pending = this.pending.subarray(Math.min(this.pending.length, at + skip - this.offset));
    this.offset = at + skip;
    this.line++;
    this.held = undefined;
    return true;
  }

}

/** The text of `bytes` bytes at `offset` of the file (a line read again to place a problem). */
function readAt(path: string, offset: number, bytes: number): string {
  const fd = fs.openSync(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = fs.readSync(fd, buf, 0, bytes, offset);
    return buf.toString('utf8', 0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Where a part of the file from `from` read up to about `upTo` ends: just after the last line break
 * in [from, upTo), else just after the first one from `upTo` on (a line longer than a part), else
 * `size` (no break left: the part is the rest of the file). Reads the bytes it looks at (not counted:
 * a part's bytes are read when taken).
 */
function breakNear(fd: number, from: number, upTo: number, size: number): number {
  const before = lastBreak((buffer, off, length, position) => fs.readSync(fd, buffer, off, length, position), from, upTo);
  if (before > from) return before;
  const buf = Buffer.alloc(BACK_BYTES);
  for (let lo = upTo; lo < size; lo += BACK_BYTES) {
    const n = fs.readSync(fd, buf, 0, Math.min(BACK_BYTES, size - lo), lo);
    const k = buf.subarray(0, n).indexOf(0x0a);
    if (k !== -1) return lo + k + 1;
  }
  return size;
}

/** True when the file holds `pending`'s last bytes (up to 4 KB) at their place after `from` (read, not counted). */
function samePending(fd: number, from: number, pending: Buffer): boolean {
  const k = Math.min(pending.length, 4096);
  if (k === 0) return true;
  const buf = Buffer.alloc(k);
  const n = fs.readSync(fd, buf, 0, k, from + pending.length - k);
  return n === k && buf.equals(pending.subarray(pending.length - k));
}

/** The offset just after the last line break of the bytes [from, size) that `read` gives (`from` when there is none), looked for from the end. */
function lastBreak(read: ReadBytes, from: number, size: number): number {
  const buf = Buffer.alloc(BACK_BYTES);
  for (let hi = size; hi > from; ) {
    const lo = Math.max(from, hi - BACK_BYTES);
    const n = read(buf, 0, hi - lo, lo);
    const k = n > 0 ? buf.subarray(0, n).lastIndexOf(0x0a) : -1;
    if (k !== -1) return lo + k + 1;
    hi = lo;
  }
  return from;
}

/** Smallest read buffer of a part (bytes): a few lines' worth. */
const MIN_PART_BUFFER = 64 << 10;

/**
 * Bytes of the buffer to read a part of `bytes` bytes through: the part and its last byte, at
 * least {@link MIN_PART_BUFFER}, at most the whole reader's {@link CHUNK_BYTES}. A followed file's
 * append is a few KB: a buffer of the whole reader's 8 MB for each made 8 MB of memory outside the
 * heap per append, which brought V8's next full collection (40-60 ms at 1M events) 8 MB nearer.
 */
function bufferFor(bytes: number): number {
  return Math.min(CHUNK_BYTES, Math.max(MIN_PART_BUFFER, bytes + 1));
}
