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
 * O(n log n) for n events (the intervals are sorted per parent and per lane). A followed trace's
 * append goes on from cuts the last analysis kept ({@link BusyCarry}) instead of making every union again.
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
 * @param follow a followed trace's (metrics.ts): the last analysis's carry and what changed since, to
 * go on from its cuts (see {@link BusyCarry}); its `kept` is set to this analysis's carry (none past
 * {@link MAX_CARRIED_LANES} lanes).
 */
export function* busyTimeSteps(index: TraceIndex, start: Float64Array, end: Float64Array, clock: PauseClock, follow?: BusyFollow): Generator<Pause, BusyTime, void> {
  const arena = index.arena;
  const scratch = arena.mark();
  try {
    const kids = childrenOf(index, start, end);
    if (clock.due()) yield* clock.pause();
    const keep = follow && index.lanes.size <= MAX_CARRIED_LANES ? newCarry(index.size) : undefined;
    const change = follow?.change && keep ? dirtyOf(index, start, end, follow.change) : undefined;
    if (change) {
      const carried = yield* carriedBusyTime(index, start, end, kids, change, keep!, clock);
      follow!.kept = keep;
      return carried;
    }
    // room for the intervals of all events (wall time) and for the pieces of any one lane
    const room = intervalRoom(index, start, end, kids);
    if (clock.due()) yield* clock.pause();
    const from = arena.float64(room);
    const to = arena.float64(from.length);
    const wall = unionLength(from, to, busyIntervals(index.size, start, end, from, to), 0, keep?.wallCuts);
    if (keep) keep.wall = wall;
    if (clock.due()) yield* clock.pause();
    const holes = { holeFrom: arena.float64(kids.most), holeTo: arena.float64(kids.most) };
    // per lane its busy time, summed in the order of each lane's first busy event
    const laneAt = arena.int32(index.size).fill(-1);
    const laneTime = arena.float64(index.lanes.size);
    const pieces: PieceLists = { start, end, kids, holes, from, to };
    let no = 0;
    for (const [agent, positions] of index.lanes) {
      if (clock.due()) yield* clock.pause();
      const cuts = keep ? [] : undefined;
      const first = laneBusyTime(positions, pieces, laneTime, laneAt, no, cuts);
      if (keep) keep.lanes.set(agent, { time: laneTime[no], first, cuts: cuts! });
      no++;
    }
    if (follow) follow.kept = keep;
    return { lane: sumInLaneOrder(laneAt, laneTime), wall };
  } finally {
    arena.release(scratch);
  }
}

/** Above this many lanes a followed trace's busy time keeps no cuts (each lane's are a few numbers: bounded memory). */
const MAX_CARRIED_LANES = 16_384;

/** The cuts kept per union (the latest): an append goes on from the latest cut before its first changed interval. */
const CUTS_KEPT = 16;

/**
 * What busy time leaves for a followed trace's next append: per lane (by agent) its busy time, its
 * first busy position and its latest cuts, and the same for the wall time.
 *
 * A cut is a time C with the running total of a union's sweep when it reached C (unionLength): no
 * interval that starts before C ends at or after it, so every piece is wholly before C or wholly
 * after, and the sweep of the intervals starting at or after C, from that total, adds the same
 * pieces in the same order as a sweep of all of them: the same figure, to the last bit. A lane's
 * cuts are kept only where no event of its swept part has busy children (a piece with holes is not
 * its whole interval, and a cut must hold for the intervals).
 */
export interface BusyCarry {
  /** Positions it covers: [0, count). */
  count: number;
  lanes: Map<string, LaneBusy>;
  wall: number;
  /** The wall time's cuts: time, total before it, pairs in time order. */
  wallCuts: number[];
  /** Unions (lanes and the wall) whose figure went on from a cut, or was kept, when this carry was made (0: all made whole). */
  wentOn: number;
}

