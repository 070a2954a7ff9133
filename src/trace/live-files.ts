/**
 * A {@link FileAccess} for traces that are still being written: the first read of a file reads it
 * whole; after that, {@link LiveFiles.refresh} reads only what was appended (src/trace/tail.ts) and
 * the importer is handed the file's text from memory. A session read from disk keeps one of these
 * for its trace file and the files it pulls in (Claude Code sub-agent transcripts, Codex child
 * rollouts), so re-importing after an append costs the bytes appended, not the files again. A
 * growing import (src/trace/jsonl-feed.ts) asks it for the text appended since what it read, so it
 * parses only the new lines; the whole text is joined only when asked for. A file in UTF-16 or UTF-32
 * (text-encoding.ts) is decoded whole, and read whole again whenever it changes.
 * Pure Node (`node:fs`), no `vscode`.
 */
import { isUtf8 } from 'node:buffer';
import * as fs from 'node:fs';
import type { GrowingFiles, GrowingText } from './jsonl-feed';
import { readAppended, tailStateOf, type TailState } from './tail';
import { decodeText } from './text-encoding';

/** One followed file: its complete lines as read (in parts, as they came), its pending partial line, and where reading goes on. */
interface LiveFile {
  /** The complete lines, in the parts they were read in (joined when the whole text is asked for). */
  parts: string[];
  /** UTF-16 length of the complete lines. */
  complete: number;
  /** The last line, without its line break yet. */
  pending: string;
  /** The whole text, once asked for (until the next change). */
  text?: string;
  /** Which whole read of the file this is (see {@link GrowingText.epoch}). */
  epoch: number;
  state: TailState;
  /** False for a file in UTF-16 or UTF-32 (text-encoding.ts): its appended bytes are not UTF-8 lines, so any change reads it whole. */
  utf8: boolean;
  /** True when bytes read of this UTF-8 file were not UTF-8 (each read as U+FFFD): the reader says where ({@link LiveFiles.notUtf8Paths}). */
  badBytes: boolean;
}

/** What {@link LiveFiles.refresh} found. */
export type LiveChange = 'unchanged' | 'appended' | 'reloaded' | 'missing';

/** Counts whole reads of any file, so an epoch is never reused for a path. */
let epochs = 0;

/** Files read once and then followed as they grow. Never throws on a missing or unreadable file. */
export class LiveFiles implements GrowingFiles {
  private readonly files = new Map<string, LiveFile>();
  /** Each folder listed so far and its names as listed (joined), to see a file appear or go ({@link listingsChanged}). */
  private readonly listings = new Map<string, string>();
  /** Bytes read from disk so far (whole first reads, appended bytes, reloads). */
  bytesRead = 0;
  /** Files whose text was asked for (an import read them) since {@link takeAsked}. */
  private asked = new Set<string>();

  /** The files whose text was asked for since the last call (an import's reads), and starts counting anew. */
  takeAsked(): Set<string> {
    const out = this.asked;
    this.asked = new Set();
    return out;
  }

  /** The file's text: from memory once read (call {@link refresh} to follow it), else read whole. */
  readText(path: string): string | undefined {
    this.asked.add(path);
    const file = this.files.get(path) ?? this.readWhole(path);
    if (!file) return undefined;
    if (file.text === undefined) {
      if (file.parts.length > 1) file.parts = [file.parts.join('')];
      file.text = (file.parts[0] ?? '') + file.pending;
    }
    return file.text;
  }

  /** The file as read so far, for a growing import (read whole the first time). */
  grown(path: string): GrowingText | undefined {
    this.asked.add(path);
    const file = this.files.get(path) ?? this.readWhole(path);
    if (!file) return undefined;
    return { epoch: file.epoch, complete: file.complete, tail: file.pending, since: (from) => textSince(file, from) };
  }

  list(dir: string): string[] | undefined {
    const names = listOf(dir);
    this.listings.set(dir, names?.join('\n') ?? '');
    return names;
  }

  /**
   * True when a file read so far has another size or inode on disk than read, or
   * is gone, or a folder listed holds other names ({@link listingsChanged}): the next
   * {@link refresh} or import would read something. Reads nothing: a stat per file, a listing per
   * folder. A rewrite to the same size is not seen here (a watcher, or the next load, sees it).
   */
  changedOnDisk(): boolean {
    for (const [path, file] of this.files) {
      let stat;
      try {
        stat = fs.statSync(path);
      } catch {
        return true;
      }
      if (stat.size !== file.state.offset || (file.state.ino && stat.ino !== file.state.ino)) return true;
    }
    return this.listingsChanged();
  }

