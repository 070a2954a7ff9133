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
import { PauseClock, withoutPauses, type Pause } from './pauses';

/** Busy time summed over lanes and the wall time, in the unit of `t` (seconds or steps). */
export interface BusyTime {
  /** Σ over lanes of the union of the lane's busy intervals. */
  lane: number;
  /** The union of all busy intervals. */
  wall: number;
}

/**
 * Busy and wall time of an indexed trace, in O(n log n) for n events. Its scratch is in the index's
 * arena (given back before it returns) and it makes no object per event: at a million events the
 * lists of intervals and their sort orders it made before were about 120 MB of the analysis's peak
 * (docs/large-traces.md, Memory).
 * @param start per position (time order), the start of the event's busy interval (its latency start)
 * @param end per position, the end of its own work (`t` + work)
 */
export function busyTime(index: TraceIndex, start: Float64Array, end: Float64Array): BusyTime {
  return withoutPauses(busyTimeSteps(index, start, end, new PauseClock(Infinity)));
}

/**
 * {@link busyTime} with a pause between its passes when `clock` says so (pauses.ts): at 1M events it was one block of 150-260 ms.
 * Each pass over the events is a plain function of its own, the generator only their order: a loop
 * in a generator's body is optimized where it runs (on-stack replacement), and the code after it,
 * never run before, threw that code away again on each followed append (`node --trace-deopt`: 9 times
 * in 8 appends at 1M); unoptimized, each number read from a typed array was a new heap object (about
 * 9 MB of garbage per append).
 */
export function* busyTimeSteps(index: TraceIndex, start: Float64Array, end: Float64Array, clock: PauseClock): Generator<Pause, BusyTime, void> {
  const arena = index.arena;
  const scratch = arena.mark();
  try {
    const kids = childrenOf(index, start, end);
    if (clock.due()) yield* clock.pause();
    // room for the intervals of all events (wall time) and for the pieces of any one lane
    const room = intervalRoom(index, start, end, kids);
    if (clock.due()) yield* clock.pause();
    const from = arena.float64(room);
    const to = arena.float64(from.length);
    const wall = unionLength(from, to, busyIntervals(index.size, start, end, from, to));
    if (clock.due()) yield* clock.pause();
    const holes = { holeFrom: arena.float64(kids.most), holeTo: arena.float64(kids.most) };
    // per lane its busy time, summed in the order of each lane's first busy event
    const laneAt = arena.int32(index.size).fill(-1);
    const laneTime = arena.float64(index.lanes.size);
    const pieces: PieceLists = { start, end, kids, holes, from, to };
    let no = 0;
    for (const positions of index.lanes.values()) {
      if (clock.due()) yield* clock.pause();
      laneBusyTime(positions, pieces, laneTime, laneAt, no++);
    }
    return { lane: sumInLaneOrder(laneAt, laneTime), wall };
  } finally {
    arena.release(scratch);
  }
}

/** The entries {@link busyTimeSteps}'s interval lists need: the larger of the events with a busy interval and the pieces of any one lane. */
function intervalRoom(index: TraceIndex, start: Float64Array, end: Float64Array, kids: Children): number {
  let busy = 0;
  let lanePieces = 0;
  for (const positions of index.lanes.values()) {
    let pieces = 0;
    for (let k = 0; k < positions.length; k++) {
      const v = positions[k];
      if (!(end[v] > start[v])) continue;
      busy++;
      pieces += 1 + kids.start[v + 1] - kids.start[v];
    }
    lanePieces = Math.max(lanePieces, pieces);
  }
  return Math.max(busy, lanePieces);
}

/** Writes the busy intervals of positions 0..n-1 into `from` / `to`. @returns how many. */
function busyIntervals(n: number, start: Float64Array, end: Float64Array, from: Float64Array, to: Float64Array): number {
  let m = 0;
  for (let v = 0; v < n; v++) {
    if (!(end[v] > start[v])) continue;
    from[m] = start[v];
    to[m++] = end[v];
  }
  return m;
}

