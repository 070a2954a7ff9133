/**
 * repeated_sequence: per lane, a tandem repeat of the sequence of event fingerprints (agent, type,
 * target, normalized content): a block of p events occurring >= 2 times back to back. For each
 * period p = 1..maxPeriod, one scan compares f[i] with f[i+p] (only where f[i+p] is a repeated
 * fingerprint); a maximal run of L matches is a segment of L + p events with period p (Main &
 * Lorentz's tandem-repeat definition, found here by the direct O(n * maxPeriod) scan, near-linear
 * for a fixed maxPeriod). Smaller periods win; a block that is itself periodic is skipped (it is
 * found with its primitive period). A single event must occur 3 times in a row (twice is an echo,
 * e.g. a proxy's fixed auto-reply).
 */
import { carriedSweep, type Sweep } from '../carried-sweep';
import type { TraceIndex } from '../trace-index';
import { isInjected } from './agent-output';
import type { RawLoop } from './raw-loop';
import { countWords } from '../../shared/count-words';

/**
 * The events of a lane that are the agent's own actions: rows the harness injected, synthetic rows
 * and placeholders (NOT_AGENT_OUTPUT_KINDS) left out, so a hook's reminder after each edit neither
 * makes a loop of its own nor breaks the agent's. The lane itself when nothing is left out.
 */
function agentActions(index: TraceIndex, lane: Int32Array): Int32Array {
  if (index.injected === 0) return lane;
  let injected = 0;
  for (let k = 0; k < lane.length; k++) if (isInjected(index, lane[k])) injected++;
  return injected === 0 ? lane : lane.filter((i) => !isInjected(index, i));
}

/**
 * The repeated sequences of every lane (see the module comment), blocks of at most `maxPeriod`
 * events, lane by lane; rows the harness injected are left out of each lane first.
 */
export function repeatedSequences(index: TraceIndex, maxPeriod: number): RawLoop[] {
  const out: RawLoop[] = [];
  const scratch = index.arena.mark();
  // a lane with harness rows left out has places of its own: its repeated events are found in it
  const sweep = index.injected === 0 ? repeatsByAgent(index) : undefined;
  const scans = sweep && index.carry ? sweep.scans : undefined;
  for (const [agent, all] of index.lanes) {
    const lane0 = index.arena.mark(); // each lane's arrays are scratch, given back after it
    const lane = agentActions(index, all);
    const repeats = sweep ? sweep.places.get(agent) : repeatedPlaces(index, lane);
    let scan = scans?.get(agent);
    if (scans && !scan && repeats !== undefined && repeats.length > 0) scans.set(agent, (scan = { maxPeriod, periods: [] }));
    if (scan && scan.maxPeriod !== maxPeriod) Object.assign(scan, { maxPeriod, periods: [] });
    if (repeats !== undefined && repeats.length > 0) laneRepeats(index, agent, lane, repeats, maxPeriod, out, scan);
    index.arena.release(lane0);
  }
  index.arena.release(scratch);
  return out;
}

/**
 * Per agent with any, the places in its lane of its events whose fingerprint occurred before,
 * ascending: a sweep (carried-sweep.ts), made along the lanes at first (the lanes' positions and the
 * fingerprints are typed columns: no event read, no map asked per event, which the passes in time
 * order by agent name did twice per repeat, 30 ms at 1M) and gone on over a followed trace's new
 * events (an event's place in its lane and whether its fingerprint came before never change).
 */
function repeatsByAgent(index: TraceIndex): RepeatSweep {
  const sweep = carriedSweep<RepeatSweep>(index, 'laneRepeats', '', () => ({ swept: 0, key: '', carryable: true, places: new Map(), lengths: new Map(), scans: new Map() }));
  const { places, lengths } = sweep;
  if (sweep.swept === 0) {
    for (const [agent, lane] of index.lanes) {
      lengths.set(agent, lane.length);
      let count = 0;
      for (let k = 0; k < lane.length; k++) if (repeatsBefore(index, lane[k])) count++;
      if (count === 0) continue;
      const mine: number[] = new Array<number>(count);
      for (let k = 0, q = 0; q < count; k++) if (repeatsBefore(index, lane[k])) mine[q++] = k;
      places.set(agent, mine);
    }
  } else {
    for (let i = sweep.swept, n = index.size; i < n; i++) {
      const agent = index.agentOf(i);
      const k = lengths.get(agent) ?? 0;
      lengths.set(agent, k + 1);
      if (!repeatsBefore(index, i)) continue;
      const mine = places.get(agent);
      if (mine) mine.push(k);
      else places.set(agent, [k]);
    }
  }
  sweep.swept = Math.max(sweep.swept, index.size);
  return sweep;
}

/** {@link repeatsByAgent}'s sweep: per agent the places of its repeated events, and its lane's length so far; a followed trace's scans of each lane ({@link LaneScan}). */
interface RepeatSweep extends Sweep {
  places: Map<string, number[]>;
  lengths: Map<string, number>;
  scans: Map<string, LaneScan>;
}

/**
 * A lane's scans for tandem repeats ({@link laneRepeats}), kept between analyses of a growing trace:
 * per period, the next of the lane's repeats to read, the run of matches being extended, and the
 * runs closed before it. A closed run is final: a repeat read later is at a later place, and gives
 * a match at a later place than the run's end (the repeats and fingerprints of old events never
 * change: {@link repeatsByAgent}). Whether a run is reported is decided again each time, in a
 * whole scan's order (smaller periods first, over the flags of what they covered): a scan of every
 * repeat was 13-25 ms per append of a followed trace at 1M events.
 */
interface LaneScan {
  maxPeriod: number;
  periods: PeriodScan[];
}

