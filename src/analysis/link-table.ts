/**
 * The causal links of a TraceIndex as flat typed arrays (no object or array per link or per
 * event): while the index is built, each event's incoming links form a list threaded through
 * `next`, in the order they were added; {@link LinkTable.finish} then groups them per event
 * (compressed rows: the incoming links of v are `inLinks[inStart[v] .. inStart[v + 1])`, the
 * outgoing ones of u likewise), each group in the order the links were added.
 */
import { EDGE_TYPES, type EdgeType } from '../trace/schema';
import type { Arena, ArenaMark } from './arena';

export type LinkKind = 'edge' | 'parent' | 'causes' | 'tool_result' | 'spawn' | 'return' | 'delivery' | 'lane' | 'implicit';

/** Link kinds by code (the code is the position here); the first three are stated by the trace. */
export const LINK_KINDS: readonly LinkKind[] = ['edge', 'parent', 'causes', 'tool_result', 'spawn', 'return', 'delivery', 'lane', 'implicit'];

/** Code of each link kind. */
export const LINK_CODE: Readonly<Record<LinkKind, number>> = Object.fromEntries(LINK_KINDS.map((k, c) => [k, c])) as Record<LinkKind, number>;

/** True for the codes of links the trace states (edges, parent, causes). */
export function isExplicitCode(code: number): boolean {
  return code <= 2;
}

/** Code of an edge type (0 = not from an edge): its position in EDGE_TYPES + 1. */
export const EDGE_TYPE_CODE: ReadonlyMap<EdgeType, number> = new Map(EDGE_TYPES.map((t, k) => [t, k + 1]));

/** The edge type of a code (undefined for 0). */
export function edgeTypeOfCode(code: number): EdgeType | undefined {
  return code === 0 ? undefined : EDGE_TYPES[code - 1];
}

/** Links grouped by target event, as compressed rows (see the module comment). */
export interface LinkRows {
  inStart: Int32Array;
  inLinks: Int32Array;
}

/** Links grouped by source event (`outLinks[outStart[u] .. outStart[u + 1])`), made when asked: the analyses walk incoming links only. */
export function rowsBySource(u: Int32Array, n: number): { outStart: Int32Array; outLinks: Int32Array } {
  const outStart = new Int32Array(n + 1);
  const outLinks = new Int32Array(u.length);
  rowsBy(u, u.length, n, new Int32Array(n), outStart, outLinks);
  return { outStart, outLinks };
}

/** A growing table of links between `n` positions. */
export class LinkTable {
  count = 0;
  u: Int32Array;
  kind: Uint8Array;
  edgeType: Uint8Array;
  /** Per link, its target (given back with the building lists: the rows hold it). */
  v: Int32Array;
  /** Per link, the next incoming link of the same target (-1 at the end). */
  private next: Int32Array;
  /** Per position, its first and last incoming link (-1 when none). */
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  /** Where the arena stood before the table: {@link rows} moves what is kept down to it (arena.ts `compact`). */
  private readonly start?: ArenaMark;

  /**
   * @param n positions; @param capacity links expected (the arrays grow past it; a good guess saves
   *   the copies, which at a million events are tens of MB the collector counts towards its next full GC).
   * @param arena where the arrays are made (arena.ts), else each is a typed array of its own. The
   *   links and rows stay there, as long as the links are (not the capacity: at a million events
   *   the guess runs 1M links over, 10 MB); the building lists are given back when {@link rows} is done.
   */
  constructor(
    private readonly n: number,
    capacity = 64,
    private readonly arena?: Arena,
  ) {
    const size = Math.max(16, capacity);
    const int32 = (length: number) => (arena ? arena.int32(length) : new Int32Array(length));
    this.start = arena?.mark();
    this.u = int32(size);
    this.kind = arena ? arena.uint8(size) : new Uint8Array(size);
    this.edgeType = arena ? arena.uint8(size) : new Uint8Array(size);
    this.v = int32(size);
    this.next = int32(size);
    this.head = int32(n).fill(-1);
    this.tail = int32(n).fill(-1);
  }

  /** Adds the link u -> v; @returns its index. */
  add(u: number, v: number, kind: number, edgeType: number): number {
    const k = this.count;
    if (k === this.u.length) this.grow();
    this.u[k] = u;
    this.v[k] = v;
    this.kind[k] = kind;
    this.edgeType[k] = edgeType;
    this.next[k] = -1;
    if (this.tail[v] === -1) this.head[v] = k;
    else this.next[this.tail[v]] = k;
    this.tail[v] = k;
    this.count = k + 1;
    return k;
  }

  /** First incoming link of v (-1 when none); {@link nextIn} walks on, in the order they were added. */
  firstIn(v: number): number {
    return this.head[v];
  }

  nextIn(k: number): number {
    return this.next[k];
  }

  /** True when a link u -> v is already there. */
  has(u: number, v: number): boolean {
    for (let k = this.head[v]; k !== -1; k = this.next[k]) if (this.u[k] === u) return true;
    return false;
  }

  /** Doubles the link arrays, as typed arrays of their own (the arena's order is kept: see the constructor). */
  private grow(): void {
    const size = this.u.length * 2;
    const more = <T extends Int32Array | Uint8Array>(a: T, make: (size: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.u = more(this.u, (s) => new Int32Array(s));
    this.v = more(this.v, (s) => new Int32Array(s));
    this.kind = more(this.kind, (s) => new Uint8Array(s));
    this.edgeType = more(this.edgeType, (s) => new Uint8Array(s));
    this.next = more(this.next, (s) => new Int32Array(s));
  }

  /**
   * The links grouped per target, each group in the order the links were added.
   * Call once, when every link is in: with an arena, {@link u}, {@link kind} and {@link edgeType}
   * become views of `count` entries moved down with the rows, and the building lists are given back
   * (the table cannot take more links after it).
   */
  rows(): LinkRows {
    const { n, count, arena } = this;
    const int32 = (length: number) => (arena ? arena.int32(length) : new Int32Array(length));
    const inStart = int32(n + 1);
    const inLinks = int32(count);
    rowsBy(this.v, count, n, int32(n), inStart, inLinks);
    if (!arena || !this.start) return { inStart, inLinks };
    const kept = arena.compact(this.start, [this.u.subarray(0, count), this.kind.subarray(0, count), this.edgeType.subarray(0, count), inStart, inLinks] as const);
    [this.u, this.kind, this.edgeType] = kept;
    return { inStart: kept[3], inLinks: kept[4] };
  }
}

/**
 * Counting sort of link indices 0..count-1 by `end[k]` (stable: ascending k within a row) into
 * `start` (n + 1 zeros) and `links` (count entries), with `fill` (n entries) as scratch. Each
 * pass is a function of its own (a function of several long loops is compiled loop by loop and sent
 * back to the interpreter at each next loop, on every call).
 */
function rowsBy(end: Int32Array, count: number, n: number, fill: Int32Array, start: Int32Array, links: Int32Array): void {
  countPerRow(end, count, start);
  prefixSums(start, n);
  fill.set(start.subarray(0, n));
  fillRows(end, count, fill, links);
}

/** start[r + 1] += the number of links whose `end` is r. */
function countPerRow(end: Int32Array, count: number, start: Int32Array): void {
  for (let k = 0; k < count; k++) start[end[k] + 1]++;
}

/** Running sums of start[0..n]. */
function prefixSums(start: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
}

/** Puts each link in its row, in link order (`fill`: each row's next free place). */
function fillRows(end: Int32Array, count: number, fill: Int32Array, links: Int32Array): void {
  for (let k = 0; k < count; k++) links[fill[end[k]]++] = k;
}
