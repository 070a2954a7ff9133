/**
 * The overview's event columns ({@link GraphColumns}) packed into one byte buffer, so that they
 * cross the worker -> host -> webview route as binary (structured clone / transfer of one
 * Uint8Array) and the webview reads them as typed arrays over those bytes: no JSON text of one
 * number per event, nothing parsed. Pure: used by the engine and by the webview bundle.
 *
 * Layout for n events (little-endian, the platform order of typed arrays; each column starts on a
 * multiple of its element size): tx Float64 × n, byTime Int32 × n, lane Int32 × n, end Int32 × n,
 * kind Uint8 × n. Total 21·n bytes.
 */
import type { GraphColumns } from './protocol';

/** Bytes per event over all columns (8 + 4 + 4 + 4 + 1). */
const BYTES_PER_EVENT = 21;

/** Byte offsets of each column for n events, in the layout above. */
function offsets(n: number): { tx: number; byTime: number; lane: number; end: number; kind: number } {
  return { tx: 0, byTime: 8 * n, lane: 12 * n, end: 16 * n, kind: 20 * n };
}

/**
 * Packs the columns (all of the same length n) into one new buffer of 21·n bytes.
 * Throws when the columns differ in length.
 */
export function packColumns(c: GraphColumns): Uint8Array {
  const n = c.tx.length;
  if ([c.byTime, c.lane, c.end, c.kind].some((col) => col.length !== n)) throw new Error('graph columns of different lengths');
  const buffer = new ArrayBuffer(BYTES_PER_EVENT * n);
  const at = offsets(n);
  new Float64Array(buffer, at.tx, n).set(c.tx);
  new Int32Array(buffer, at.byTime, n).set(c.byTime);
  new Int32Array(buffer, at.lane, n).set(c.lane);
  new Int32Array(buffer, at.end, n).set(c.end);
  new Uint8Array(buffer, at.kind, n).set(c.kind);
  return new Uint8Array(buffer);
}

/**
 * The columns packed by {@link packColumns}, as typed arrays over the same bytes (no copy, unless
 * the bytes do not start on a multiple of 8 in their buffer: then over a copy).
 * Throws when the length is not a multiple of 21.
 */
export function unpackColumns(bytes: Uint8Array): GraphColumns {
  if (bytes.byteLength % BYTES_PER_EVENT !== 0) throw new Error(`graph columns: ${bytes.byteLength} bytes is not 21 per event`);
  const n = bytes.byteLength / BYTES_PER_EVENT;
  // A Float64Array view needs an offset that is a multiple of 8.
  const own = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const at = offsets(n);
  const base = own.byteOffset;
  // Members in the order of GraphColumns (as the engine's overview has them).
  return {
    byTime: new Int32Array(own.buffer, base + at.byTime, n),
    tx: new Float64Array(own.buffer, base + at.tx, n),
    lane: new Int32Array(own.buffer, base + at.lane, n),
    kind: new Uint8Array(own.buffer, base + at.kind, n),
    end: new Int32Array(own.buffer, base + at.end, n),
  };
}
