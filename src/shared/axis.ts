/**
 * The time axis of a trace graph, shared by the engine (which lays events out on it) and the
 * webview (which scales it to the panel): trace time in seconds mapped to axis units with long idle
 * gaps compressed, and the level-of-detail buckets that group close events into run bars.
 */
/** A compressed idle gap on the time axis: from `t0` to `t1` seconds, drawn `width` axis units wide at `x`. */
export interface TimeGap {
  t0: number;
  t1: number;
  x: number;
  width: number;
}

/** Piecewise linear map between trace time (seconds) and axis units (seconds with idle gaps compressed). */
export interface TimeAxis {
  /** Breakpoints `[x, t]`, both increasing: between two breakpoints, t and x are linear. */
  points: [number, number][];
  gaps: TimeGap[];
  /** Axis units from the first to the last time. */
  span: number;
}

/**
 * The time axis of a set of times: gaps between successive distinct times longer than a
 * threshold are idle gaps, compressed to the threshold's width. The threshold is the larger of
 * 20 times the median gap and 1/30 of the span, and at least one second, so a run with even
 * steps keeps its shape and a session with human pauses between turns stays readable; rounded up
 * to a power of two, so that a trace that grows keeps its threshold, and so the positions of its
 * times, until its span (or median gap) doubles: an append moves no old position (issue #30).
 */
export function timeAxis(times: ArrayLike<number>): TimeAxis {
  // Typed arrays, not a Set and copies of arrays: a 1M-event trace makes no object per time.
  const all = new Float64Array(times.length);
  let count = 0;
  let ascending = true;
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    if (!Number.isFinite(t)) continue;
    if (count > 0 && t < all[count - 1]) ascending = false;
    all[count++] = t;
  }
  // most traces are written in time order: no sort then
  const sortedTimes = ascending ? all.subarray(0, count) : all.subarray(0, count).sort();
  let unique = 0;
  for (let i = 0; i < count; i++) if (unique === 0 || sortedTimes[i] !== sortedTimes[unique - 1]) sortedTimes[unique++] = sortedTimes[i];
  const ts = sortedTimes.subarray(0, unique);
  const gaps = new Float64Array(Math.max(0, ts.length - 1));
  for (let i = 1; i < ts.length; i++) gaps[i - 1] = ts[i] - ts[i - 1];
  // the axis reads only the median gap of the sorted gaps: selected, not sorted
  return timeAxisOf(ts, medianOnly(gaps));
}

/**
 * `values` (changed in place) with the value a sort would put at index `length >> 1` placed there
 * (Hoare's selection, "FIND", CACM 4(7), 1961): what {@link timeAxisOf} reads of its sorted gaps.
 * O(n) on average. Values are finite.
 */
export function medianOnly(values: Float64Array): Float64Array {
  const k = values.length >> 1;
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    // the middle of three as the pivot (sorted or equal runs stay O(n))
    const a = values[lo];
    const b = values[(lo + hi) >> 1];
    const c = values[hi];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const x = values[i];
        values[i++] = values[j];
        values[j--] = x;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values;
}

/**
 * The {@link timeAxis} of distinct times already sorted (`ts`, ascending, finite) and the gaps
 * between successive ones, sorted (`sortedGaps`, ts.length - 1 of them; only the median, at
 * index `length >> 1`, is read: values around it may be in any order, {@link medianOnly}): what a growing trace
 * keeps to make its axis again without sorting its times (src/engine/structure-growth.ts). O(ts).
 */
export function timeAxisOf(ts: ArrayLike<number>, sortedGaps: ArrayLike<number>): TimeAxis {
  return timeAxisOfMedian(ts, sortedGaps.length ? sortedGaps[sortedGaps.length >> 1] : 0);
}

/**
 * {@link timeAxisOf} given the median gap itself (the gap at index `length >> 1` of the gaps
 * sorted; 0 when there is none): what a growing trace keeps as a running median (src/engine/running-median.ts). O(ts).
 */
export function timeAxisOfMedian(ts: ArrayLike<number>, median: number): TimeAxis {
  if (ts.length === 0) return { points: [[0, 0]], gaps: [], span: 0 };
  return axisFromGaps(ts, axisThreshold(ts, median), [], 1);
}

/**
 * The width of the gaps of the axis of distinct sorted times `ts` whose median gap is `median`
 * (a power of two: at least 20 median gaps and a thirtieth of the span). `ts` not empty.
 */
export function axisThreshold(ts: ArrayLike<number>, median: number): number {
  const total = ts[ts.length - 1] - ts[0];
  return 2 ** Math.ceil(Math.log2(Math.max(1, median * 20, total / 30)));
}

/**
 * {@link timeAxisOfMedian} of `ts` (distinct, ascending, finite; later times appended to those
 * `before` was made of, its first `k`) when the gaps are as wide as `before`'s (`threshold`, what
 * {@link axisThreshold} gave for both): the old gaps stand, only the times from the k-th on are
 * read. O(appended + gaps) instead of O(ts); equal to the whole one.
 */
