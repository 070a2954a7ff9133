/**
 * The time axis (src/shared/axis.ts) made without sorting what it need not sort: times already in
 * order are not sorted again and the gaps' median is selected, not sorted for; the axis is the
 * one the sorts gave.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { axisThreshold, extendedTimeAxis, medianOnly, timeAxis, timeAxisOf, timeAxisOfMedian } from '../../../src/shared/axis';

/** The axis as it was made before: every time sorted, every gap sorted. */
function sortedAxis(times: number[]) {
  const ts = [...new Set(times.filter((t) => Number.isFinite(t)))].sort((a, b) => a - b);
  const gaps = ts.slice(1).map((t, i) => t - ts[i]).sort((a, b) => a - b);
  return timeAxisOf(ts, gaps);
}

test('the median selected is the value a sort puts at length >> 1 (duplicates, runs, sorted and reversed input)', () => {
  const values = fc.oneof(
    fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { maxLength: 200 }),
    fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 200 }),
    fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 200 }).map((xs) => xs.sort((a, b) => a - b)),
    fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 200 }).map((xs) => xs.sort((a, b) => b - a)),
  );
  fc.assert(
    fc.property(values, (xs) => {
      const picked = medianOnly(Float64Array.from(xs));
      const sorted = Float64Array.from(xs).sort();
      if (xs.length) assert.equal(picked[xs.length >> 1], sorted[xs.length >> 1]);
      assert.deepEqual([...picked].sort((a, b) => a - b), [...sorted]);
    }),
    { seed: 30, numRuns: 1000 },
  );
});

test('the time axis equals the one made by sorting every time and gap, for times in order, out of order, repeated or not finite', () => {
  const time = fc.oneof(fc.integer({ min: 0, max: 5000 }).map((x) => x / 4), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 0));
  const times = fc.oneof(
    fc.array(time, { maxLength: 300 }),
    fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 300 }).map((xs) => xs.sort((a, b) => a - b).map((x) => x / 10)),
  );
  fc.assert(
    fc.property(times, (ts) => assert.deepEqual(timeAxis(Float64Array.from(ts)), sortedAxis(ts))),
    { seed: 30, numRuns: 1000 },
  );
});

test('an axis extended by later times, its gaps as wide as before, equals the axis made whole', () => {
  let extended = 0;
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.double({ min: 0.001, max: 2, noNaN: true }), fc.double({ min: 50, max: 5000, noNaN: true })), { minLength: 1, maxLength: 80 }), fc.nat(80), fc.double({ min: 0, max: 3, noNaN: true }), (steps, cut, median) => {
      const ts: number[] = [];
      let t = 10;
      for (const d of steps) ts.push((t += d));
      const k = Math.min(ts.length, cut);
      const before = timeAxisOfMedian(ts.slice(0, k), median);
      const threshold = axisThreshold(ts, median);
      // only when the widths agree (what the layout's extension checks)
      if (k === 0 || axisThreshold(ts.slice(0, k), median) !== threshold) return;
      extended++;
      assert.deepEqual(extendedTimeAxis(before, ts, k, threshold), timeAxisOfMedian(ts, median));
    }),
    { numRuns: 400, seed: 11 },
  );
  assert.ok(extended > 100, `${extended} axes extended`);
});