/** One lane's part of a {@link BusyCarry}: its busy time, its first busy position (-1: none), its cuts (time, total before it, pairs in time order). */
interface LaneBusy {
  time: number;
  first: number;
  cuts: number[];
}

/**
 * A followed trace's busy time, given to {@link busyTimeSteps}: the last analysis's carry and what
 * changed since (`change`; undefined: made whole), and `kept`, set to this analysis's carry.
 */
export interface BusyFollow {
  change?: BusyChange;
  kept?: BusyCarry;
}

/** What changed since a {@link BusyCarry}: positions from `from` on may have new intervals; `oldStart` / `oldEnd` hold the intervals positions [from, offered.count) had (index k for position from + k). */
export interface BusyChange {
  offered: BusyCarry;
  from: number;
  oldStart: Float64Array;
  oldEnd: Float64Array;
}

function newCarry(count: number): BusyCarry {
  return { count, lanes: new Map(), wall: 0, wallCuts: [], wentOn: 0 };
}

/** Per lane touched by a change, the earliest time any of its unions can differ; and the wall's. */
interface Dirty {
  change: BusyChange;
  lanes: Map<string, number>;
  wall: number;
}

/**
 * The earliest time each union can differ since `change.offered` (undefined when the carry does not
 * fit this index). An interval changed from `from` on (its old one and its new one both count), and
 * the parent of a changed interval has changed holes: its lane's union can differ from its start.
 */
function dirtyOf(index: TraceIndex, start: Float64Array, end: Float64Array, change: BusyChange): Dirty | undefined {
  const { offered, from } = change;
  const m = offered.count;
  if (from > m || m > index.size) return undefined;
  const lanes = new Map<string, number>();
  let wall = Infinity;
  const touch = (v: number, at: number) => {
    const agent = index.events[v].agent;
    const was = lanes.get(agent);
    if (was === undefined || at < was) lanes.set(agent, at);
  };
  for (let v = from; v < index.size; v++) {
    const old = v < m && change.oldEnd[v - from] > change.oldStart[v - from] ? change.oldStart[v - from] : Infinity;
    const now = end[v] > start[v] ? start[v] : Infinity;
    // an interval neither busy before nor now is in no union
    if (old === Infinity && now === Infinity) continue;
    const at = Math.min(old, now);
    wall = Math.min(wall, at);
    touch(v, at);
    const p = index.parentOf(v);
    if (p !== -1 && p !== v && end[p] > start[p]) touch(p, start[p]);
  }
  return { change, lanes, wall };
}

/**
 * Busy and wall time going on from `dirty.change.offered`'s cuts (see {@link BusyCarry}): a union no
 * change touched keeps its figure; one touched after a cut sweeps the intervals from that cut on; any
 * other is made whole. Fills `keep`. Pauses after the wall and between lanes when `clock` says so.
 */
