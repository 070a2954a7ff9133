/**
 * The edges of a graph layout by event (issue #30, "analysis that follows appends"): which edges
 * leave and enter each event, for the windows (src/engine/graph-window.ts draws the edges of the
 * events it draws). Built whole once, as two columns grouped by event (O(n + edges)); for a layout
 * extended by an append (src/engine/structure-growth.ts) made from its predecessor's in
 * O(edges appended): the old edges keep their events, only their numbers move (the new ones are
 * inserted among them in a whole build's order), so the old lookup is read through a renumbering
 * and the new edges are listed beside it. After {@link MAX_LAYERS} appends the lookup is built
 * whole again (each layer adds a binary search per edge read). Pure: no `vscode`.
 */
import type { LayoutEdges } from './graph-structure';
import { upperBound } from '../analysis/sorted';

/** Layers of appended edges read through before the lookup is built whole again. */
export const MAX_LAYERS = 16;

/** The edges from and into each event, as numbers into the layout's edges. */
export interface EdgeLookup {
  /** Calls `visit` with the number of each edge whose source is event `i` (any order). */
  forEachFrom(i: number, visit: (k: number) => void): void;
  /** Calls `visit` with the number of each edge whose target is event `i` (any order). */
  forEachInto(i: number, visit: (k: number) => void): void;
  /** Layers of appends read through (0: built whole). */
  readonly layers: number;
}

/**
 * The lookup of `edges` built whole: per event, its edges grouped in two columns (by source, by
 * target), each group in edge order. O(n + edges); typed arrays only.
 * @param n the number of events (every source and target is below it).
 */
export function wholeEdgeLookup(edges: Pick<LayoutEdges, 'count' | 'source' | 'target'>, n: number): EdgeLookup {
  const from = groupedBy(edges.source, edges.count, n);
  const into = groupedBy(edges.target, edges.count, n);
  return {
    layers: 0,
    forEachFrom: (i, visit) => {
      for (let at = from.start[i]; at < from.start[i + 1]; at++) visit(from.list[at]);
    },
    forEachInto: (i, visit) => {
      for (let at = into.start[i]; at < into.start[i + 1]; at++) visit(into.list[at]);
    },
  };
}

/**
 * The lookup of a layout's edges extended from `before` (the lookup of its predecessor's edges):
 * the predecessor's edges are this list's but the ones at `inserted`, in the same order.
 * O(inserted) to make; an edge read costs a binary search over `inserted` per layer.
 * @param edges the extended layout's edges.
 * @param inserted the numbers (in `edges`, ascending) of the edges that are new.
 * @returns undefined when `before` has {@link MAX_LAYERS} layers already (build it whole then).
 */
export function grownEdgeLookup(before: EdgeLookup, edges: Pick<LayoutEdges, 'count' | 'source' | 'target'>, inserted: Int32Array): EdgeLookup | undefined {
  if (before.layers >= MAX_LAYERS) return undefined;
  if (inserted.length === 0) return before;
  // an old number k is preceded by the inserted edges j whose place among the old ones (inserted[j] - j) is at most k
  const placeAmongOld = inserted.map((p, j) => p - j);
  const renumber = (k: number) => k + upperBound(placeAmongOld, k);
  const from = new Map<number, number[]>();
  const into = new Map<number, number[]>();
  for (const k of inserted) {
    push(from, edges.source[k], k);
    push(into, edges.target[k], k);
  }
  return {
    layers: before.layers + 1,
    forEachFrom: (i, visit) => {
      before.forEachFrom(i, (k) => visit(renumber(k)));
      for (const k of from.get(i) ?? []) visit(k);
    },
    forEachInto: (i, visit) => {
      before.forEachInto(i, (k) => visit(renumber(k)));
      for (const k of into.get(i) ?? []) visit(k);
    },
  };
}

/** Per event (below n), the edges whose `ends` is it, grouped: `list[start[i] .. start[i + 1])` in edge order. */
function groupedBy(ends: Int32Array, count: number, n: number): { start: Int32Array; list: Int32Array } {
  const start = new Int32Array(n + 1);
  for (let k = 0; k < count; k++) start[ends[k] + 1]++;
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const list = new Int32Array(count);
  const fill = start.slice(0, n);
  for (let k = 0; k < count; k++) list[fill[ends[k]]++] = k;
  return { start, list };
}

function push(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
