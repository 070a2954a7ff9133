/**
 * Busy time per lane and wall time, for parallelism = Σ over lanes of busy time / wall time.
 *
 * - An event is busy over [start, end]: from the end of its latest input it did not run alongside
 *   (its latency: the agent was starting, thinking or calling) to the end of its own work
 *   (`t` + its work; metrics.ts).
 * - A span waiting on the spans under it is not busy: an event's busy time leaves out the busy
 *   intervals of its children (the events whose `parent` is it); a workflow span that holds its
 *   agents' spans is busy only between them.
 * - A lane's busy time is the union of its events' intervals: nested or overlapping spans of one
 *   lane (an agent span and its model call, calls the agent issued side by side) count once.
 * - Wall time is the union of every event's interval: the time something ran.
 * A sequential run is 1 exactly (at each moment one innermost span runs); two lanes working at
 * once for the whole run give 2.
 *
 * O(n log n) for n events (the intervals are sorted per parent and per lane).
 */
import type { TraceIndex } from './trace-index';

/** Busy time summed over lanes and the wall time, in the unit of `t` (seconds or steps). */
export interface BusyTime {
  /** Σ over lanes of the union of the lane's busy intervals. */
  lane: number;
  /** The union of all busy intervals. */
  wall: number;
}

/**
 * Busy and wall time of an indexed trace.
 * @param start per position (time order), the start of the event's busy interval (its latency start)
 * @param end per position, the end of its own work (`t` + work)
 */
export function busyTime(index: TraceIndex, start: Float64Array, end: Float64Array): BusyTime {
  const n = index.size;
  // each event's parent (its `parent` field, the nearest event of that id)
  const parent = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) {
    const id = index.events[v].parent;
    const p = typeof id === 'string' ? index.resolve(id, v) : undefined;
    if (p !== undefined && p !== v) parent[v] = p;
  }
  const children = new Map<number, number[]>();
  for (let v = 0; v < n; v++) if (parent[v] !== -1 && end[v] > start[v]) (children.get(parent[v]) ?? children.set(parent[v], []).get(parent[v])!).push(v);
  // the busy pieces of each lane: each event's interval less its children's
  const pieces = new Map<string, number[]>();
  const all: number[] = [];
  for (let v = 0; v < n; v++) {
    if (!(end[v] > start[v])) continue;
    all.push(start[v], end[v]);
    const lane = index.events[v].agent;
    const out = pieces.get(lane) ?? pieces.set(lane, []).get(lane)!;
    const kids = children.get(v);
    if (!kids) {
      out.push(start[v], end[v]);
      continue;
    }
    const holes = merge(kids.flatMap((c) => [start[c], end[c]]));
    let from = start[v];
    for (let k = 0; k < holes.length; k += 2) {
      if (holes[k] > from) out.push(from, Math.min(holes[k], end[v]));
      from = Math.max(from, holes[k + 1]);
      if (from >= end[v]) break;
    }
    if (from < end[v]) out.push(from, end[v]);
  }
  let lane = 0;
  for (const p of pieces.values()) lane += length(merge(p));
  return { lane, wall: length(merge(all)) };
}

/** Intervals given as [start, end, start, end, ...], merged into disjoint ones in order (same form). */
function merge(flat: number[]): number[] {
  const order = Array.from({ length: flat.length / 2 }, (_, k) => k).sort((a, b) => flat[2 * a] - flat[2 * b]);
  const out: number[] = [];
  for (const k of order) {
    const s = flat[2 * k];
    const e = flat[2 * k + 1];
    if (!(e > s)) continue;
    if (out.length && s <= out[out.length - 1]) out[out.length - 1] = Math.max(out[out.length - 1], e);
    else out.push(s, e);
  }
  return out;
}

/** Total length of disjoint intervals [start, end, ...]. */
function length(merged: number[]): number {
  let total = 0;
  for (let k = 0; k < merged.length; k += 2) total += merged[k + 1] - merged[k];
  return total;
}
