/**
 * Property tests of the run comparison (issue 28): a run against a copy with k random edits (events
 * removed, inserted, changed, a tool call repeated as a loop, the stop moved) finds exactly those
 * edits and the right first divergence; a renamed worker still pairs with itself (fast-check, seeded).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { analyzeTrace } from '../../../../src/analysis';
import { compareRuns } from '../../../../src/analysis/compare';
import { baseRun, editedCopy, loadedOf, withNoise, type Edit } from './edited-runs';

const EDITS: Edit[] = ['remove', 'insert', 'change', 'loop', 'move_stop'];

/** Rounds, workers, and up to 5 edits at rounds at least 2 apart (the stop moved at most once, with 3 rounds after it). */
const scenario = fc
  .record({ rounds: fc.integer({ min: 6, max: 24 }), workers: fc.integer({ min: 1, max: 3 }), rename: fc.boolean(), edits: fc.array(fc.record({ edit: fc.constantFrom(...EDITS), pick: fc.double({ min: 0, max: 0.999, noNaN: true }), gap: fc.integer({ min: 2, max: 4 }) }), { minLength: 1, maxLength: 5 }) })
  .map(({ rounds, workers, rename, edits }) => {
    const plan: { round: number; edit: Edit; pick: number }[] = [];
    let round = 0;
    let moved = false;
    for (const e of edits) {
      if (round >= rounds) break;
      let edit = e.edit;
      if (edit === 'move_stop' && (moved || round > rounds - 4)) edit = 'change';
      if (edit === 'move_stop') moved = true;
      plan.push({ round, edit, pick: e.pick });
      round += e.gap;
    }
    return { rounds, workers, rename: rename ? 'renamed-helper' : null, plan };
  });

function sorted<T>(xs: T[]): T[] {
  return [...xs].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
}

test('a run against a copy with k random edits finds exactly those edits and the first divergence; a renamed worker still pairs', () => {
  fc.assert(
    fc.property(scenario, ({ rounds, workers, rename, plan }) => {
      const base = baseRun(rounds, workers);
      const { copy, expected } = editedCopy(base, plan, rename);
      const a = loadedOf(base);
      const b = loadedOf(copy);
      const c = compareRuns({ loaded: a, analysis: analyzeTrace(a) }, { loaded: b, analysis: analyzeTrace(b) });
      assert.deepEqual(sorted(c.only_in_a), sorted(expected.only_in_a), 'only in A');
      assert.deepEqual(sorted(c.only_in_b), sorted(expected.only_in_b), 'only in B');
      assert.deepEqual(sorted(c.changed), sorted(expected.changed), 'changed');
      assert.deepEqual(sorted(c.moved), sorted(expected.moved), 'moved');
      assert.equal(c.same, base.length - expected.only_in_a.length - expected.changed.length - expected.moved.length, 'the rest is the same');
      const f = c.first_divergence;
      assert.deepEqual(f && { at: f.at, a: f.a, b: f.b }, expected.first, 'first divergence');
      for (const p of c.agents) assert.ok(p.a !== null && p.b !== null, `every agent pairs: ${JSON.stringify(c.agents.map((x) => [x.a, x.b]))}`);
      if (expected.renamed) assert.ok(c.agents.some((p) => p.a === expected.renamed![0] && p.b === expected.renamed![1]), 'the renamed worker pairs with itself');
      if (expected.loop) {
        assert.ok(c.findings.only_in_b.some((x) => x.kind === 'loop'), `a loop only in B: ${JSON.stringify(c.findings)}`);
        assert.ok(!c.findings.only_in_a.some((x) => x.kind === 'loop'));
      }
    }),
    { seed: 28, numRuns: 150 },
  );
});

test('with a duration, a timestamp, a commit and a temporary folder other in every event of the copy, k random edits (one a count changed) are still found exactly', () => {
  fc.assert(
    fc.property(scenario, fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 999 }), ({ rounds, workers, rename, plan }, salt, countAt) => {
      const base = withNoise(baseRun(rounds, workers), salt);
      // one edit (picked by countAt) becomes a count changed
      const counted = plan.map((p, k) => (k === countAt % plan.length && p.edit !== 'move_stop' ? { ...p, edit: 'count' as Edit } : p));
      const { copy, expected } = editedCopy(base, counted, rename);
      const a = loadedOf(base);
      const b = loadedOf(withNoise(copy, salt + 1));
      const c = compareRuns({ loaded: a, analysis: analyzeTrace(a) }, { loaded: b, analysis: analyzeTrace(b) });
      assert.deepEqual(sorted(c.only_in_a), sorted(expected.only_in_a), 'only in A');
      assert.deepEqual(sorted(c.only_in_b), sorted(expected.only_in_b), 'only in B');
      assert.deepEqual(sorted(c.changed), sorted(expected.changed), 'changed (a count changed among them)');
      assert.deepEqual(sorted(c.moved), sorted(expected.moved), 'moved');
      const f = c.first_divergence;
      assert.deepEqual(f && { at: f.at, a: f.a, b: f.b }, expected.first, 'first divergence');
    }),
    { seed: 2828, numRuns: 100 },
  );
});

test('a run against itself: no difference, no first divergence, every event aligned, no finding on one side', () => {
  const base = baseRun(8, 2);
  const a = loadedOf(base);
  const c = compareRuns({ loaded: a, analysis: analyzeTrace(a) }, { loaded: loadedOf(base), analysis: analyzeTrace(loadedOf(base)) });
  assert.equal(c.first_divergence, null);
  assert.deepEqual([c.only_in_a, c.only_in_b, c.changed, c.moved, c.differences], [[], [], [], [], []]);
  assert.equal(c.same, base.length);
  assert.deepEqual(c.findings, { only_in_a: [], only_in_b: [] });
  assert.equal(c.agents.reduce((n, p) => n + p.aligned.length, 0), base.length);
  // the pairs are made when first read; JSON and structured clones (a webview message) carry them as any property
  const json = JSON.parse(JSON.stringify(c)) as typeof c;
  const clone = structuredClone(c);
  for (let k = 0; k < c.agents.length; k++) {
    assert.deepEqual(json.agents[k].aligned, c.agents[k].aligned);
    assert.deepEqual(clone.agents[k].aligned, c.agents[k].aligned);
    for (const [i, j] of c.agents[k].aligned) assert.equal(base[i].id, base[j].id, 'an event aligned with itself');
  }
  assert.deepEqual(Object.keys(c.agents[0]), ['a', 'b', 'paired_by', 'a_stats', 'b_stats', 'deltas', 'aligned', 'only_in_a', 'only_in_b', 'changed', 'moved']);
});
