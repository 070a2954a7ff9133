/**
 * The sweep of a union of intervals, in time order, and what busy time (busy-time.ts) makes its
 * intervals of: each event's busy children and an event's busy pieces (its interval less its
 * children's). A sweep's state at a cut (busy-carry.ts) lets a followed trace's append go on from it.
 */
import type { TraceIndex } from './trace-index';

/** Where a sweep is: the length of the pieces it closed, how many intervals are open, and the start of the piece they are in (when any is). */
export interface SweepState {
  total: number;
  depth: number;
  s: number;
}

/**
 * A point a sweep can go on from: its state just before the first start at or after `at`, and the
 * ends of the intervals open there (those that start before `at` and end at or after it), sorted.
 * The sweep of the intervals that start at or after `at` with these ends, from this state, makes the
 * same steps as the sweep of all the intervals did from there: the same figure, to the last bit.
 */
export interface Cut extends SweepState {
  at: number;
  open: Float64Array;
}

/** Where a sweep records its state ({@link unionLength}): a cut this many starts before its last start, each (a short sweep: none). */
export const CUT_DEPTHS = [2, 64, 2_048, 65_536];

/** The busy children of each event (those whose `parent` is it, with a busy interval), in columns: those of v are `list[start[v] .. start[v + 1])`; `most` the largest count. */
export interface Children {
  start: Int32Array;
  list: Int32Array;
  most: number;
}

/**
 * Each event's busy children (its `parent` field names the nearest event of that id:
 * TraceIndex.parentOf), counted then filled, in the index's arena. A trace where no busy event names
 * a parent (most: the bench trace has none) is read once: its columns are the zeros they start as.
 */
export function childrenOf(index: TraceIndex, start: Float64Array, end: Float64Array): Children {
  const n = index.size;
  const first = index.arena.int32(n + 1);
  let children = 0;
  for (let v = 0; v < n; v++) {
    const p = busyParent(index, v, start, end);
    if (p === -1) continue;
    first[p + 1]++;
    children++;
  }
  if (children === 0) return { start: first, list: index.arena.int32(0), most: 0 };
  let most = 0;
  for (let v = 0; v < n; v++) {
    most = Math.max(most, first[v + 1]);
    first[v + 1] += first[v];
  }
  const list = index.arena.int32(first[n]);
  const fill = index.arena.int32(n);
  for (let v = 0; v < n; v++) {
    const p = busyParent(index, v, start, end);
    if (p !== -1) list[first[p] + fill[p]++] = v;
  }
  return { start: first, list, most };
}

/** The event whose busy child v is (its parent, when v has a busy interval and is not its own parent), else -1. */
function busyParent(index: TraceIndex, v: number, start: Float64Array, end: Float64Array): number {
  const p = index.parentOf(v);
  return p !== -1 && p !== v && end[v] > start[v] ? p : -1;
}

/**
 * Writes the busy pieces of event v (its interval less its children's) into `from` / `to` at `m`.
 * @returns the new count.
 */
export function busyPieces(v: number, start: Float64Array, end: Float64Array, kids: Children, holes: { holeFrom: Float64Array; holeTo: Float64Array }, from: Float64Array, to: Float64Array, m: number): number {
  const k0 = kids.start[v];
  const k1 = kids.start[v + 1];
  if (k0 === k1) {
    from[m] = start[v];
    to[m] = end[v];
    return m + 1;
  }
  const { holeFrom, holeTo } = holes;
  for (let k = k0; k < k1; k++) {
    holeFrom[k - k0] = start[kids.list[k]];
    holeTo[k - k0] = end[kids.list[k]];
  }
  const count = k1 - k0;
  const hs = sortedPrefix(holeFrom, count);
  const he = sortedPrefix(holeTo, count);
  let at = start[v];
  const stop = end[v];
  // the children's intervals merged (see unionLength), each one cut out of [start, end] in order
  for (let i = 0, j = 0, depth = 0, s = 0; j < count && at < stop; ) {
    if (i < count && hs[i] <= he[j]) {
      if (depth++ === 0) s = hs[i];
      i++;
      continue;
    }
    if (--depth === 0) {
      if (s > at) {
        from[m] = at;
        to[m++] = Math.min(s, stop);
      }
      at = Math.max(at, he[j]);
    }
    j++;
  }
  if (at < stop) {
    from[m] = at;
    to[m++] = stop;
  }
  return m;
}

