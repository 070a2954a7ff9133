/**
 * The integer tables of large traces against a Map doing the same: IdTable (src/trace/id-table.ts,
 * event ids -> indices) and PairNumbering (src/analysis/pair-table.ts, fingerprint numbers), over
 * seeded random operations that grow the tables many times, with colliding and repeated keys.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PairNumbering } from '../../../src/analysis/pair-table';
import { IdTable } from '../../../src/trace/id-table';

const id = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('', '__proto__', 'toString', 'e1', 'e10', 'Aa', 'BB', '\u{1f600}', 'a'.repeat(40)), fc.nat(3000).map((k) => `e${k}`));

test('IdTable answers as a Map: set, add, get, has, size and copy, across growth', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom('set', 'add', 'get'), id, fc.nat(1 << 30)), { maxLength: 3000 }), fc.nat(5000), (ops, expected) => {
      const table = new IdTable(expected % 3 === 0 ? 0 : expected);
      const map = new Map<string, number>();
      for (const [op, key, value] of ops) {
        if (op === 'set') {
          assert.equal(table.set(key, value), !map.has(key));
          map.set(key, value);
        } else if (op === 'add') {
          assert.equal(table.add(key, value), !map.has(key));
          if (!map.has(key)) map.set(key, value);
        } else {
          assert.equal(table.get(key), map.get(key));
          assert.equal(table.has(key), map.has(key));
        }
      }
      assert.equal(table.size, map.size);
      const copy = table.copy();
      for (const [key, value] of map) assert.equal(copy.get(key), value);
      copy.set('only in the copy', 1);
      assert.equal(table.has('only in the copy'), map.has('only in the copy'));
    }),
    { seed: 14, numRuns: 200 },
  );
});

test('an IdTable that reads its ids from the caller (keyOf) answers as one that keeps them, and its copy too', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('e1', 'e2', 'e10', 'e11', 'e12')), { maxLength: 3000 }), fc.nat(3000), (ids, expected) => {
      const table = new IdTable(expected % 2 === 0 ? 0 : expected, (i) => ids[i]);
      const plain = new IdTable();
      ids.forEach((id, i) => assert.equal(table.add(id, i), plain.add(id, i)));
      assert.equal(table.size, plain.size);
      for (const id of [...ids, 'absent', '']) assert.equal(table.get(id), plain.get(id));
      const copy = table.copy((i) => ids[i]);
      for (const id of ids) assert.equal(copy.get(id), plain.get(id));
      assert.equal(copy.size, plain.size);
    }),
    { seed: 14, numRuns: 200 },
  );
});

test('PairNumbering numbers pairs in order of first appearance, as a Map would, across growth', () => {
  const int = fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.integer({ min: -3, max: 40 }));
  fc.assert(
    fc.property(fc.array(fc.tuple(int, int), { maxLength: 4000 }), fc.nat(3000), (pairs, expected) => {
      const numbering = new PairNumbering(expected % 2 === 0 ? 0 : expected);
      const map = new Map<string, number>();
      for (const [a, b] of pairs) {
        const key = `${a},${b}`;
        if (!map.has(key)) map.set(key, map.size);
        assert.equal(numbering.number(a, b), map.get(key));
      }
      assert.equal(numbering.size, map.size);
    }),
    { seed: 14, numRuns: 200 },
  );
});
