/**
 * Busy time of a followed trace's append, going on from the last analysis's cuts (busy-sweep.ts
 * `Cut`) instead of sweeping every union again: a union that no new or changed interval touches
 * keeps its figure; one touched after a cut sweeps only the intervals from the cut on, with the
 * ends open there, from the cut's state (the same steps as the whole sweep: the same figure to the
 * last bit); any other is made whole. A lane with busy children (holes) keeps no cut: an event's
 * pieces after a hole are not its interval, and its time does not find them.
 */
import type { TraceIndex } from './trace-index';
import type { PauseClock, Pause } from './pauses';
import { busyIntervals, busyPieces, cutsOf, unionLength, type Children, type Cut, type SweepState } from './busy-sweep';

/** Busy time summed over lanes and the wall time, in the unit of `t` (seconds or steps). */
export interface BusyTime {
  /** Σ over lanes of the union of the lane's busy intervals. */
  lane: number;
  /** The union of all busy intervals. */
  wall: number;
}

/** Above this many lanes a followed trace's busy time keeps no cuts (each lane's are a few numbers: bounded memory). */
export const MAX_CARRIED_LANES = 16_384;

/** Cuts kept per union: those recorded by its last sweep and the latest before them. */
const CUTS_KEPT = 6;

/** What busy time leaves for a followed trace's next append: per lane (by agent) its busy time, first busy position and cuts; the wall time and its cuts. */
export interface BusyCarry {
  /** Positions it covers: [0, count). */
  count: number;
  lanes: Map<string, LaneBusy>;
  wall: number;
  wallCuts: Cut[];
  /** Unions (lanes and the wall) whose figure went on from a cut, or was kept, when this carry was made (0: all made whole). */
  wentOn: number;
  /** Of them, those that swept from a cut. */
  fromCuts: number;
}

/** One lane's part of a {@link BusyCarry}: its busy time, its first busy position (-1: none), its cuts in time order. */
export interface LaneBusy {
  time: number;
  first: number;
  cuts: Cut[];
}

/**
 * A followed trace's busy time, given to busy-time.ts `busyTimeSteps`: the last analysis's carry and
 * what changed since (`change`; undefined: made whole), and `kept`, set to this analysis's carry.
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

/** A carry to fill, for `count` positions. */
export function newCarry(count: number): BusyCarry {
  return { count, lanes: new Map(), wall: 0, wallCuts: [], wentOn: 0, fromCuts: 0 };
}

/** Per lane touched by a change, the earliest time any of its intervals (old or new) can differ; the wall's. */
export interface Dirty {
  change: BusyChange;
  lanes: Map<string, number>;
  wall: number;
}

/**
 * The earliest time each union can differ since `change.offered` (undefined when the carry does not
 * fit this index). An interval changed from `from` on (its old one and its new one both count), and
 * the parent of a changed interval has changed holes: its lane's union can differ from its start.
 */
