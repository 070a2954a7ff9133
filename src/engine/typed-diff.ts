/**
 * Where two typed columns of per-event values differ, found with byte comparisons (memcmp) instead
 * of a JavaScript loop over every value: what follows a growing trace compares its old events'
 * values with the new ones at each append (src/engine/overview-delta.ts, src/engine/graph-index.ts),
 * and nearly all are equal. Pure: Node's Buffer, no `vscode`.
 */

/** Elements compared as bytes at a time: the JS loop runs only inside chunks whose bytes differ. */
const CHUNK = 4096;

/** A typed column of per-event values. */
export type Column = Int32Array | Uint8Array | Float64Array | Uint16Array;

/** The bytes of `c`'s elements [start, end), without a copy. */
function bytesOf(c: Column, start: number, end: number): Buffer {
  return Buffer.from(c.buffer, c.byteOffset + start * c.BYTES_PER_ELEMENT, (end - start) * c.BYTES_PER_ELEMENT);
}

/** True when the first `n` elements of `x` and `y` are the same bytes (of one element type: else false, to be compared by value). */
export function sameUpTo(x: Column, y: Column, n: number): boolean {
  if (x.constructor !== y.constructor) return false;
  // views of the same memory (a column extended in place: src/shared/append-column.ts) hold the same values
  if (x.buffer === y.buffer && x.byteOffset === y.byteOffset) return x.length >= n && y.length >= n;
  return bytesOf(x, 0, n).equals(bytesOf(y, 0, n));
}

/** True when `x` and `y` hold the same bytes in elements [from, to) (false when either is shorter, or of another type: to be compared by value). */
export function sameRange(x: Column, y: Column, from: number, to: number): boolean {
  if (x === y) return true;
  if (x.constructor !== y.constructor || x.length < to || y.length < to) return false;
  return bytesOf(x, from, to).equals(bytesOf(y, from, to));
}

/**
 * The chunks [start, end) of the first `n` elements whose bytes differ between `x` and `y` (of one
 * type): compared with memcmp (under a millisecond for a million values; one JavaScript loop over
 * columns of several element types took tens of milliseconds per column at 1M, its element reads
 * polymorphic); equal bytes are equal values, so only these chunks need a look.
 */
export function* differingChunks(x: Column, y: Column, n: number): Generator<[number, number]> {
  if (x.constructor !== y.constructor) {
    yield [0, n]; // another element type (a lane column that outgrew its bytes): value by value
    return;
  }
  if (sameUpTo(x, y, n)) return;
  for (let start = 0; start < n; start += CHUNK) {
    const end = Math.min(n, start + CHUNK);
    if (!bytesOf(x, start, end).equals(bytesOf(y, start, end))) yield [start, end];
  }
}
