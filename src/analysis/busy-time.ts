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
 * O(n log n) for n events (the intervals are sorted per parent and per lane; the sweep: busy-sweep.ts).
 * A followed trace's append goes on from cuts the last analysis kept (busy-carry.ts) instead of
 * making every union again.
 */
import type { TraceIndex } from './trace-index';
import { PauseClock, withoutPauses, type Pause } from './pauses';
import { busyIntervals, childrenOf, busyPieces, cutsOf, unionLength, type Children, type SweepState } from './busy-sweep';
import { carriedBusyTime, dirtyOf, MAX_CARRIED_LANES, newCarry, wholeWall, type BusyFollow, type BusyTime, type LaneBusy } from './busy-carry';

export type { BusyCarry, BusyChange, BusyFollow, BusyTime } from './busy-carry';

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
    const holes = { holeFrom: arena.float64(kids.most), holeTo: arena.float64(kids.most) };
    const keep = follow && index.lanes.size <= MAX_CARRIED_LANES ? newCarry(index.size) : undefined;
    if (follow) follow.kept = keep;
    const dirty = follow?.change && keep ? dirtyOf(index, start, end, follow.change) : undefined;
    if (dirty) {
      const p = { start, end, kids, holes };
      return yield* carriedBusyTime(index, p, dirty, keep!, clock, (positions) => laneWhole(positions, p, arena));
    }
    // room for the intervals of all events (wall time) and for the pieces of any one lane
    const room = intervalRoom(index, start, end, kids);
    if (clock.due()) yield* clock.pause();
    const from = arena.float64(room);
    const to = arena.float64(from.length);
    let wall: number;
    if (keep) ({ time: wall, cuts: keep.wallCuts } = wholeWall(index.size, start, end, from, to));
    else wall = unionLength(from, to, busyIntervals(index.size, start, end, from, to));
    if (keep) keep.wall = wall;
    if (clock.due()) yield* clock.pause();
    // per lane its busy time, summed in the order of each lane's first busy event
    const laneAt = arena.int32(index.size, -1);
    const laneTime = arena.float64(index.lanes.size);
    const pieces: PieceLists = { start, end, kids, holes, from, to };
    let no = 0;
    for (const [agent, positions] of index.lanes) {
      if (clock.due()) yield* clock.pause();
      const lane = laneBusyTime(positions, pieces, laneTime, laneAt, no++, keep !== undefined);
      keep?.lanes.set(agent, lane);
    }
    return { lane: sumInLaneOrder(laneAt, laneTime), wall };
  } finally {
    arena.release(scratch);
  }
}

/** A lane's busy time made whole (its lists in the index's arena), with its cuts. */
function laneWhole(positions: Int32Array, p: Omit<PieceLists, 'from' | 'to'>, arena: TraceIndex['arena']): LaneBusy {
  let room = 0;
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (p.end[v] > p.start[v]) room += 1 + p.kids.start[v + 1] - p.kids.start[v];
  }
  const time = new Float64Array(1);
  return laneBusyTime(positions, { ...p, from: arena.float64(room), to: arena.float64(room) }, time, undefined, 0, true);
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
 * busy event in `laneAt` (when given). @returns its time, its first busy position (-1 for none) and,
 * when `withCuts` and none of its events has busy children, its cuts (busy-carry.ts).
 */
function laneBusyTime(positions: Int32Array, p: PieceLists, laneTime: Float64Array, laneAt: Int32Array | undefined, no: number, withCuts: boolean): LaneBusy {
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
  if (first === -1) return { time: 0, first, cuts: [] };
  const states: { at: number; state: SweepState }[] | undefined = withCuts && !holes ? [] : undefined;
  laneTime[no] = unionLength(p.from, p.to, pieces, undefined, states);
  if (laneAt) laneAt[first] = no;
  // (without holes a lane's pieces are its events' intervals: read again from the columns, the lists being sorted apart)
  const cuts = states ? cutsOf(states, (visit) => laneIntervals(positions, p.start, p.end, visit)) : [];
  return { time: laneTime[no], first, cuts };
}

/** Calls `visit` with the busy interval of each of `positions`. */
function laneIntervals(positions: Int32Array, start: Float64Array, end: Float64Array, visit: (start: number, end: number) => void): void {
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (end[v] > start[v]) visit(start[v], end[v]);
  }
}

/** The lanes' busy times summed in the order of their first busy events. */
function sumInLaneOrder(laneAt: Int32Array, laneTime: Float64Array): number {
  let lane = 0;
  for (let v = 0; v < laneAt.length; v++) if (laneAt[v] !== -1) lane += laneTime[laneAt[v]];
  return lane;
}