export function dirtyOf(index: TraceIndex, start: Float64Array, end: Float64Array, change: BusyChange): Dirty | undefined {
  const { offered, from } = change;
  const m = offered.count;
  if (from > m || m > index.size) return undefined;
  const lanes = new Map<string, number>();
  let wall = Infinity;
  const touch = (v: number, at: number) => {
    const agent = index.agentOf(v);
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

/** What {@link carriedBusyTime} reads: the events' intervals, their busy children, and room for an event's holes. */
export interface Intervals {
  start: Float64Array;
  end: Float64Array;
  kids: Children;
  holes: { holeFrom: Float64Array; holeTo: Float64Array };
}

/**
 * Busy and wall time going on from `dirty.change.offered`'s cuts (see the module's comment); fills
 * `keep`. Pauses after the wall and between lanes when `clock` says so.
 * @param laneWhole a lane's busy time made whole, with its cuts (busy-time.ts)
 */
export function* carriedBusyTime(index: TraceIndex, p: Intervals, dirty: Dirty, keep: BusyCarry, clock: PauseClock, laneWhole: (positions: Int32Array) => LaneBusy): Generator<Pause, BusyTime, void> {
  const { offered, from } = dirty.change;
  const { start, end } = p;
  let wall: { time: number; cuts: Cut[] } | undefined;
  if (dirty.wall === Infinity) wall = { time: offered.wall, cuts: offered.wallCuts };
  else {
    const cut = latestCut(offered.wallCuts, dirty.wall);
    if (cut) {
      // the intervals from the cut on are those of the events from it on (an interval starts at or before its event's time)
      let v = index.size;
      while (v > 0 && index.tOf(v - 1) >= cut.at) v--;
      wall = goOnFrom(offered.wallCuts, cut, intervalsFrom(v, index.size, start, end, cut.at), false);
      keep.fromCuts++;
    }
  }
  if (wall) keep.wentOn++;
  else wall = wholeWall(index.size, start, end, index.arena.float64(index.size), index.arena.float64(index.size));
  keep.wall = wall.time;
  keep.wallCuts = wall.cuts;
  if (clock.due()) yield* clock.pause();
  const order: { first: number; time: number }[] = [];
  for (const [agent, positions] of index.lanes) {
    const old = offered.lanes.get(agent);
    const at = dirty.lanes.get(agent);
    let lane: LaneBusy | undefined;
    if (old && at === undefined) lane = old;
    // the lane's first busy event must stand (before `from`: its interval kept) for its cuts to hold
    else if (old && at !== undefined && old.first !== -1 && old.first < from) {
      const cut = latestCut(old.cuts, at);
      if (cut) {
        let k = positions.length;
        while (k > 0 && index.tOf(positions[k - 1]) >= cut.at) k--;
        const pieces = piecesFrom(positions.subarray(k), p, cut.at);
        const on = goOnFrom(old.cuts, cut, pieces, pieces.holes);
        lane = { time: on.time, first: old.first, cuts: on.cuts };
        keep.fromCuts++;
      }
    }
    if (lane) keep.wentOn++;
    else lane = laneWhole(positions);
    keep.lanes.set(agent, lane);
    if (clock.due()) yield* clock.pause();
    if (lane.first !== -1) order.push({ first: lane.first, time: lane.time });
  }
  // summed in the order of the lanes' first busy events, as the whole pass sums them
  order.sort((a, b) => a.first - b.first);
  let laneTotal = 0;
  for (const o of order) laneTotal += o.time;
  return { lane: laneTotal, wall: keep.wall };
}

/** The latest of `cuts` (in time order) at or before `changedAt`, or undefined when none is that early. */
function latestCut(cuts: readonly Cut[], changedAt: number): Cut | undefined {
  for (let k = cuts.length - 1; k >= 0; k--) if (cuts[k].at <= changedAt) return cuts[k];
  return undefined;
}

/** Intervals (start, end pairs) to sweep from a cut, and whether any is a piece of an event with holes. */
interface FromCut {
  from: Float64Array;
  to: Float64Array;
  m: number;
  holes: boolean;
}

/** The busy intervals of positions [a, b) that start at or after `at`. */
function intervalsFrom(a: number, b: number, start: Float64Array, end: Float64Array, at: number): FromCut {
  const from = new Float64Array(b - a);
  const to = new Float64Array(b - a);
  let m = 0;
  for (let v = a; v < b; v++) {
    if (!(end[v] > start[v]) || start[v] < at) continue;
    from[m] = start[v];
    to[m++] = end[v];
  }
  return { from, to, m, holes: false };
}

/** The busy pieces of `positions` whose events start at or after `at`. */
function piecesFrom(positions: Int32Array, p: Intervals, at: number): FromCut {
  let room = 0;
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (p.end[v] > p.start[v] && p.start[v] >= at) room += 1 + p.kids.start[v + 1] - p.kids.start[v];
  }
  const from = new Float64Array(room);
  const to = new Float64Array(room);
  let m = 0;
  let holes = false;
  for (let k = 0; k < positions.length; k++) {
    const v = positions[k];
    if (!(p.end[v] > p.start[v]) || p.start[v] < at) continue;
    if (p.kids.start[v + 1] > p.kids.start[v]) holes = true;
    m = busyPieces(v, p.start, p.end, p.kids, p.holes, from, to, m);
  }
  return { from, to, m, holes };
}

/**
 * A union going on from `cut` over `pieces` (those from the cut on): its figure, and its cuts: those
 * of `cuts` up to `cut`, then the ones this sweep records (none when a piece has holes).
 */
function goOnFrom(cuts: readonly Cut[], cut: Cut, pieces: FromCut, holes: boolean): { time: number; cuts: Cut[] } {
  // the intervals' pairs, kept before the sweep sorts its lists apart: the new cuts' open ends are found in them
  const pairs = holes ? undefined : { from: pieces.from.slice(0, pieces.m), to: pieces.to.slice(0, pieces.m) };
  const states: { at: number; state: SweepState }[] = [];
  const time = unionLength(pieces.from, pieces.to, pieces.m, cut, pairs ? states : undefined);
  const kept = cuts.filter((c) => c.at <= cut.at);
  const made = pairs
    ? cutsOf(
        states.filter((x) => x.at > cut.at),
        (visit) => {
          for (const e of cut.open) visit(-Infinity, e);
          for (let k = 0; k < pairs.from.length; k++) visit(pairs.from[k], pairs.to[k]);
        },
      )
    : [];
  return { time, cuts: [...kept, ...made].slice(-CUTS_KEPT) };
}

/** The wall time made whole, with its cuts; `from` / `to`: room for every busy interval (written and sorted here). */
export function wholeWall(n: number, start: Float64Array, end: Float64Array, from: Float64Array, to: Float64Array): { time: number; cuts: Cut[] } {
  const states: { at: number; state: SweepState }[] = [];
  const time = unionLength(from, to, busyIntervals(n, start, end, from, to), undefined, states);
  return { time, cuts: cutsOf(states, (visit) => wallIntervals(n, start, end, visit)) };
}

/** Calls `visit` with every busy interval of positions 0..n-1. */
function wallIntervals(n: number, start: Float64Array, end: Float64Array, visit: (start: number, end: number) => void): void {
  for (let v = 0; v < n; v++) if (end[v] > start[v]) visit(start[v], end[v]);
}
