/**
 * Following a JSONL trace that an agent is still writing: after the first load, read only the bytes
 * appended since, hand on the complete lines, and keep a partial last line (its bytes, not read
 * again) until its newline arrives. A file that shrank, was replaced by another file (a new inode),
 * or no longer holds the last byte read where it was, was rewritten, not appended to: it must be
 * read whole again. (As with `tail -F`, an in-place rewrite that grows the file and keeps that
 * byte passes for an append; trace writers append, and editors' saves reach otrace as document
 * changes.) Pure Node (`node:fs`), no `vscode`: the session code calls it from a file watcher.
 *
 * Cost per call: the appended bytes plus {@link CHECK_BYTES}, so following a live trace reads about
 * the bytes its agent writes, not the file again.
 */
import * as fs from 'node:fs';

/** Bytes read again just before the end of what was read: the last byte, to notice a rewrite. */
export const CHECK_BYTES = 1;

/** Where a follower is in a file. */
export interface TailState {
  /** Bytes read so far (the file position to go on from). */
  offset: number;
  /** The file's inode when read (a file replaced by a rename has another one); 0 when unknown. */
  ino: number;
  /** The byte at `offset - 1` when read (-1 when offset is 0). */
  last: number;
  /** Bytes of a last line without its newline yet (kept, never read twice). */
  pending: Buffer;
}

/** What a {@link readAppended} call found. `bytesRead` counts every byte read from the file. */
export type TailRead =
  /** Complete lines finished since the last call (UTF-8 text ending in a line break), and the new state. */
  | { kind: 'append'; text: string; bytesRead: number; state: TailState }
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
  return { offset: bytes.length, ino, last: bytes.length ? bytes[bytes.length - 1] : -1, pending: Buffer.from(bytes.subarray(complete)) };
}

/**
 * Reads what was appended to the file at `path` since `state`. Lines are split at `\n` bytes, so a
 * multi-byte UTF-8 character is never cut.
 * @returns `append` with the lines completed since (a pending line's start included), `none` when
 *   no line was completed, or `reload` when the file is shorter than what was read, is another
 *   file, or has another byte where the last one read was.
 * @throws the file system's error when the file cannot be opened or read (e.g. ENOENT: deleted).
 */
export function readAppended(path: string, state: TailState): TailRead {
  const fd = fs.openSync(path, 'r');
  try {
    const stat = fs.fstatSync(fd);
    if (state.ino && stat.ino !== state.ino) return { kind: 'reload', reason: 'replaced', bytesRead: 0 };
    if (stat.size < state.offset) return { kind: 'reload', reason: 'truncated', bytesRead: 0 };
    // One read from the last byte read to the end of the file.
    const check = state.offset > 0 ? CHECK_BYTES : 0;
    const bytes = Buffer.alloc(stat.size - state.offset + check);
    const bytesRead = bytes.length ? fs.readSync(fd, bytes, 0, bytes.length, state.offset - check) : 0;
    if (check && (bytesRead < check || bytes[0] !== state.last)) return { kind: 'reload', reason: 'rewritten', bytesRead };
    const added = bytes.subarray(check, bytesRead);
    const offset = state.offset + added.length;
    const last = added.length ? added[added.length - 1] : state.last;
    const complete = added.lastIndexOf(0x0a) + 1;
    if (complete === 0) return { kind: 'none', bytesRead, state: { offset, ino: stat.ino, last, pending: Buffer.concat([state.pending, added]) } };
    const text = Buffer.concat([state.pending, added.subarray(0, complete)]).toString('utf8');
    return { kind: 'append', text, bytesRead, state: { offset, ino: stat.ino, last, pending: Buffer.from(added.subarray(complete)) } };
  } finally {
    fs.closeSync(fd);
  }
}