/**
 * The length of the union of the intervals [from[k], to[k]] for k < m (those with to > from; others
 * are left out), in place: the lists are sorted. Overlapping or touching intervals form one piece;
 * the pieces' lengths are summed from the earliest. O(m log m), nothing allocated but the states
 * recorded. The starts and the ends are sorted apart and swept (a start before an end at the same
 * time): each piece goes from its earliest start to the end where no interval is open any more, the
 * pieces a sort of the intervals by start and a merge make.
 * @param from_ the cut to go on from (its state and its open ends, which join the ends swept): the
 *   intervals given are then those that start at or after its time.
 * @param states when given, the sweep's state just before the start {@link CUT_DEPTHS} starts before
 *   its last (the first of equal starts) is pushed onto it with that start's time, in time order
 *   (cuts without their open ends, which the caller finds: the lists here are sorted apart).
 */
export function unionLength(from: Float64Array, to: Float64Array, m: number, from_?: Cut, states?: { at: number; state: SweepState }[]): number {
  let kept = 0;
  for (let k = 0; k < m; k++) {
    if (!(to[k] > from[k])) continue;
    from[kept] = from[k];
    to[kept++] = to[k];
  }
  const starts = sortedPrefix(from, kept);
  let ends: Float64Array;
  let endCount = kept;
  if (from_ && from_.open.length > 0) {
    ends = new Float64Array(kept + from_.open.length);
    ends.set(to.subarray(0, kept));
    ends.set(from_.open, kept);
    endCount = ends.length;
    ends.sort();
  } else ends = sortedPrefix(to, kept);
  const marks = states ? markIndices(starts, kept) : [];
  let mark = 0;
  let total = from_ ? from_.total : 0;
  let depth = from_ ? from_.depth : 0;
  let s = from_ ? from_.s : 0;
  for (let i = 0, j = 0; j < endCount; ) {
    if (i < kept && starts[i] <= ends[j]) {
      while (mark < marks.length && marks[mark] === i) {
        states!.push({ at: starts[i], state: { total, depth, s } });
        mark++;
      }
      if (depth++ === 0) s = starts[i];
      i++;
      continue;
    }
    if (--depth === 0) total += ends[j] - s;
    j++;
  }
  return total;
}

/** The indices of `starts` (sorted, `count` of them) a sweep records its state at: {@link CUT_DEPTHS} before the last, each moved back to the first of equal starts; ascending, distinct, none at 0. */
function markIndices(starts: Float64Array, count: number): number[] {
  const out: number[] = [];
  for (let d = CUT_DEPTHS.length - 1; d >= 0; d--) {
    let i = count - 1 - CUT_DEPTHS[d];
    if (i <= 0) continue;
    while (i > 0 && starts[i - 1] === starts[i]) i--;
    if (i > 0 && (out.length === 0 || out[out.length - 1] < i)) out.push(i);
  }
  return out;
}

/**
 * The cuts of recorded `states`: each with the ends of the intervals open at its time, found by
 * `eachInterval` (it calls its callback with every interval the sweep had: start, end), in time order.
 */
export function cutsOf(states: readonly { at: number; state: SweepState }[], eachInterval: (visit: (start: number, end: number) => void) => void): Cut[] {
  if (states.length === 0) return [];
  const open: number[][] = states.map(() => []);
  eachInterval((a, b) => {
    if (!(b > a)) return;
    for (let k = 0; k < states.length; k++) if (a < states[k].at && b >= states[k].at) open[k].push(b);
  });
  return states.map(({ at, state }, k) => ({ at, ...state, open: Float64Array.from(open[k]).sort() }));
}

/** Writes the busy intervals of positions 0..n-1 into `from` / `to`. @returns how many. */
export function busyIntervals(n: number, start: Float64Array, end: Float64Array, from: Float64Array, to: Float64Array): number {
  let m = 0;
  for (let v = 0; v < n; v++) {
    if (!(end[v] > start[v])) continue;
    from[m] = start[v];
    to[m++] = end[v];
  }
  return m;
}

/** Below this many numbers a prefix is sorted by insertion where it lies (no view made: an event's few children). */
const SMALL_SORT = 16;

/** The first `count` numbers of `list` sorted ascending in place (no NaN among them): `list` itself when short, else a view of them. */
function sortedPrefix(list: Float64Array, count: number): Float64Array {
  if (count > SMALL_SORT) {
    // most traces' starts and ends come nearly in time order already: a look costs n, a sort n log n
    let k = 1;
    while (k < count && list[k - 1] <= list[k]) k++;
    return k === count ? list.subarray(0, count) : list.subarray(0, count).sort();
  }
  for (let k = 1; k < count; k++) {
    const x = list[k];
    let j = k - 1;
    for (; j >= 0 && list[j] > x; j--) list[j + 1] = list[j];
    list[j + 1] = x;
  }
  return list;
}
