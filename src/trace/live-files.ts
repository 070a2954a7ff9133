/**
 * A {@link FileAccess} for traces that are still being written: the first read of a file reads it
 * whole; after that, {@link LiveFiles.refresh} reads only what was appended (src/trace/tail.ts) and
 * the importer is handed the file's text from memory. A session read from disk keeps one of these
 * for its trace file and the files it pulls in (Claude Code sub-agent transcripts, Codex child
 * rollouts), so re-importing after an append costs the bytes appended, not the files again.
 * Pure Node (`node:fs`), no `vscode`.
 */
import * as fs from 'node:fs';
import type { FileAccess } from './formats';
import { readAppended, tailStateOf, type TailState } from './tail';

/** One followed file: its text as read (complete lines, then the pending partial line) and where reading goes on. */
interface LiveFile {
  text: string;
  /** UTF-16 length of the complete lines at the start of `text`. */
  complete: number;
  state: TailState;
}

/** What {@link LiveFiles.refresh} found. */
export type LiveChange = 'unchanged' | 'appended' | 'reloaded' | 'missing';

/** Files read once and then followed as they grow. Never throws on a missing or unreadable file. */
export class LiveFiles implements FileAccess {
  private readonly files = new Map<string, LiveFile>();
  /** Bytes read from disk so far (whole first reads, appended bytes, reloads). */
  bytesRead = 0;

  /** The file's text: from memory once read (call {@link refresh} to follow it), else read whole. */
  readText(path: string): string | undefined {
    return (this.files.get(path) ?? this.readWhole(path))?.text;
  }

  list(dir: string): string[] | undefined {
    try {
      return fs.readdirSync(dir);
    } catch {
      return undefined;
    }
  }

  /** Paths read so far. */
  paths(): string[] {
    return [...this.files.keys()];
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
    if (r.kind === 'reload') return this.readWhole(path) ? 'reloaded' : 'missing';
    const pending = r.state.pending.toString('utf8');
    const before = file.text;
    if (r.kind === 'append') {
      file.text = file.text.slice(0, file.complete) + r.text + pending;
      file.complete = file.text.length - pending.length;
    } else file.text = file.text.slice(0, file.complete) + pending;
    file.state = r.state;
    return file.text === before ? 'unchanged' : 'appended';
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
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const file = { text, complete: Math.max(0, text.length - state.pending.toString('utf8').length), state };
    this.files.set(path, file);
    return file;
  }
}