/** One period's scan of a lane (see {@link LaneScan}). */
interface PeriodScan {
  q: number;
  from: number;
  to: number;
  closed: MatchRun[];
}

/** A maximal run [from, to) of a lane's places where f[k] = f[k + p]; once closed, whether it is a candidate and its loop, once made. */
interface MatchRun {
  from: number;
  to: number;
  /** False when it repeats too few times or its block is periodic itself (never a loop); undefined until asked. */
  candidate?: boolean;
  loop?: RawLoop;
}

/** How many events of `lane` have a fingerprint an earlier event has. */
function repeatsIn(index: TraceIndex, lane: Int32Array): number {
  let count = 0;
  for (let k = 0; k < lane.length; k++) if (repeatsBefore(index, lane[k])) count++;
  return count;
}

/** True when the event at position `i` has a fingerprint an earlier event has. */
function repeatsBefore(index: TraceIndex, i: number): boolean {
  return index.firstSeen(i) !== i;
}

/** The places in `lane` of its events whose fingerprint occurred before, ascending. */
function repeatedPlaces(index: TraceIndex, lane: Int32Array): Int32Array {
  const out = index.arena.int32(repeatsIn(index, lane));
  for (let k = 0, q = 0; q < out.length; k++) if (repeatsBefore(index, lane[k])) out[q++] = k;
  return out;
}

/**
 * The tandem repeats of one lane (see the module comment), added to `out`. With f[k] the
 * fingerprint of the lane's k-th event, f[k] = f[k + p] needs f[k + p] to be a fingerprint met
 * before, so for each period only the lane's `repeats` (places of such events, ascending) are looked
 * at, k = r - p for each repeat r, in order: the same maximal runs of matches, in the same order, as
 * the scan of every k; O(repeats * maxPeriod) besides the lane's `covered` flags. With `scan` (a
 * followed trace's), each period's scan goes on from where it stopped and keeps its closed runs.
 */
function laneRepeats(index: TraceIndex, agent: string, lane: Int32Array, repeats: ArrayLike<number>, maxPeriod: number, out: RawLoop[], scan?: LaneScan): void {
  const m = lane.length;
  const f = index.fingerprints;
  const covered = index.arena.uint8(m);
  const report = (run: MatchRun, p: number) => tandemRun(f, agent, lane, covered, run, p, out);
  for (let p = 1; p <= Math.min(maxPeriod, m >> 1); p++) {
    const state: PeriodScan = scan ? (scan.periods[p - 1] ??= { q: 0, from: -1, to: -1, closed: [] }) : { q: 0, from: -1, to: -1, closed: [] };
    if (scan) {
      matchRuns(f, lane, repeats, p, state, (run) => state.closed.push(run));
      for (const run of state.closed) report(run, p);
    } else matchRuns(f, lane, repeats, p, state, report);
    // the run still open: closed at the lane's end
    if (state.from !== -1) report({ from: state.from, to: state.to }, p);
  }
}

/**
 * Period `p`'s maximal runs of matches in the lane, from `state` on (the next repeat to read and the
 * run being extended) to the last repeat: each run closed goes to `closed`, in order; the run still
 * open at the end stays in `state` (a whole scan closes it then).
 */
function matchRuns(f: Int32Array, lane: Int32Array, repeats: ArrayLike<number>, p: number, state: PeriodScan, closed: (run: MatchRun, p: number) => void): void {
  let { from, to } = state; // the run of matches [from, to) being extended
  for (let q = state.q; q < repeats.length; q++) {
    const r = repeats[q];
    const k = r - p;
    if (k < 0) continue;
    const fk = f[lane[k]];
    if (fk < 0 || fk !== f[lane[r]]) continue;
    if (k === to) {
      to++;
      continue;
    }
    if (from !== -1) closed({ from, to }, p);
    from = k;
    to = k + 1;
  }
  Object.assign(state, { q: repeats.length, from, to });
}

/** A maximal run [i, j) of places where f[k] = f[k + p] (`f`: fingerprints of the lane's events): a loop when it repeats a primitive block often enough and is not mostly covered by a loop of a smaller period. */
function tandemRun(f: Int32Array, agent: string, lane: Int32Array, covered: Uint8Array, run: MatchRun, p: number, out: RawLoop[]): void {
  const { from: i, to: j } = run;
  const reps = Math.floor((j - i + p) / p);
  run.candidate ??= reps >= (p === 1 ? 3 : 2) && isPrimitive(f, lane, i, p);
  if (!run.candidate) return;
  const end = i + reps * p; // exclusive
  let already = 0;
  for (let k = i; k < end; k++) already += covered[k];
  if (already * 2 >= end - i) return;
  for (let k = i; k < end; k++) covered[k] = 1;
  if (!run.loop) {
    const members = Array.from(lane.subarray(i, end));
    run.loop = {
      kind: 'repeated_sequence',
      members,
      repeated: members.slice(p),
      span: [lane[i + p], lane[end - 1]],
      period: p,
      repetitions: reps,
      label: `${agent} repeated the same ${p === 1 ? 'event' : `${p}-event sequence`} ${countWords(reps, 'time')}`,
    };
  }
  out.push(run.loop);
}

/** True when the fingerprints `f` of lane[i..i+p) are not themselves a repetition of a shorter block. */
function isPrimitive(f: Int32Array, lane: Int32Array, i: number, p: number): boolean {
  for (let q = 1; q < p; q++) {
    if (p % q !== 0) continue;
    let periodic = true;
    for (let k = i + q; k < i + p && periodic; k++) if (f[lane[k]] !== f[lane[k - q]]) periodic = false;
    if (periodic) return false;
  }
  return true;
}
