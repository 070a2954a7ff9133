/**
 * Columns that appends only add to (src/shared/append-column.ts): the extended column holds the old
 * values and room for the new ones, shares the old buffer only while no other view was made longer
 * from it, and never writes into the old view.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendColumn, copyColumn } from '../../../src/shared/append-column';

test('an appended column keeps the old values, shares the buffer of the latest view, and copies for a second branch', () => {
  const first = Int32Array.from([1, 2, 3]);
  const a = appendColumn(first, 5);
  assert.deepEqual(Array.from(a), [1, 2, 3, 0, 0]);
  a[3] = 4;
  a[4] = 5;
  assert.deepEqual(Array.from(first), [1, 2, 3], 'the old column is not written');
  const b = appendColumn(a, 7);
  assert.equal(b.buffer, a.buffer, 'the latest view is extended in its own buffer');
  b[5] = 6;
  assert.deepEqual(Array.from(a), [1, 2, 3, 4, 5], 'the old view keeps its values');
  // a second extension of the same view (another branch) must not see or overwrite the first one's values
  const c = appendColumn(a, 6);
  assert.notEqual(c.buffer, a.buffer, 'a view that is not the longest gets a copy');
  assert.deepEqual(Array.from(c), [1, 2, 3, 4, 5, 0]);
  c[5] = 9;
  assert.equal(b[5], 6);
  assert.throws(() => appendColumn(b, 3), RangeError);
  const x = appendColumn(Float64Array.from([0.5]), 2);
  assert.ok(x instanceof Float64Array);
  assert.deepEqual(Array.from(x), [0.5, 0]);
});

test('a copied column holds the old values in memory of its own, which the next append extends in place', () => {
  const a = appendColumn(Uint8Array.from([1, 2, 3]), 4);
  const copy = copyColumn(a, 5);
  assert.notEqual(copy.buffer, a.buffer, 'memory of its own: the caller may change old values');
  assert.deepEqual(Array.from(copy), [1, 2, 3, 0, 0]);
  copy[0] = 7;
  assert.deepEqual(Array.from(a), [1, 2, 3, 0], 'the column copied is not written');
  assert.equal(appendColumn(copy, 9).buffer, copy.buffer, 'the copy has room: the next append extends it in place');
  assert.throws(() => copyColumn(a, 3), RangeError);
});
