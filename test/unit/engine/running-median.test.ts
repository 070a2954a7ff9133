/**
 * The running median of a followed trace's time gaps (src/engine/running-median.ts): after every
 * value added, the value at index `length >> 1` of all values sorted, as the axis reads it.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { RunningMedian } from '../../../src/engine/running-median';

test('the median after each value added equals the middle of the values sorted (from any sorted start)', () => {
  const value = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
  fc.assert(
    fc.property(fc.array(value, { maxLength: 40 }), fc.array(value, { maxLength: 200 }), (start, added) => {
      const all = [...start].sort((a, b) => a - b);
      const m = new RunningMedian(all);
      assert.equal(m.median, all.length ? all[all.length >> 1] : 0);
      for (const v of added) {
        m.add(v);
        all.push(v);
        all.sort((a, b) => a - b);
        assert.equal(m.length, all.length);
        assert.equal(m.median, all[all.length >> 1]);
      }
    }),
    { numRuns: 300, seed: 11 },
  );
});
