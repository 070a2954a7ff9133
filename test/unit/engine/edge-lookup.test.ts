/**
 * The edges by event of a layout extended by appends (src/engine/edge-lookup.ts): a lookup made
 * from the last one and the edges inserted lists, for every event, the same edges as one built
 * whole from the new list; after MAX_LAYERS appends it asks to be built whole.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { grownEdgeLookup, MAX_LAYERS, wholeEdgeLookup, type EdgeLookup } from '../../../src/engine/edge-lookup';

/** Per event, the sorted edges from it and into it. */
function listed(lookup: EdgeLookup, n: number): number[][][] {
  return Array.from({ length: n }, (_, i) => {
    const from: number[] = [];
    const into: number[] = [];
    lookup.forEachFrom(i, (k) => from.push(k));
    lookup.forEachInto(i, (k) => into.push(k));
    return [from.sort((a, b) => a - b), into.sort((a, b) => a - b)];
  });
}

/** Edges as columns. */
const columns = (pairs: [number, number][]) => ({ count: pairs.length, source: Int32Array.from(pairs, (p) => p[0]), target: Int32Array.from(pairs, (p) => p[1]) });

test('a lookup grown by insertions lists the same edges per event as one built whole, through many appends', () => {
  const edge = (n: number) => fc.tuple(fc.nat(n - 1), fc.nat(n - 1));
  fc.assert(
    fc.property(
      fc.array(edge(20), { maxLength: 30 }),
      // per append: new events, and edges inserted (each at a place among the edges so far, between any events so far)
      fc.array(fc.record({ events: fc.nat(4), inserts: fc.array(fc.tuple(fc.nat(1000), fc.nat(1000), fc.nat(1000)), { maxLength: 6 }) }), { minLength: 1, maxLength: 40 }),
      (first, appends) => {
        let n = 20;
        let pairs = first as [number, number][];
        let lookup = wholeEdgeLookup(columns(pairs), n);
        let grown = 0;
        for (const { events, inserts } of appends) {
          n += events;
          const next = pairs.map((p) => ({ p, added: false }));
          for (const [at, a, b] of inserts) next.splice(at % (next.length + 1), 0, { p: [a % n, b % n], added: true });
          pairs = next.map((x) => x.p);
          const inserted = Int32Array.from(next.flatMap((x, k) => (x.added ? [k] : [])));
          const made = grownEdgeLookup(lookup, columns(pairs), inserted);
          if (made) grown++;
          else assert.equal(lookup.layers, MAX_LAYERS, 'built whole only past the layers it may read through');
          lookup = made ?? wholeEdgeLookup(columns(pairs), n);
          assert.deepEqual(listed(lookup, n), listed(wholeEdgeLookup(columns(pairs), n), n));
        }
        return grown > 0;
      },
    ),
    { numRuns: 150, seed: 7 },
  );
});