export function extendedTimeAxis(before: TimeAxis, ts: ArrayLike<number>, k: number, threshold: number): TimeAxis {
  if (ts.length === 0) return { points: [[0, 0]], gaps: [], span: 0 };
  return axisFromGaps(ts, threshold, before.gaps.slice(), Math.max(1, k));
}

/**
 * The axis of `ts` with gaps of width `threshold`: `gaps` those found between its times before
 * index `from` (kept), the times from `from` on read for more. Each piece between gaps maps t to
 * x0 + (t - t0) from its start (x0, t0): a time's position depends on the gaps before it only.
 */
function axisFromGaps(ts: ArrayLike<number>, threshold: number, gaps: TimeGap[], from: number): TimeAxis {
  const last = gaps[gaps.length - 1];
  let x0 = last ? last.x + last.width : 0;
  let t0 = last ? last.t1 : ts[0];
  for (let i = from; i < ts.length; i++) {
    const d = ts[i] - ts[i - 1];
    if (d > threshold) {
      const x = x0 + (ts[i - 1] - t0);
      gaps.push({ t0: ts[i - 1], t1: ts[i], x, width: threshold });
      x0 = x + threshold;
      t0 = ts[i];
    }
  }
  const span = x0 + (ts[ts.length - 1] - t0);
  // the points: the start, each gap's two ends, the end
  const points: [number, number][] = [[0, ts[0]]];
  for (const g of gaps) points.push([g.x, g.t0], [g.x + g.width, g.t1]);
  points.push([span, ts[ts.length - 1]]);
  return { points: dedupe(points), gaps, span };
}

function dedupe(points: [number, number][]): [number, number][] {
  return points.filter((p, i) => i === 0 || p[0] !== points[i - 1][0] || p[1] !== points[i - 1][1]);
}

/**
 * Axis units of a trace time (clamped to the axis): inside an idle gap, linear across its width;
 * elsewhere the start of its piece plus the time since (so a time's position depends on the gaps
 * before it only, not on the axis's end).
 */
export function timeToAxis(axis: TimeAxis, t: number): number {
  return interpolate(axis, t, 1, 0);
}

/** Trace time of an axis position (clamped to the axis): the inverse of {@link timeToAxis}. */
export function axisToTime(axis: TimeAxis, x: number): number {
  return interpolate(axis, x, 0, 1);
}

function interpolate(axis: TimeAxis, v: number, from: 0 | 1, to: 0 | 1): number {
  const points = axis.points;
  if (v <= points[0][from]) return points[0][to];
  let lo = 0;
  let hi = points.length - 1;
  if (v >= points[hi][from]) return points[hi][to];
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid][from] <= v) lo = mid;
    else hi = mid;
  }
  const [a, b] = [points[lo], points[hi]];
  if (!isGap(axis.gaps, a[1], b[1])) return a[to] + (v - a[from]);
  const span = b[from] - a[from];
  return span === 0 ? a[to] : a[to] + ((v - a[from]) / span) * (b[to] - a[to]);
}

/** True when the piece of the axis from time t0 to t1 is one of its idle gaps (gaps sorted by time). */
function isGap(gaps: readonly TimeGap[], t0: number, t1: number): boolean {
  let lo = 0;
  let hi = gaps.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (gaps[mid].t0 < t0) lo = mid + 1;
    else hi = mid;
  }
  return lo < gaps.length && gaps[lo].t0 === t0 && gaps[lo].t1 === t1;
}

/**
 * True when every time up to `last` (a time of `before`'s) has the same position on `after` as on
 * `before`: the same start and, up to `last`, the same idle gaps (what an append that keeps the
 * threshold gives: its new gaps come after the old times).
 */
export function keepsPositions(before: TimeAxis, after: TimeAxis, last: number): boolean {
  if (before.points[0][0] !== after.points[0][0] || before.points[0][1] !== after.points[0][1]) return false;
  const k = before.gaps.length;
  if (after.gaps.length < k) return false;
  for (let j = 0; j < k; j++) {
    const [x, y] = [before.gaps[j], after.gaps[j]];
    if (x.t0 !== y.t0 || x.t1 !== y.t1 || x.x !== y.x || x.width !== y.width) return false;
  }
  return after.gaps.length === k || after.gaps[k].t0 >= last;
}

/** Width in px of a level-of-detail bucket: events closer than this on screen may share a run bar. */
export const BUCKET_PX = 16;

/**
 * The bucket width (axis units) at `scale` px per axis unit: the smallest power of two at least
 * {@link BUCKET_PX} px wide, so a bucket's key stays the same while zooming within a factor of two.
 */
export function bucketWidth(scale: number): number {
  return 2 ** Math.ceil(Math.log2(BUCKET_PX / Math.max(scale, 1e-12)));
}

/** The key of a run bar: mode, bucket level, lane, row inside the lane and bucket number. */
export function runKey(mode: 'time' | 'order', bucket: number, lane: number, row: number, k: number): string {
  return `r${mode === 'time' ? 't' : 'o'}:${Math.round(Math.log2(bucket))}:${lane}:${row}:${k}`;
}