  /**
   * True when a folder listed so far (a session's sub-agent folder) holds other names now: a new
   * file the next import reads (a sub-agent started), or one gone. Costs one listing per folder.
   */
  listingsChanged(): boolean {
    for (const [dir, names] of this.listings) if ((listOf(dir)?.join('\n') ?? '') !== names) return true;
    return false;
  }

  /** Paths read so far. */
  paths(): string[] {
    return [...this.files.keys()];
  }

  /** The files read whose bytes were not all UTF-8 (read as U+FFFD where they were not), in the order first read. */
  notUtf8Paths(): string[] {
    const out: string[] = [];
    for (const [path, file] of this.files) if (file.badBytes) out.push(path);
    return out;
  }

  /** How many files were read (and not forgotten since). */
  get size(): number {
    return this.files.size;
  }

  /** True when the file was read (and not forgotten since): its next whole read is a rewrite, not a first read. */
  has(path: string): boolean {
    return this.files.has(path);
  }

  /** Forgets a file (another reader follows it now): its next read is whole. */
  forget(path: string): void {
    this.files.delete(path);
  }

  /**
   * Brings a file read before up to date with the disk: `appended` when lines (or part of one) were
   * added, `reloaded` when it had to be read whole again (truncated, replaced, rewritten),
   * `unchanged`, or `missing` (deleted or unreadable: forgotten, so a new file there is read whole).
   * A file never read is read whole (`reloaded`).
   */
  refresh(path: string): LiveChange {
    const file = this.files.get(path);
    if (!file) return this.readWhole(path) ? 'reloaded' : 'missing';
    let r;
    try {
      r = readAppended(path, file.state);
    } catch {
      this.files.delete(path);
      return 'missing';
    }
    this.bytesRead += r.bytesRead;
    // fewer than 4 bytes read could not tell the encoding (text-encoding.ts `sniffEncoding`): what follows them may be UTF-16
    if (r.kind === 'reload' || (file.state.offset < 4 && r.state.offset > file.state.offset)) return this.readWhole(path) ? 'reloaded' : 'missing';
    if (!file.utf8) return r.kind === 'none' && r.state.offset === file.state.offset ? 'unchanged' : this.readWhole(path) ? 'reloaded' : 'missing';
    // A first line still pending holds the file's byte-order mark, which is not part of the text.
    const noMark = (t: string) => (file.complete === 0 && t.charCodeAt(0) === 0xfeff ? t.slice(1) : t);
    const pending = noMark(r.state.pending.toString('utf8'));
    const before = file.pending;
    file.state = r.state;
    if (r.kind === 'append') {
      if (!r.utf8) file.badBytes = true;
      const text = noMark(r.text);
      file.parts.push(text);
      file.complete += text.length;
    } else if (pending === before) return 'unchanged';
    file.pending = pending;
    file.text = undefined;
    return 'appended';
  }

  private readWhole(path: string): LiveFile | undefined {
    let bytes: Buffer;
    let ino = 0;
    try {
      bytes = fs.readFileSync(path);
      ino = fs.statSync(path).ino;
    } catch {
      this.files.delete(path);
      return undefined;
    }
    this.bytesRead += bytes.length;
    const state = tailStateOf(bytes, ino);
    // As VS Code and TextDecoder do, a byte-order mark is not part of the text.
    const decoded = decodeText(bytes);
    const text = decoded.text;
    const utf8 = decoded.encoding === 'utf-8';
    // In another encoding the whole text counts as read: the file is read whole again when it changes.
    const complete = utf8 ? Math.max(0, text.length - state.pending.toString('utf8').length) : text.length;
    const file: LiveFile = { parts: [text.slice(0, complete)], complete, pending: text.slice(complete), text, epoch: ++epochs, state, utf8, badBytes: utf8 && !isUtf8(linesRead(bytes)) };
    this.files.set(path, file);
    return file;
  }
}

/**
 * The bytes of a file as read, but the last (up to 3) bytes of a last line without its line break: a
 * writer may be in the middle of a character there (its end comes with the next append).
 */
function linesRead(bytes: Buffer): Buffer {
  const complete = bytes.lastIndexOf(0x0a) + 1;
  return bytes.subarray(0, Math.max(complete, bytes.length - 3));
}

/** A folder's names, or undefined when it cannot be listed (missing, not a folder, no access). */
function listOf(dir: string): string[] | undefined {
  try {
    return fs.readdirSync(dir);
  } catch {
    return undefined;
  }
}

/** The complete lines of `file` from character `from` on: the last parts, cut at `from`. */
function textSince(file: LiveFile, from: number): string {
  if (from >= file.complete) return '';
  let start = file.complete;
  let k = file.parts.length;
  while (k > 0 && start > from) start -= file.parts[--k].length;
  const parts = file.parts.slice(k);
  parts[0] = parts[0].slice(from - start);
  return parts.length === 1 ? parts[0] : parts.join('');
}
