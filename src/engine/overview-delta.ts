/**
 * The delta from one overview of a growing trace to the next (issue #30): what the webview, which
 * holds the first, needs to make the second (src/shared/overview-delta.ts applies it). Made from
 * the two overviews, so it is right whatever made them; worth it only when the second's layout
 * was extended from the first's (src/engine/structure-growth.ts): the old events then keep their
 * time ranks and nearly all their values. Pure: no `vscode`.
 */
import type { GraphOverview } from '../shared/protocol';
import { CHANGED_COLUMNS, packAppended, type OverviewDelta } from '../shared/overview-delta';

/** Beyond this share of old values changed, a delta is not worth it (the whole overview is sent). */
const MOST_CHANGED = 1 / 8;

/**
 * The delta that makes `next` from `held` ({@link OverviewDelta}); undefined when `next` is not
 * `held` with events appended: fewer events, the old events' time order changed (an append that
 * reaches back), or more than an eighth of the old values changed. O(n) for n events, as byte
 * comparisons of the typed arrays (memcmp), values compared one by one only where bytes differ; the delta's size is O(appended + changed), plus 8 bytes per event when old
 * axis positions moved (when the axis's threshold changed: src/shared/axis.ts).
 */
export function overviewDelta(held: GraphOverview, next: GraphOverview): OverviewDelta | undefined {
  const a = held.columns;
  const b = next.columns;
  const from = a.tx.length;
  const n = b.tx.length;
  if (n < from) return undefined;
  if (!sameUpTo(a.byTime, b.byTime, from)) return undefined;
  const changed: number[] = [];
  const most = Math.max(64, from * MOST_CHANGED) * 3;
  for (let code = 0; code < CHANGED_COLUMNS.length; code++) {
    const x = a[CHANGED_COLUMNS[code]];
    const y = b[CHANGED_COLUMNS[code]];
    for (const [start, end] of differingChunks(x, y, from)) {
      for (let i = start; i < end; i++) {
        if (x[i] === y[i]) continue;
        changed.push(code, i, y[i]);
        if (changed.length > most) return undefined;
      }
    }
  }
  let moved = false;
  for (const [start, end] of differingChunks(a.tx, b.tx, from)) {
    for (let i = start; i < end && !moved; i++) moved = a.tx[i] !== b.tx[i] && !(Number.isNaN(a.tx[i]) && Number.isNaN(b.tx[i]));
    if (moved) break;
  }
  const { columns: _columns, ...rest } = next;
  return {
    base: held.stamp,
    from,
    json: new TextEncoder().encode(JSON.stringify(rest)),
    appended: packAppended(b, from),
    changed: Int32Array.from(changed),
    ...(moved ? { tx: b.tx.slice() } : {}),
  };
}

/** Elements compared as bytes at a time: the JS loop runs only inside chunks whose bytes differ. */
const CHUNK = 4096;

type Column = Int32Array | Uint8Array | Float64Array | Uint16Array;

/** The bytes of `c`'s elements [start, end), without a copy. */
function bytesOf(c: Column, start: number, end: number): Buffer {
  return Buffer.from(c.buffer, c.byteOffset + start * c.BYTES_PER_ELEMENT, (end - start) * c.BYTES_PER_ELEMENT);
}

/** True when the first `n` elements of `x` and `y` are the same bytes (of one element type: else false, to be compared by value). */
function sameUpTo(x: Column, y: Column, n: number): boolean {
  return x.constructor === y.constructor && bytesOf(x, 0, n).equals(bytesOf(y, 0, n));
}

/**
 * The chunks [start, end) of the first `n` elements whose bytes differ between `x` and `y` (of one
 * type): compared with memcmp (a few ms for a million values, where a JS loop over every value
 * takes about 100 ms per column); equal bytes are equal values, so only these chunks need a look.
 */
function* differingChunks(x: Column, y: Column, n: number): Generator<[number, number]> {
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