/** What {@link laneBusyTime} reads and writes: the events' intervals, their busy children, and the lists it fills. */
interface PieceLists {
  start: Float64Array;
  end: Float64Array;
  kids: Children;
  holes: { holeFrom: Float64Array; holeTo: Float64Array };
  from: Float64Array;
  to: Float64Array;
}

/** Lane `no`'s busy time (the union of its events' busy pieces) into `laneTime[no]`, noted at its first busy event in `laneAt`. */
function laneBusyTime(positions: Int32Array, p: PieceLists, laneTime: Float64Array, laneAt: Int32Array, no: number): void {
  let pieces = 0;
  let first = -1;
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (!(p.end[v] > p.start[v])) continue;
    if (first === -1) first = v;
    pieces = busyPieces(v, p.start, p.end, p.kids, p.holes, p.from, p.to, pieces);
  }
  if (first !== -1) {
    laneTime[no] = unionLength(p.from, p.to, pieces);
    laneAt[first] = no;
  }
}

/** The lanes' busy times summed in the order of their first busy events. */
function sumInLaneOrder(laneAt: Int32Array, laneTime: Float64Array): number {
  let lane = 0;
  for (let v = 0; v < laneAt.length; v++) if (laneAt[v] !== -1) lane += laneTime[laneAt[v]];
  return lane;
}

/** The busy children of each event (those whose `parent` is it, with a busy interval), in columns: those of v are `list[start[v] .. start[v + 1])`; `most` the largest count. */
interface Children {
  start: Int32Array;
  list: Int32Array;
  most: number;
}

/** Each event's busy children (its `parent` field names the nearest event of that id: TraceIndex.parentOf), counted then filled, in the index's arena. */
function childrenOf(index: TraceIndex, start: Float64Array, end: Float64Array): Children {
  const n = index.size;
  const parent = index.arena.int32(n).fill(-1);
  const first = index.arena.int32(n + 1);
  for (let v = 0; v < n; v++) {
    const p = index.parentOf(v);
    if (p !== -1 && p !== v && end[v] > start[v]) {
      parent[v] = p;
      first[p + 1]++;
    }
  }
  let most = 0;
  for (let v = 0; v < n; v++) {
    most = Math.max(most, first[v + 1]);
    first[v + 1] += first[v];
  }
  const list = index.arena.int32(first[n]);
  const fill = index.arena.int32(n);
  for (let v = 0; v < n; v++) if (parent[v] !== -1) list[first[parent[v]] + fill[parent[v]]++] = v;
  return { start: first, list, most };
}

/**
 * Writes the busy pieces of event v (its interval less its children's) into `from` / `to` at `m`.
 * @returns the new count.
 */
function busyPieces(v: number, start: Float64Array, end: Float64Array, kids: Children, holes: { holeFrom: Float64Array; holeTo: Float64Array }, from: Float64Array, to: Float64Array, m: number): number {
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
 * the pieces' lengths are summed from the earliest. O(m log m), nothing allocated.
 * The starts and the ends are sorted apart and swept (a start before an end at the same time):
 * each piece goes from its earliest start to the end where no interval is open any more, the
 * pieces a sort of the intervals by start and a merge make.
 */
function unionLength(from: Float64Array, to: Float64Array, m: number): number {
  let kept = 0;
  for (let k = 0; k < m; k++) {
    if (!(to[k] > from[k])) continue;
    from[kept] = from[k];
    to[kept++] = to[k];
  }
  const starts = sortedPrefix(from, kept);
  const ends = sortedPrefix(to, kept);
  let total = 0;
  for (let i = 0, j = 0, depth = 0, s = 0; j < kept; ) {
    if (i < kept && starts[i] <= ends[j]) {
      if (depth++ === 0) s = starts[i];
      i++;
      continue;
    }
    if (--depth === 0) total += ends[j] - s;
    j++;
  }
  return total;
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
