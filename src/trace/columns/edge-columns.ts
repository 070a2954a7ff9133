/**
 * The edges of a trace as columns (source, target, type), no object per edge: the ends are event
 * indices once the read is done ({@link EdgeColumns.resolve}).
 */
import type { EdgeStore } from '../read';
import { EDGE_TYPES, type EdgeType, type TraceEdge } from '../schema';
import { UNRESOLVED, type EventColumns } from './event-columns';
import { resized } from './typed';

const EDGE_TYPE_CODE = new Map<string, number>(EDGE_TYPES.map((t, k) => [t, k]));

/**
 * A trace's edges in file order. While reading, the ids of the ends are kept (the checks read them
 * at the end); {@link resolve} turns them into event indices (the first event carrying the id;
 * {@link UNRESOLVED} with the id kept when none does).
 */
export class EdgeColumns implements EdgeStore {
  private count = 0;
  /** Source and target event indices (after {@link resolve}). */
  src = new Int32Array(0);
  dst = new Int32Array(0);
  /** Index into EDGE_TYPES. */
  type = new Uint8Array(0);
  /** The ids of the ends, until {@link resolve}. */
  private srcIds?: string[] = [];
  private dstIds?: string[] = [];
  /** Edge index -> the id of an end no event carries (after {@link resolve}). */
  private readonly srcNames = new Map<number, string>();
  private readonly dstNames = new Map<number, string>();
  /** The events the ends name (set by {@link resolve}). */
  private events?: EventColumns;

  get length(): number {
    return this.count;
  }

  add(edge: TraceEdge): void {
    const i = this.count;
    if (i === this.type.length) this.type = resized(this.type, Math.max(16, 2 * i), i, 0);
    this.type[i] = EDGE_TYPE_CODE.get(edge.type)!;
    this.srcIds!.push(edge.src);
    this.dstIds!.push(edge.dst);
    this.count = i + 1;
  }

  end(i: number, end: 'src' | 'dst'): string {
    const ids = end === 'src' ? this.srcIds : this.dstIds;
    if (ids) return ids[i];
    const k = (end === 'src' ? this.src : this.dst)[i];
    return k === UNRESOLVED ? (end === 'src' ? this.srcNames : this.dstNames).get(i)! : this.events!.ids[k];
  }

  /** The type of edge i. */
  typeOf(i: number): EdgeType {
    return EDGE_TYPES[this.type[i]];
  }

  /** Ends the read (after `events.resolve()`): each end becomes the index of the first event carrying its id (any trace of the file). */
  resolve(events: EventColumns): void {
    const n = this.count;
    this.src = new Int32Array(n);
    this.dst = new Int32Array(n);
    this.type = this.type.slice(0, n);
    const srcIds = this.srcIds!;
    const dstIds = this.dstIds!;
    for (let i = 0; i < n; i++) {
      this.src[i] = events.firstOf(srcIds[i]);
      if (this.src[i] === UNRESOLVED) this.srcNames.set(i, srcIds[i]);
      this.dst[i] = events.firstOf(dstIds[i]);
      if (this.dst[i] === UNRESOLVED) this.dstNames.set(i, dstIds[i]);
    }
    this.srcIds = undefined;
    this.dstIds = undefined;
    this.events = events;
  }
}
