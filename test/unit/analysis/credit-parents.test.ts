/** Credit's parent list (src/analysis/credit-parents.ts): the same figures as a plain map, listed or past the list (spilled to a weight per position). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Arena } from '../../../src/analysis/arena';
import { Parents } from '../../../src/analysis/credit-parents';

/** The reference: weights summed per parent in link order, parents in first-seen order, as the pass did with a Map. */
function reference(links: [number, number][], pass: number, n: number): { total: number; mass: Float64Array } {
  const weights = new Map<number, number>();
  for (const [u, w] of links) weights.set(u, (weights.get(u) ?? 0) + w);
  let total = 0;
  for (const w of weights.values()) total += w;
  const mass = new Float64Array(n);
  for (const [u, w] of weights) mass[u] += (pass * w) / total;
  return { total, mass };
}

test('parents give the figures of a plain map, with few parents and with many (past the list), event after event', () => {
  const n = 500;
  const arena = new Arena(n * 8);
  const parents = new Parents(n, arena);
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (const count of [1, 3, 16, 17, 40, 200, 2, 30, 5]) {
    // links with repeats (a parent by an edge and by content), weights as the pass gives them
    const links: [number, number][] = Array.from({ length: count * 2 }, () => [Math.floor(random() * count * 1.5), [1, 0.5, random()][Math.floor(random() * 3)] || 0.25]);
    parents.clear();
    for (const [u, w] of links) parents.add(u, w);
    const want = reference(links, 0.37, n);
    assert.equal(parents.total(), want.total, `${count} parents: total`);
    const mass = new Float64Array(n);
    parents.spread(0.37, parents.total(), mass);
    assert.deepEqual(mass, want.mass, `${count} parents: what each got`);
  }
});
