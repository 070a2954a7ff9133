/**
 * The overview as it crosses the worker -> host -> webview route: a small JSON (lanes, axis,
 * findings' texts, legend) and one byte buffer holding everything per event, so the webview reads
 * typed arrays over those bytes: no JSON text of one number per event, nothing parsed. The event
 * columns ({@link GraphColumns}) and the findings' event lists (each finding's `events`: 200,000
 * numbers at 1M events) are binary; in the JSON a finding's `events` is its count. Pure: used by
 * the engine and by the webview bundle.
 *
 * Byte layout for n events and m findings' events in all (little-endian, the platform order of
 * typed arrays; each part starts on a multiple of its element size): a header of Uint32 × 4 (n, m,
 * the bytes per lane L, flags), tx Float64 × n, byTime Int32 × n (left out when the flag
 * {@link IN_FILE_ORDER} says the time order is the file order), end Int32 × n, the findings'
 * events Int32 × m (in finding order), lane as L-byte unsigned integers × n (L = 1 below 256 lanes,
 * 2 below 65,536, else 4), kind Uint8 × n, row Uint8 × n. At most 16 + 22·n + 4·m bytes; a trace in time order
 * with fewer than 256 lanes takes 16 + 15·n + 4·m (the bytes are copied on their way, twice in
 * the webview bench: a third fewer saves about 10 ms at 1M events).
 */
import type { GraphColumns, GraphFinding, GraphOverview } from './protocol';

/** Bytes of the header (n, m, L, flags as Uint32). */
const HEADER = 16;
/** Flag: byTime is left out, it is 0, 1, ..., n - 1. */
const IN_FILE_ORDER = 1;

/** The parts' sizes, from the header. */
interface Shape {
  n: number;
  m: number;
  laneBytes: 1 | 2 | 4;
  inFileOrder: boolean;
}

/** Byte offsets of each part, in the layout above. */
function offsets({ n, m, laneBytes, inFileOrder }: Shape): { tx: number; byTime: number; end: number; findings: number; lane: number; kind: number; row: number; total: number } {
  const tx = HEADER;
  const byTime = tx + 8 * n;
  const end = byTime + (inFileOrder ? 0 : 4 * n);
  const findings = end + 4 * n;
  const lane = findings + 4 * m;
  const kind = lane + laneBytes * n;
  const row = kind + n;
  return { tx, byTime, end, findings, lane, kind, row, total: row + n };
}

/** The lane part as a typed array of L-byte integers over the bytes. */
function laneView(buffer: ArrayBufferLike, offset: number, n: number, laneBytes: 1 | 2 | 4): Uint8Array | Uint16Array | Int32Array {
  return laneBytes === 1 ? new Uint8Array(buffer, offset, n) : laneBytes === 2 ? new Uint16Array(buffer, offset, n) : new Int32Array(buffer, offset, n);
}

/**
 * Packs the columns (all of the same length n) and the findings' events (concatenated, m numbers)
 * into one new buffer in the layout above. Throws when the columns differ in length.
 */
export function packColumns(c: GraphColumns, findingEvents: ArrayLike<number> = []): Uint8Array {
  const n = c.tx.length;
  if ([c.byTime, c.lane, c.end, c.kind, c.row].some((col) => col.length !== n)) throw new Error('graph columns of different lengths');
  let inFileOrder = true;
  for (let i = 0; i < n && inFileOrder; i++) inFileOrder = c.byTime[i] === i;
  let lanes = 0;
  let negative = false;
  for (let i = 0; i < n; i++) {
    if (c.lane[i] > lanes) lanes = c.lane[i];
    if (c.lane[i] < 0) negative = true;
  }
  const shape: Shape = { n, m: findingEvents.length, laneBytes: negative ? 4 : lanes < 256 ? 1 : lanes < 65_536 ? 2 : 4, inFileOrder };
  const at = offsets(shape);
  const buffer = new ArrayBuffer(at.total);
  new Uint32Array(buffer, 0, 4).set([n, shape.m, shape.laneBytes, inFileOrder ? IN_FILE_ORDER : 0]);
  new Float64Array(buffer, at.tx, n).set(c.tx);
  if (!inFileOrder) new Int32Array(buffer, at.byTime, n).set(c.byTime);
  new Int32Array(buffer, at.end, n).set(c.end);
  new Int32Array(buffer, at.findings, shape.m).set(findingEvents);
  laneView(buffer, at.lane, n, shape.laneBytes).set(c.lane);
  new Uint8Array(buffer, at.kind, n).set(c.kind);
  new Uint8Array(buffer, at.row, n).set(c.row);
  return new Uint8Array(buffer);
}

