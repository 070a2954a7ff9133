/**
 * Per-event columns that an append only adds to (issue #30), in the engine (a followed trace's
 * layout: src/engine/structure-growth.ts) and in the webview (the overview a delta extends:
 * src/shared/overview-delta.ts). The layout of a trace extended by 100 lines kept copying its lane,
 * time-rank, time and position columns (24 bytes per event: 24 MB per append at 1M events, new
 * memory outside the heap that also set the collector marking the whole trace again). Here the
 * extended column is a longer view of the same buffer when the old column is the latest view of
 * it and the buffer has room: the new entries go after the old view's end, nothing before it is
 * written here. A buffer is handed out to one chain of appends only: a view that is not the
 * longest made of its buffer (a layout extended twice from the same one) gets a copy. Pure: no
 * `vscode`, no DOM.
 */

type Column = Int32Array | Float64Array | Uint16Array | Uint8Array;

/** Per buffer made here, the length of the longest view handed out (what is past it is free). */
const claimed = new WeakMap<ArrayBufferLike, number>();

/**
 * A new column of `n` zeros with room after it for appends (a quarter more, plus 4,096 values),
 * that {@link appendColumn} extends in place: for the whole build of a trace that is followed.
 */
export function columnWithRoom<T extends Column>(Type: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number }, n: number): T {
  const out = new Type(new ArrayBuffer((n + (n >> 2) + 4096) * Type.BYTES_PER_ELEMENT), 0, n);
  claimed.set(out.buffer, n);
  return out;
}

/**
 * A column of `n` values whose first `old.length` are `old`'s (the rest 0, for the caller to
 * write): a view of `old`'s buffer when `old` is the longest view made of it here and the buffer
 * has room, else a new buffer with room for a quarter more (plus 4,096 values). `old` itself is not
 * changed, and no later call writes into it. @throws RangeError when n < old.length.
 */
export function appendColumn<T extends Column>(old: T, n: number): T {
  if (n < old.length) throw new RangeError(`a column of ${old.length} values cannot be extended to ${n}`);
  const size = old.BYTES_PER_ELEMENT;
  const Type = old.constructor as new (buffer: ArrayBufferLike, byteOffset: number, length: number) => T;
  if (old.byteOffset === 0 && claimed.get(old.buffer) === old.length && old.buffer.byteLength >= n * size) {
    claimed.set(old.buffer, n);
    return new Type(old.buffer, 0, n);
  }
  return copyColumn(old, n);
}

/**
 * A column of `n` values whose first `old.length` are `old`'s (the rest 0) in a new buffer with room
 * for a quarter more (plus 4,096 values), which {@link appendColumn} then extends in place: for a
 * caller that changes some of the old values (`old` itself is not changed). @throws RangeError when
 * n < old.length.
 */
export function copyColumn<T extends Column>(old: T, n: number): T {
  if (n < old.length) throw new RangeError(`a column of ${old.length} values cannot be extended to ${n}`);
  const out = columnWithRoom(old.constructor as { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number }, n);
  out.set(old);
  return out;
}