function* carriedBusyTime(index: TraceIndex, start: Float64Array, end: Float64Array, kids: Children, dirty: Dirty, keep: BusyCarry, clock: PauseClock): Generator<Pause, BusyTime, void> {
  const { offered, from } = dirty.change;
  const arena = index.arena;
  const holes = { holeFrom: arena.float64(kids.most), holeTo: arena.float64(kids.most) };
  const events = index.events;
  // the wall: the intervals from the cut on are those of the events from it on (an interval starts at or before its event's time)
  let wallTime: number;
  const wallOn = dirty.wall === Infinity ? undefined : goOn(offered.wallCuts, dirty.wall, (at) => {
    let v = index.size;
    while (v > 0 && events[v - 1].t >= at) v--;
    return range(v, index.size);
  });
  if (dirty.wall === Infinity) {
    wallTime = offered.wall;
    keep.wallCuts = offered.wallCuts;
    keep.wentOn++;
  } else if (wallOn) {
    keep.wentOn++;
    const pieces = intervalsOf(wallOn.positions, start, end, wallOn.at, arena);
    keep.wallCuts = wallOn.cuts;
    wallTime = unionLength(pieces.from, pieces.to, pieces.m, wallOn.total, keep.wallCuts);
  } else {
    const all = arena.float64(index.size);
    const to = arena.float64(index.size);
    wallTime = unionLength(all, to, busyIntervals(index.size, start, end, all, to), 0, keep.wallCuts);
  }
  keep.wall = wallTime;
  if (clock.due()) yield* clock.pause();
  const order: { first: number; time: number }[] = [];
  const p: PieceLists = { start, end, kids, holes, from: new Float64Array(0), to: new Float64Array(0) };
  for (const [agent, positions] of index.lanes) {
    const old = offered.lanes.get(agent);
    const at = dirty.lanes.get(agent);
    let lane: LaneBusy;
    if (old && at === undefined) {
      lane = old;
      keep.wentOn++;
    } else {
      // the lane's first busy event must stand (before `from`: its interval kept) for its cuts to hold
      const resumed = old && old.first !== -1 && old.first < from ? goOn(old.cuts, at!, (cutAt) => {
        let k = positions.length;
        while (k > 0 && events[positions[k - 1]].t >= cutAt) k--;
        return positions.subarray(k);
      }) : undefined;
      lane = resumed ? laneGoingOn(old!, resumed, p, arena) : laneWhole(positions, p, arena);
      if (resumed) keep.wentOn++;
    }
    keep.lanes.set(agent, lane);
    if (clock.due()) yield* clock.pause();
    if (lane.first !== -1) order.push({ first: lane.first, time: lane.time });
  }
  // summed in the order of the lanes' first busy events, as the whole pass sums them
  order.sort((a, b) => a.first - b.first);
  let laneTotal = 0;
  for (const o of order) laneTotal += o.time;
  return { lane: laneTotal, wall: wallTime };
}

/** A union going on from a cut: the cut's time and total, the cuts kept up to it (a copy), and the positions whose intervals may start at or after it. */
interface GoingOn {
  at: number;
  total: number;
  cuts: number[];
  positions: ArrayLike<number>;
}

/**
 * From `cuts` (time, total pairs in time order) the latest at or before `changedAt`, with the cuts up
 * to it and the positions to sweep from it (`after(cut)`); undefined when no cut is that early.
 */
function goOn(cuts: number[], changedAt: number, after: (at: number) => ArrayLike<number>): GoingOn | undefined {
  let k = cuts.length - 2;
  while (k >= 0 && cuts[k] > changedAt) k -= 2;
  if (k < 0) return undefined;
  return { at: cuts[k], total: cuts[k + 1], cuts: cuts.slice(0, k + 2), positions: after(cuts[k]) };
}

/** Positions [a, b) as a list. */
function range(a: number, b: number): Int32Array {
  const out = new Int32Array(b - a);
  for (let k = 0; k < out.length; k++) out[k] = a + k;
  return out;
}

/** The busy intervals of `positions` that start at or after `at`, in arena lists. */
function intervalsOf(positions: ArrayLike<number>, start: Float64Array, end: Float64Array, at: number, arena: TraceIndex['arena']): { from: Float64Array; to: Float64Array; m: number } {
  const from = arena.float64(positions.length);
  const to = arena.float64(positions.length);
  let m = 0;
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (!(end[v] > start[v]) || start[v] < at) continue;
    from[m] = start[v];
    to[m++] = end[v];
  }
  return { from, to, m };
}

/** A lane's busy time made whole, with its cuts (when none of its events has busy children). */
function laneWhole(positions: Int32Array, p: PieceLists, arena: TraceIndex['arena']): LaneBusy {
  const room = lanePieceCount(positions, p, -Infinity);
  const lists: PieceLists = { ...p, from: arena.float64(room), to: arena.float64(room) };
  const time = new Float64Array(1);
  const cuts: number[] = [];
  const first = laneBusyTime(positions, lists, time, undefined, 0, cuts);
  return { time: time[0], first, cuts };
}