/**
 * The columns and findings' events packed by {@link packColumns}, as typed arrays over the same
 * bytes (no copy, unless the bytes do not start on a multiple of 8 in their buffer: then over a
 * copy); lane in the integers it was packed in. A byTime left out is made on first read (a new
 * array of n allocated before the first paint costs the webview up to tens of ms at 1M events).
 * Throws when the length does not match the header.
 */
export function unpackColumns(bytes: Uint8Array): { columns: GraphColumns; findingEvents: Int32Array } {
  if (bytes.byteLength < HEADER) throw new Error(`graph columns: ${bytes.byteLength} bytes hold no header`);
  // A Float64Array view needs an offset that is a multiple of 8.
  const own = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const base = own.byteOffset;
  const [n, m, laneBytes, flags] = new Uint32Array(own.buffer, base, 4);
  if (laneBytes !== 1 && laneBytes !== 2 && laneBytes !== 4) throw new Error(`graph columns: ${laneBytes} bytes per lane`);
  const shape: Shape = { n, m, laneBytes, inFileOrder: (flags & IN_FILE_ORDER) !== 0 };
  const at = offsets(shape);
  if (own.byteLength !== at.total) throw new Error(`graph columns: ${own.byteLength} bytes, not the ${at.total} of ${n} events and ${m} findings' events`);
  // Members in the order of GraphColumns (as the engine's overview has them).
  const columns = {} as GraphColumns;
  if (shape.inFileOrder) {
    let byTime: Int32Array | undefined;
    Object.defineProperty(columns, 'byTime', { enumerable: true, configurable: true, get: () => (byTime ??= fileOrder(n)) });
  } else columns.byTime = new Int32Array(own.buffer, base + at.byTime, n);
  columns.tx = new Float64Array(own.buffer, base + at.tx, n);
  columns.lane = laneView(own.buffer, base + at.lane, n, laneBytes);
  columns.kind = new Uint8Array(own.buffer, base + at.kind, n);
  columns.end = new Int32Array(own.buffer, base + at.end, n);
  columns.row = new Uint8Array(own.buffer, base + at.row, n);
  return { columns, findingEvents: new Int32Array(own.buffer, base + at.findings, m) };
}

/** 0, 1, ..., n - 1. */
function fileOrder(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** A finding as the overview's JSON holds it: its events are in the bytes, here only their count. */
type PackedFinding = Omit<GraphFinding, 'events'> & { events: number };

/**
 * The overview as bytes: `json` the UTF-8 JSON of the overview without its columns, each finding's
 * `events` replaced by their count; `columns` the columns and the findings' events packed by
 * {@link packColumns}. Both are new buffers (they can be moved to another thread).
 */
export function packOverview(overview: GraphOverview): { json: Uint8Array; columns: Uint8Array } {
  const { columns, ...rest } = overview;
  let m = 0;
  for (const f of overview.findings) m += f.events.length;
  const events = new Int32Array(m);
  let k = 0;
  for (const f of overview.findings) {
    events.set(f.events, k);
    k += f.events.length;
  }
  const findings: PackedFinding[] = overview.findings.map((f) => ({ ...f, events: f.events.length }));
  return { json: new TextEncoder().encode(JSON.stringify({ ...rest, findings })), columns: packColumns(columns, events) };
}

/**
 * The overview {@link packOverview} packed, read back: the JSON parsed, the columns typed arrays
 * over the bytes, each finding's `events` an array made from the bytes when first read (at 1M
 * events most are never read: the webview reads them when a finding is framed or stepped to).
 * Throws when the bytes do not match the JSON's counts.
 */
export function unpackOverview(json: Uint8Array, bytes: Uint8Array): GraphOverview {
  const rest = JSON.parse(new TextDecoder().decode(json)) as Omit<GraphOverview, 'columns' | 'findings'> & { findings: PackedFinding[] };
  const { columns, findingEvents } = unpackColumns(bytes);
  let k = 0;
  const findings = rest.findings.map((f) => {
    const events = findingEvents.subarray(k, (k += f.events));
    return lazyEvents(f, events);
  });
  if (k !== findingEvents.length) throw new Error(`graph overview: the findings count ${k} events, the bytes hold ${findingEvents.length}`);
  return { ...rest, findings, columns };
}

/** A finding (its members in their order) whose `events` is read from `events` on first use, then kept. */
function lazyEvents(f: PackedFinding, events: Int32Array): GraphFinding {
  const out = {} as GraphFinding;
  let list: number[] | undefined;
  for (const [key, value] of Object.entries(f)) {
    if (key === 'events')
      Object.defineProperty(out, 'events', {
        enumerable: true,
        configurable: true,
        get: () => (list ??= Array.from(events)),
        set: (v: number[]) => (list = v),
      });
    else (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}
