/**
 * Following a JSONL trace that an agent is still writing: after the first load, read only the bytes
 * appended since, hand on the complete lines, and keep a partial last line (its bytes, not read
 * again) until its newline arrives. A file that shrank, was replaced by another file (a new inode),
 * or no longer holds the first and last 4 KB of what was read where they were (read-ends.ts: a run
 * started again over its log, a rewrite of its end, at the same size or larger) was rewritten, not
 * appended to: it must be read whole again. Pure Node (`node:fs`), no `vscode`: the session code
 * calls it from a file watcher.
 *
 * Cost per call: the appended bytes, plus the 8 KB compared (not counted in `bytesRead`), so
 * following a live trace reads about the bytes its agent writes, not the file again.
 */
import * as fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { readEndsAfter, readEndsOfBytes, sameEnds, type ReadEnds } from './read-ends';

/** Where a follower is in a file. */
export interface TailState {
  /** Bytes read so far (the file position to go on from). */
  offset: number;
  /** The file's inode when read (a file replaced by a rename has another one); 0 when unknown. */
  ino: number;
  /** The first and last bytes of the `offset` bytes read, as read (read-ends.ts). */
  ends: ReadEnds;
  /** Bytes of a last line without its newline yet (kept, never read twice). */
  pending: Buffer;
}

/** What a {@link readAppended} call found. `bytesRead` counts the bytes read after what was read before (not the ones compared). */
export type TailRead =
  /** Complete lines finished since the last call (UTF-8 text ending in a line break), the new state, and whether their bytes were all UTF-8 (else some read as U+FFFD). */
  | { kind: 'append'; text: string; bytesRead: number; state: TailState; utf8: boolean }
  /** No line finished: nothing new, or part of a line (kept in the state's `pending`). */
  | { kind: 'none'; bytesRead: number; state: TailState }
  /** The file shrank, was replaced or was rewritten: read it whole again ({@link tailStateOf} after). */
  | { kind: 'reload'; reason: 'truncated' | 'replaced' | 'rewritten'; bytesRead: number };

/**
 * The state after reading the whole of `bytes` (a file's content). A last line without its
 * newline is pending: the caller has it in its text already, and it is handed on again, whole, in
 * the `append` that completes it.
 * @param bytes the file's content as read
 * @param ino the file's inode (`fs.statSync(path).ino`), or 0 when unknown
 */
export function tailStateOf(bytes: Uint8Array, ino = 0): TailState {
  const complete = bytes.lastIndexOf(0x0a) + 1;
  return { offset: bytes.length, ino, ends: readEndsOfBytes(bytes), pending: Buffer.from(bytes.subarray(complete)) };
}

/**
 * Reads what was appended to the file at `path` since `state`. Lines are split at `\n` bytes, so a
 * multi-byte UTF-8 character is never cut.
 * @returns `append` with the lines completed since (a pending line's start included), `none` when
 *   no line was completed, or `reload` when the file is shorter than what was read, is another
 *   file, or has other bytes in the first or last 4 KB of what was read.
 * @throws the file system's error when the file cannot be opened or read (e.g. ENOENT: deleted).
 */
export function readAppended(path: string, state: TailState): TailRead {
  const fd = fs.openSync(path, 'r');
  try {
    const stat = fs.fstatSync(fd);
    if (state.ino && stat.ino !== state.ino) return { kind: 'reload', reason: 'replaced', bytesRead: 0 };
    if (stat.size < state.offset) return { kind: 'reload', reason: 'truncated', bytesRead: 0 };
    if (!sameEnds(fd, state.ends)) return { kind: 'reload', reason: 'rewritten', bytesRead: 0 };
    // One read from the end of what was read to the end of the file.
    const bytes = Buffer.alloc(stat.size - state.offset);
    const bytesRead = bytes.length ? fs.readSync(fd, bytes, 0, bytes.length, state.offset) : 0;
    const added = bytes.subarray(0, bytesRead);
    const offset = state.offset + added.length;
    const ends = readEndsAfter(state.ends, added);
    const complete = added.lastIndexOf(0x0a) + 1;
    if (complete === 0) return { kind: 'none', bytesRead, state: { offset, ino: stat.ino, ends, pending: Buffer.concat([state.pending, added]) } };
    const lines = Buffer.concat([state.pending, added.subarray(0, complete)]);
    return { kind: 'append', text: lines.toString('utf8'), bytesRead, state: { offset, ino: stat.ino, ends, pending: Buffer.from(added.subarray(complete)) }, utf8: isUtf8(lines) };
  } finally {
    fs.closeSync(fd);
  }
}
