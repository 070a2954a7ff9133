/** Credit's parent list (src/analysis/credit-parents.ts): the same figures as a plain map, listed or past the list (spilled to a weight per position). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Arena } from '../../../src/analysis/arena';
import { Parents } from '../../../src/analysis/credit-parents';

/** The reference: weights summed per parent in link order, parents in first-seen order, as the pass did with a Map. */
function reference(links: [number, number][]): { parents: number[]; weights: number[] } {
  const weights = new Map<number, number>();
  for (const [u, w] of links) weights.set(u, (weights.get(u) ?? 0) + w);
  return { parents: [...weights.keys()], weights: [...weights.values()] };
}

test('parents drain as a plain map gives them, with few parents and with many (past the list), event after event (a spilled event leaves no weight to the next)', () => {
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
    assert.equal(parents.size, new Set(links.map(([u]) => u)).size, `${count} parents: how many`);
    // drained after two entries already there (a row of the transitions), into room to spare
    const parent = new Int32Array(2 + parents.size + 3).fill(-7);
    const weight = new Float64Array(parent.length).fill(-7);
    assert.equal(parents.drain(parent, weight, 2), parents.size);
    const want = reference(links);
    assert.deepEqual([...parent.subarray(2, 2 + want.parents.length)], want.parents, `${count} parents: in first-seen order`);
    assert.deepEqual([...weight.subarray(2, 2 + want.weights.length)], want.weights, `${count} parents: each weight summed in link order`);
    assert.deepEqual([...parent.subarray(0, 2), ...parent.subarray(2 + want.parents.length)], [-7, -7, -7, -7, -7], `${count} parents: nothing written outside the row`);
  }
});