/** A lane's busy time going on from a cut: the pieces of its events that start at or after it, swept from the cut's total. */
function laneGoingOn(old: LaneBusy, on: GoingOn, p: PieceLists, arena: TraceIndex['arena']): LaneBusy {
  const positions = on.positions;
  const room = lanePieceCount(positions, p, on.at);
  const from = arena.float64(room);
  const to = arena.float64(room);
  let m = 0;
  let holes = false;
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (!(p.end[v] > p.start[v]) || p.start[v] < on.at) continue;
    if (p.kids.start[v + 1] > p.kids.start[v]) holes = true;
    m = busyPieces(v, p.start, p.end, p.kids, p.holes, from, to, m);
  }
  const cuts = on.cuts;
  const time = unionLength(from, to, m, on.total, holes ? undefined : cuts);
  return { time, first: old.first, cuts };
}

/** Room for the busy pieces of `positions` whose intervals start at or after `at`. */
function lanePieceCount(positions: ArrayLike<number>, p: PieceLists, at: number): number {
  let pieces = 0;
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (!(p.end[v] > p.start[v]) || p.start[v] < at) continue;
    pieces += 1 + p.kids.start[v + 1] - p.kids.start[v];
  }
  return pieces;
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

/**
 * Lane `no`'s busy time (the union of its events' busy pieces) into `laneTime[no]`, noted at its first
 * busy event in `laneAt` (when given); its cuts into `cuts` (when given and none of its events has busy
 * children: see {@link BusyCarry}). @returns its first busy position, -1 for none.
 */
function laneBusyTime(positions: Int32Array, p: PieceLists, laneTime: Float64Array, laneAt: Int32Array | undefined, no: number, cuts?: number[]): number {
  let pieces = 0;
  let first = -1;
  let holes = false;
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (!(p.end[v] > p.start[v])) continue;
    if (first === -1) first = v;
    if (p.kids.start[v + 1] > p.kids.start[v]) holes = true;
    pieces = busyPieces(v, p.start, p.end, p.kids, p.holes, p.from, p.to, pieces);
  }
  if (first !== -1) {
    laneTime[no] = unionLength(p.from, p.to, pieces, 0, holes ? undefined : cuts);
    if (laneAt) laneAt[first] = no;
  }
  return first;
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
 * the pieces' lengths are summed from the earliest, onto `initial`. O(m log m), nothing allocated
 * but the cuts. The starts and the ends are sorted apart and swept (a start before an end at the
 * same time): each piece goes from its earliest start to the end where no interval is open any
 * more, the pieces a sort of the intervals by start and a merge make.
 * @param cuts when given, each piece's start and the total before it are pushed onto it (time, total
 * pairs; the latest {@link CUTS_KEPT} kept): a sweep can go on from any of them ({@link BusyCarry}).
 */
function unionLength(from: Float64Array, to: Float64Array, m: number, initial = 0, cuts?: number[]): number {
  let kept = 0;
  for (let k = 0; k < m; k++) {
    if (!(to[k] > from[k])) continue;
    from[kept] = from[k];
    to[kept++] = to[k];
  }
  const starts = sortedPrefix(from, kept);
  const ends = sortedPrefix(to, kept);
  let total = initial;
  for (let i = 0, j = 0, depth = 0, s = 0; j < kept; ) {
    if (i < kept && starts[i] <= ends[j]) {
      if (depth++ === 0) {
        s = starts[i];
        if (cuts) cutAt(cuts, s, total);
      }
      i++;
      continue;
    }
    if (--depth === 0) total += ends[j] - s;
    j++;
  }
  return total;
}

/** Pushes a cut (time, total before it) onto `cuts`, keeping the latest {@link CUTS_KEPT}. */
function cutAt(cuts: number[], at: number, total: number): void {
  cuts.push(at, total);
  if (cuts.length >= 4 * CUTS_KEPT) cuts.splice(0, cuts.length - 2 * CUTS_KEPT);
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
