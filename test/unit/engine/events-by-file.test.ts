/**
 * eventsByFile (src/engine/snapshot.ts): event indices grouped per file and sorted by range (start,
 * then end); a file whose events come in range order is kept as it is, one out of order is sorted,
 * stably; events without an origin are left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventsByFile } from '../../../src/engine/snapshot';
import { LineOrigins, OriginArray, type Origin } from '../../../src/trace/model';

function origin(line: number, character: number, endLine: number, endCharacter: number, file?: string): Origin {
  return { range: { start: { line, character }, end: { line: endLine, character: endCharacter } }, record: line, ...(file ? { file } : {}) };
}

test('events in range order keep their order; files apart; events without an origin left out', () => {
  const origins = [origin(0, 0, 0, 9), origin(0, 0, 3, 1, 'sub.jsonl'), undefined, origin(1, 0, 1, 9), origin(2, 0, 2, 4, 'sub.jsonl'), origin(2, 0, 2, 9)];
  const byFile = eventsByFile(new OriginArray(origins));
  assert.deepEqual([...byFile.keys()], ['', 'sub.jsonl']);
  assert.deepEqual(byFile.get(''), [0, 3, 5]);
  assert.deepEqual(byFile.get('sub.jsonl'), [1, 4]);
});

test('a file out of range order is sorted by start then end, ties in event order; the other file is left alone', () => {
  const origins = [
    origin(5, 0, 5, 9), // 0
    origin(1, 2, 1, 8), // 1
    origin(1, 2, 1, 4), // 2: same start as 1, ends first
    origin(0, 0, 0, 3, 'b'), // 3
    origin(3, 0, 3, 1), // 4
    origin(1, 2, 1, 4), // 5: the same range as 2, after it
    origin(4, 0, 4, 2, 'b'), // 6
  ];
  const byFile = eventsByFile(new OriginArray(origins));
  assert.deepEqual(byFile.get(''), [2, 5, 1, 4, 0]);
  assert.deepEqual(byFile.get('b'), [3, 6]);
});

test('records read line by line in line order: every event of the trace file in order, however the trace grew; a list handed out never changes', () => {
  const origins = new LineOrigins();
  const lists: number[][] = [];
  const views: ArrayLike<number>[] = [];
  // sizes around the 64k steps the shared list of indices grows by
  for (const n of [3, 70_000, 70_001, 10, 140_000]) {
    while (origins.length < n) origins.add({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, record: origins.length + 1, chars: 5, offset: 0, bytes: 5 } as unknown as Origin);
    const all = eventsByFile(n < origins.length ? lineOriginsOf(n) : origins).get('')!;
    assert.equal(all.length, n);
    assert.ok(Array.from(all).every((v, i) => v === i), `${n}: 0 .. ${n - 1} in order`);
    lists.push(Array.from(all));
    views.push(all);
  }
  // the lists handed out before are as they were after the shared indices grew (views of a list never written again)
  views.forEach((view, k) => assert.deepEqual(Array.from(view), lists[k], `call ${k}`));
});

/** n records in line order. */
function lineOriginsOf(n: number): LineOrigins {
  const o = new LineOrigins();
  for (let i = 0; i < n; i++) o.add({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, record: i + 1, chars: 5, offset: 0, bytes: 5 } as unknown as Origin);
  return o;
}
