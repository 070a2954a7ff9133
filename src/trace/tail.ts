/**
 * Following a JSONL trace that an agent is still writing: after the first load, read only the bytes
 * appended since, hand on the complete lines, and keep a partial last line until its newline
 * arrives. A file that shrank, was replaced by another file (a new inode), or no longer has a line
 * break where the consumed part ended, was rewritten, not appended to: it must be read whole again.
 * (As with `tail -F`, an in-place rewrite that grows the file and keeps a line break at that offset
 * passes for an append; trace writers append, and editors' saves reach otrace as document changes.)
 * Pure Node (`node:fs`), no `vscode`: the session code calls it from a file watcher.
 *
 * Cost per call: the appended bytes plus {@link CHECK_BYTES}, so following a live trace reads about
 * the bytes its agent writes, not the file again.
 */
import * as fs from 'node:fs';

/** Bytes read again just before the consumed offset: the line break that ended the last line. */
export const CHECK_BYTES = 1;

/** Where a follower is in a file: what it has consumed, and what it saw there. */
export interface TailState {
  /** Bytes consumed: the end of the last complete line handed on (a partial line is not consumed). */
  offset: number;
  /** The file's inode when read (a file replaced by a rename has another one); 0 when unknown. */
  ino: number;
}

/** What a {@link readAppended} call found. `bytesRead` counts every byte read from the file. */
export type TailRead =
  /** Complete lines appended since the state's offset (UTF-8 text ending in a line break), and the new state. */
  | { kind: 'append'; text: string; bytesRead: number; state: TailState }
  /** Nothing new, or only part of a line (it waits for its newline). */
  | { kind: 'none'; bytesRead: number; state: TailState }
  /** The file shrank, was replaced or was rewritten: read it whole again ({@link tailStateOf} after). */
  | { kind: 'reload'; reason: 'truncated' | 'replaced' | 'rewritten'; bytesRead: number };

/**
 * The state after reading the whole of `bytes` (a file's content): consumed through its last line
 * break, so that a cut-off last line is read again once it is complete.
 * @param bytes the file's content as read
 * @param ino the file's inode (`fs.statSync(path).ino`), or 0 when unknown
 */
export function tailStateOf(bytes: Uint8Array, ino = 0): TailState {
  const offset = bytes.lastIndexOf(0x0a) + 1;
  return { offset, ino };
}

/**
 * Reads what was appended to the file at `path` since `state`. Lines are split at `\n` bytes, so a
 * multi-byte UTF-8 character is never cut.
 * @returns `append` with the complete new lines, `none` when no complete line was added, or
 *   `reload` when the file is shorter than what was consumed, is another file, or has no line
 *   break where the consumed part ended.
 * @throws the file system's error when the file cannot be opened or read (e.g. ENOENT: deleted).
 */
export function readAppended(path: string, state: TailState): TailRead {
  const fd = fs.openSync(path, 'r');
  try {
    const stat = fs.fstatSync(fd);
    if (state.ino && stat.ino !== state.ino) return { kind: 'reload', reason: 'replaced', bytesRead: 0 };
    if (stat.size < state.offset) return { kind: 'reload', reason: 'truncated', bytesRead: 0 };
    // One read from the line break that ended the consumed part to the end of the file.
    const check = state.offset > 0 ? CHECK_BYTES : 0;
    const bytes = Buffer.alloc(stat.size - state.offset + check);
    const bytesRead = bytes.length ? fs.readSync(fd, bytes, 0, bytes.length, state.offset - check) : 0;
    if (check && (bytesRead < check || bytes[0] !== 0x0a)) return { kind: 'reload', reason: 'rewritten', bytesRead };
    const added = bytes.subarray(check, bytesRead);
    const complete = added.lastIndexOf(0x0a) + 1;
    if (complete === 0) return { kind: 'none', bytesRead, state };
    return { kind: 'append', text: added.subarray(0, complete).toString('utf8'), bytesRead, state: { offset: state.offset + complete, ino: stat.ino } };
  } finally {
    fs.closeSync(fd);
  }
}
