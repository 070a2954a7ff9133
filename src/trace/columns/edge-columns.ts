/**
 * The edges of a trace as columns (source, target, type), no object per edge: each end an event
 * index, found as the edge is read when it can be (the usual edge names events just read), else
 * at the end of the read ({@link EdgeColumns.resolve}).
 */
import type { EdgeStore } from '../read';
import { EDGE_TYPES, type EdgeType, type TraceEdge } from '../schema';
import { UNRESOLVED, type EventColumns } from './event-columns';
import { resized } from './typed';

const EDGE_TYPE_CODE = new Map<string, number>(EDGE_TYPES.map((t, k) => [t, k]));

/**
 * A trace's edges in file order. Each end is the index of the first event carrying its id (in any
 * trace of the file), or {@link UNRESOLVED} with the id kept: while reading, an end not found yet
 * (a later event, or once events name traces: every end) waits for {@link resolve}.
 */
export class EdgeColumns implements EdgeStore {
  private count = 0;
  /** Source and target event indices ({@link UNRESOLVED}: see {@link names}). */
  src = new Int32Array(0);
  dst = new Int32Array(0);
  /** Index into EDGE_TYPES. */
  type = new Uint8Array(0);
  /** The id of each end that is {@link UNRESOLVED}, by `2 * edge + (0 for src, 1 for dst)`. */
  private readonly names = new Map<number, string>();

  /** @param events the events the ends name (read alongside: an end is looked for among the events read so far). */
  constructor(private readonly events: EventColumns) {}

  get length(): number {
    return this.count;
  }

  add(edge: TraceEdge): void {
    const i = this.count;
    if (i === this.type.length) {
      const size = Math.max(16, 2 * i);
      this.type = resized(this.type, size, i, 0);
      this.src = resized(this.src, size, i, 0);
      this.dst = resized(this.dst, size, i, 0);
    }
    this.type[i] = EDGE_TYPE_CODE.get(edge.type)!;
    const events = this.events;
    const src = edge.src;
    const s = events.firstSoFar(src);
    this.src[i] = s;
    if (s === UNRESOLVED) this.names.set(2 * i, src);
    const dst = edge.dst;
    const d = events.firstSoFar(dst);
    this.dst[i] = d;
    if (d === UNRESOLVED) this.names.set(2 * i + 1, dst);
    this.count = i + 1;
  }

  end(i: number, end: 'src' | 'dst'): string {
    const k = (end === 'src' ? this.src : this.dst)[i];
    return k === UNRESOLVED ? this.names.get(2 * i + (end === 'src' ? 0 : 1))! : this.events.ids[k];
  }

  /** The type of edge i. */
  typeOf(i: number): EdgeType {
    return EDGE_TYPES[this.type[i]];
  }

  /** Ends the read (after `events.resolve()`, before `events.done()`): each end not found yet becomes the index of the first event carrying its id, if any. */
  resolve(): void {
    const n = this.count;
    if (this.type.length !== n) {
      this.type = this.type.slice(0, n);
      this.src = this.src.slice(0, n);
      this.dst = this.dst.slice(0, n);
    }
    const events = this.events;
    for (const [key, id] of this.names) {
      const k = events.firstOf(id);
      if (k === UNRESOLVED) continue;
      ((key & 1) === 0 ? this.src : this.dst)[key >> 1] = k;
      this.names.delete(key);
    }
  }
}
