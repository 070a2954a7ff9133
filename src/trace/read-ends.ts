/**
 * The first and the last bytes of what was read of a file, kept to see at the next read that the
 * file was only appended to: a run started again over its log writes a new header at the start, a
 * rewrite of its end changes the last line; either reads the file whole again. (A rewrite that keeps
 * both and grows the file is taken as an append, as `tail -F` takes it: only a hash of every byte
 * would see it.) Pure Node (`node:fs`).
 */
import * as fs from 'node:fs';

/** Bytes compared at the start and at the end of what was read. */
export const CHECK_BYTES = 4096;

/** The first and last {@link CHECK_BYTES} (at most) of the bytes `[0, seen)` of a file, as read. */
export interface ReadEnds {
  /** Bytes read: `tail` ends there. */
  seen: number;
  head: Buffer;
  /** The same buffer as `head` when `seen` is at most {@link CHECK_BYTES}. */
  tail: Buffer;
}

/**
 * The ends of the first `seen` bytes of the open file `fd`, as they are now. The head changes no
 * more once it holds {@link CHECK_BYTES}: given the ends before, a full head is kept, not read again.
 */
export function readEndsOf(fd: number, seen: number, before?: ReadEnds): ReadEnds {
  const head = before && before.head.length >= CHECK_BYTES ? before.head : bytesAt(fd, 0, Math.min(CHECK_BYTES, seen));
  const tailAt = Math.max(0, seen - CHECK_BYTES);
  return { seen, head, tail: tailAt === 0 ? head : bytesAt(fd, tailAt, seen - tailAt) };
}

/** The ends of `bytes`, a file's first bytes as read (copies: `bytes` may be let go). */
export function readEndsOfBytes(bytes: Uint8Array): ReadEnds {
  const head = Buffer.from(bytes.subarray(0, CHECK_BYTES));
  const tailAt = Math.max(0, bytes.length - CHECK_BYTES);
  return { seen: bytes.length, head, tail: tailAt === 0 ? head : Buffer.from(bytes.subarray(tailAt)) };
}

/** The ends after `added` was read right after the bytes of `before` (from memory: the ends of the very bytes read). */
export function readEndsAfter(before: ReadEnds, added: Uint8Array): ReadEnds {
  if (added.length === 0) return before;
  const seen = before.seen + added.length;
  const head = before.head.length >= CHECK_BYTES ? before.head : Buffer.concat([before.head, added.subarray(0, CHECK_BYTES - before.head.length)]);
  if (seen <= CHECK_BYTES) return { seen, head, tail: head };
  const tail = added.length >= CHECK_BYTES ? Buffer.from(added.subarray(added.length - CHECK_BYTES)) : Buffer.concat([before.tail.subarray(Math.max(0, before.tail.length - (CHECK_BYTES - added.length))), added]);
  return { seen, head, tail };
}

/** True when the open file `fd` still holds, where they were, the first and last bytes of what was read. */
export function sameEnds(fd: number, ends: ReadEnds): boolean {
  return sameBytesAt(fd, 0, ends.head) && (ends.tail === ends.head || sameBytesAt(fd, ends.seen - ends.tail.length, ends.tail));
}

/** Up to `length` bytes of `fd` at `position` (fewer at the end of the file). */
function bytesAt(fd: number, position: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  return b.subarray(0, length ? fs.readSync(fd, b, 0, length, position) : 0);
}

/** True when the file holds `bytes` at `position`. */
function sameBytesAt(fd: number, position: number, bytes: Buffer): boolean {
  return bytes.length === 0 || bytesAt(fd, position, bytes.length).equals(bytes);
}
