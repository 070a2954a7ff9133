/**
 * The overview as it crosses the worker -> host -> webview route: a small JSON (lanes, axis,
 * findings' texts, legend) and one byte buffer holding everything per event, so the webview reads
 * typed arrays over those bytes: no JSON text of one number per event, nothing parsed. The event
 * columns ({@link GraphColumns}) and the findings' event lists (each finding's `events`: 200,000
 * numbers at 1M events) are binary; in the JSON a finding's `events` is its count. Pure: used by
 * the engine and by the webview bundle.
 *
 * Byte layout for n events and m findings' events in all (little-endian, the platform order of
 * typed arrays; each part starts on a multiple of its element size): a header of Uint32 × 2 (n, m),
 * tx Float64 × n, byTime Int32 × n, lane Int32 × n, end Int32 × n, the findings' events Int32 × m
 * (in finding order), kind Uint8 × n. Total 8 + 21·n + 4·m bytes.
 */
import type { GraphColumns, GraphFinding, GraphOverview } from './protocol';

/** Bytes of the header (n and m as Uint32). */
const HEADER = 8;

/** Byte offsets of each part for n events and m findings' events, in the layout above. */
function offsets(n: number, m: number): { tx: number; byTime: number; lane: number; end: number; findings: number; kind: number; total: number } {
  const tx = HEADER;
  const findings = tx + 20 * n;
  const kind = findings + 4 * m;
  return { tx, byTime: tx + 8 * n, lane: tx + 12 * n, end: tx + 16 * n, findings, kind, total: kind + n };
}

/**
 * Packs the columns (all of the same length n) and the findings' events (concatenated, m numbers)
 * into one new buffer of 8 + 21·n + 4·m bytes. Throws when the columns differ in length.
 */
export function packColumns(c: GraphColumns, findingEvents: ArrayLike<number> = []): Uint8Array {
  const n = c.tx.length;
  if ([c.byTime, c.lane, c.end, c.kind].some((col) => col.length !== n)) throw new Error('graph columns of different lengths');
  const m = findingEvents.length;
  const at = offsets(n, m);
  const buffer = new ArrayBuffer(at.total);
  new Uint32Array(buffer, 0, 2).set([n, m]);
  new Float64Array(buffer, at.tx, n).set(c.tx);
  new Int32Array(buffer, at.byTime, n).set(c.byTime);
  new Int32Array(buffer, at.lane, n).set(c.lane);
  new Int32Array(buffer, at.end, n).set(c.end);
  new Int32Array(buffer, at.findings, m).set(findingEvents);
  new Uint8Array(buffer, at.kind, n).set(c.kind);
  return new Uint8Array(buffer);
}

/**
 * The columns and findings' events packed by {@link packColumns}, as typed arrays over the same
 * bytes (no copy, unless the bytes do not start on a multiple of 8 in their buffer: then over a
 * copy). Throws when the length does not match the header.
 */
export function unpackColumns(bytes: Uint8Array): { columns: GraphColumns; findingEvents: Int32Array } {
  if (bytes.byteLength < HEADER) throw new Error(`graph columns: ${bytes.byteLength} bytes hold no header`);
  // A Float64Array view needs an offset that is a multiple of 8.
  const own = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const base = own.byteOffset;
  const [n, m] = new Uint32Array(own.buffer, base, 2);
  const at = offsets(n, m);
  if (own.byteLength !== at.total) throw new Error(`graph columns: ${own.byteLength} bytes, not the ${at.total} of ${n} events and ${m} findings' events`);
  // Members in the order of GraphColumns (as the engine's overview has them).
  const columns = {
    byTime: new Int32Array(own.buffer, base + at.byTime, n),
    tx: new Float64Array(own.buffer, base + at.tx, n),
    lane: new Int32Array(own.buffer, base + at.lane, n),
    kind: new Uint8Array(own.buffer, base + at.kind, n),
    end: new Int32Array(own.buffer, base + at.end, n),
  };
  return { columns, findingEvents: new Int32Array(own.buffer, base + at.findings, m) };
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
