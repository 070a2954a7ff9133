/**
 * The lane aligner (src/analysis/compare/align.ts): pairs equal symbols in order, leaves no common
 * symbol between two consecutive pairs while within Myers' budget, keeps a repeat's first
 * occurrence as the original, and stays near-linear on two unrelated long sequences.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Aligner, longestIncreasing } from '../../../../src/analysis/compare/align';

const seq = (xs: number[]) => Int32Array.from(xs);

/** Checks the alignment's invariants; returns the pairs. */
function checked(a: number[], b: number[]): [number, number][] {
  const { matchA, matchB } = new Aligner(64).align(seq(a), seq(b));
  const pairs: [number, number][] = [];
  for (let i = 0; i < a.length; i++) if (matchA[i] !== -1) pairs.push([i, matchA[i]]);
  for (const [i, j] of pairs) {
    assert.equal(a[i], b[j], 'aligned symbols are equal');
    assert.equal(matchB[j], i, 'matchB is the inverse of matchA');
  }
  for (let k = 1; k < pairs.length; k++) assert.ok(pairs[k][1] > pairs[k - 1][1], 'pairs in order');
  assert.equal([...matchB].filter((i) => i !== -1).length, pairs.length);
  return pairs;
}

test('aligned pairs are equal and in order, and no gap between two pairs holds a symbol of both runs (small sequences, fast-check)', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 40 }), fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 40 }), (a, b) => {
      const pairs = checked(a, b);
      const bounds: [number, number][] = [[-1, -1], ...pairs, [a.length, b.length]];
      for (let k = 1; k < bounds.length; k++) {
        const inA = new Set(a.slice(bounds[k - 1][0] + 1, bounds[k][0]));
        const inB = b.slice(bounds[k - 1][1] + 1, bounds[k][1]);
        assert.ok(!inB.some((x) => inA.has(x)), `a common symbol left in a gap: ${JSON.stringify({ a, b, pairs })}`);
      }
    }),
    { seed: 7, numRuns: 400 },
  );
});

test('insertions only: every symbol of the shorter sequence is aligned; a repeat after a step is what was added', () => {
  const pairs = checked([1, 2, 3, 4], [1, 2, 9, 3, 8, 8, 4]);
  assert.deepEqual(pairs, [[0, 0], [1, 1], [2, 3], [3, 6]]);
  // x y repeated twice more at the end of a stretch: the first x y is the original
  assert.deepEqual(checked([5, 1, 2, 6], [5, 1, 2, 1, 2, 1, 2, 6]), [[0, 0], [1, 1], [2, 2], [3, 7]]);
});

test('two unrelated sequences of 200,000 symbols each align in linear time (the budget, then the greedy walk)', () => {
  let s = 1;
  const rand = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) % 50;
  const a = Int32Array.from({ length: 200_000 }, rand);
  const b = Int32Array.from({ length: 200_000 }, rand);
  const t0 = performance.now();
  const { matchA } = new Aligner(50).align(a, b);
  const ms = performance.now() - t0;
  let last = -1;
  for (let i = 0; i < a.length; i++) {
    if (matchA[i] === -1) continue;
    assert.equal(a[i], b[matchA[i]]);
    assert.ok(matchA[i] > last);
    last = matchA[i];
  }
  assert.ok(ms < 20_000, `${ms} ms`); // a quadratic alignment would take hours
});

test('longestIncreasing: a longest strictly increasing subsequence, by index', () => {
  assert.deepEqual(longestIncreasing([]), []);
  assert.deepEqual(longestIncreasing([3, 1, 2, 5, 4, 6]).map((k) => [3, 1, 2, 5, 4, 6][k]).length, 4);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 30 }), (xs) => {
      const idx = longestIncreasing(xs);
      for (let k = 1; k < idx.length; k++) assert.ok(idx[k] > idx[k - 1] && xs[idx[k]] > xs[idx[k - 1]]);
      // the DP length
      const best = xs.map(() => 1);
      for (let i = 0; i < xs.length; i++) for (let j = 0; j < i; j++) if (xs[j] < xs[i]) best[i] = Math.max(best[i], best[j] + 1);
      assert.equal(idx.length, xs.length ? Math.max(...best) : 0);
    }),
    { seed: 3, numRuns: 300 },
  );
});
