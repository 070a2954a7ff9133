/**
 * The analysis's arena (src/analysis/arena.ts): views are zeroed when handed out, also when their
 * memory was used before; a release hands the same memory out again; views never overlap; the
 * arena takes more chunks when its reserve runs out; the analysis's results keep none of its views.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace } from '../../../src/analysis';
import { Arena } from '../../../src/analysis/arena';
import { traceOf } from './build';

test('views are zeroed, also on memory handed out again after a release', () => {
  const arena = new Arena(1024);
  const mark = arena.mark();
  const a = arena.int32(100).fill(7);
  const b = arena.float64(10).fill(2.5);
  arena.release(mark);
  const c = arena.int32(100);
  assert.equal(c.buffer, a.buffer);
  assert.equal(c.byteOffset, a.byteOffset, 'the released memory is handed out again');
  assert.ok(c.every((x) => x === 0));
  const d = arena.float64(10);
  assert.equal(d.byteOffset, b.byteOffset);
  assert.ok(d.every((x) => x === 0));
});

test('a wide view over memory an odd number of narrow entries wrote is zeroed to its end (a followed trace\'s credit read a link number as a weight)', () => {
  const arena = new Arena(1024);
  const mark = arena.mark();
  arena.int32(3).fill(5); // 12 bytes written: the end falls inside the second 8-byte element
  arena.release(mark);
  assert.deepEqual([...arena.float64(4)], [0, 0, 0, 0]);
  arena.release(mark);
  arena.uint8(13).fill(9);
  arena.release(mark);
  assert.deepEqual([...arena.int32(4)], [0, 0, 0, 0]);
});

test('a view filled with a value, or made holding a head then zeros, over memory written before', () => {
  const arena = new Arena(1024);
  const mark = arena.mark();
  arena.int32(40).fill(5);
  arena.release(mark);
  assert.deepEqual([...arena.int32(6, -1)], [-1, -1, -1, -1, -1, -1]);
  arena.release(mark);
  const head = Int32Array.of(3, 4);
  assert.deepEqual([...arena.grownInt32(head, 5)], [3, 4, 0, 0, 0], 'the head, then zeros where 5 was written');
  arena.release(mark);
  assert.deepEqual([...arena.grownInt32(Int32Array.of(1, 2, 3), 2)], [1, 2], 'a head longer than the view is cut');
  arena.release(mark);
  assert.deepEqual([...arena.grownUint8(Uint8Array.of(7), 9)], [7, 0, 0, 0, 0, 0, 0, 0, 0]);
  // and past what was ever written (the system's zeros): the head and zeros still
  const fresh = arena.grownInt32(Int32Array.of(9), 300);
  assert.equal(fresh[0], 9);
  assert.ok(fresh.subarray(1).every((x) => x === 0));
  // the next zeroed view after them knows their memory was written
  arena.release(mark);
  arena.int32(300, 8);
  arena.release(mark);
  assert.ok(arena.int32(300).every((x) => x === 0));
});

test('views do not overlap and start on 8-byte boundaries', () => {
  const arena = new Arena(4096);
  const views = [arena.uint8(3), arena.int32(5), arena.float64(2), arena.uint8(1), arena.int32(1)];
  views.forEach((v, k) => v.fill(k + 1));
  views.forEach((v, k) => {
    assert.equal(v.byteOffset % 8, 0);
    assert.ok(Array.from(v).every((x) => x === k + 1), `view ${k} kept its values`);
  });
});

test('past its reserve the arena takes more chunks, and a release goes back across them', () => {
  const arena = new Arena(0); // the smallest reserve, 64 KiB
  const mark = arena.mark();
  const small = arena.int32(10).fill(1);
  const big = arena.float64(20_000).fill(3); // 160 KB: a chunk of its own
  assert.notEqual(big.buffer, small.buffer);
  assert.equal(big.length, 20_000);
  assert.ok(small.every((x) => x === 1), 'the first view is left alone');
  arena.release(mark);
  const again = arena.int32(10);
  assert.equal(again.buffer, small.buffer);
  assert.ok(again.every((x) => x === 0));
  assert.ok(arena.float64(20_000).every((x) => x === 0), 'the reused chunk is zeroed');
});

test('grownInt32 keeps the entries and zeroes the rest', () => {
  const arena = new Arena(1024);
  const a = arena.int32(4);
  a.set([1, 2, 3, 4]);
  const b = arena.grownInt32(a, 8);
  assert.deepEqual(Array.from(b), [1, 2, 3, 4, 0, 0, 0, 0]);
});

test('compact moves views made with room to spare down to the mark, with their entries, and hands out what follows', () => {
  const arena = new Arena(4096);
  const below = arena.int32(2).fill(9);
  const mark = arena.mark();
  const a = arena.int32(10);
  const b = arena.uint8(10);
  arena.float64(8).fill(4); // scratch between them
  const c = arena.int32(3);
  a.set([1, 2, 3, 4]);
  b.set([5, 6]);
  c.set([7, 8, 9]);
  const [a2, b2, c2] = arena.compact(mark, [a.subarray(0, 4), b.subarray(0, 2), c] as const);
  assert.deepEqual([Array.from(a2), Array.from(b2), Array.from(c2)], [[1, 2, 3, 4], [5, 6], [7, 8, 9]]);
  assert.ok(a2 instanceof Int32Array && b2 instanceof Uint8Array && c2 instanceof Int32Array);
  assert.equal(a2.byteOffset, a.byteOffset, 'the first view starts at the mark');
  assert.equal(b2.byteOffset, a.byteOffset + 16);
  assert.equal(c2.byteOffset, a.byteOffset + 24, 'each view starts on an 8-byte boundary');
  assert.deepEqual(Array.from(below), [9, 9], 'what lies below the mark is left alone');
  const next = arena.int32(4);
  assert.equal(next.byteOffset, c2.byteOffset + 16, 'what followed the views is handed out again');
  assert.ok(next.every((x) => x === 0));
  assert.deepEqual(Array.from(c2), [7, 8, 9]);
});

test('compact leaves a typed array of its own as it is, and moves nothing when the views are not in order', () => {
  const arena = new Arena(4096);
  const mark = arena.mark();
  const own = new Int32Array([1, 2]);
  arena.int32(16);
  const a = arena.int32(2).fill(3);
  const [own2, a2] = arena.compact(mark, [own, a] as const);
  assert.equal(own2, own);
  assert.equal(a2.byteOffset, 0);
  assert.deepEqual(Array.from(a2), [3, 3]);
  const mark2 = arena.mark();
  const x = arena.int32(2);
  const y = arena.int32(2);
  const out = arena.compact(mark2, [y, x] as const);
  assert.equal(out[0], y, 'out of order: returned as given');
  assert.equal(arena.int32(1).byteOffset, y.byteOffset + 8, 'and nothing was given back');
});

test('free gives every view back: views of a large chunk made before read as empty where the runtime detaches them', () => {
  const arena = new Arena(1 << 20);
  const a = arena.int32(1000).fill(5);
  arena.free();
  const detaches = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function';
  if (detaches) assert.equal(a.length, 0, 'the chunk was detached under the view: its pages went back');
  const b = arena.int32(1000);
  assert.equal(b.byteOffset, 0);
  assert.ok(b.every((x) => x === 0));
  assert.notEqual(b.buffer, a.buffer, 'a new chunk');
});

test('chunks are ordinary buffers (views of a resizable one are read 3-4 times more slowly); a small arena keeps its chunk past free, for the collector', () => {
  const resizable = (view: ArrayBufferView) => (view.buffer as ArrayBuffer & { resizable?: boolean }).resizable === true;
  const small = new Arena(100 * 256); // the reserve of a 100-event trace's index
  const a = small.int32(100).fill(7);
  assert.equal(resizable(a), false);
  assert.equal(resizable(small.uint8(200_000)), false, 'a further chunk past a small reserve is small too');
  small.free();
  assert.equal(a.length, 100, 'a small chunk is not detached: its memory goes back at a collection');
  assert.ok(small.int32(100).every((x) => x === 0), 'memory handed out after free is zeroed');
  assert.equal(resizable(new Arena(4 << 20).int32(10)), false);
});

test('the analysis results hold no view of the index arena, which is freed when analyzeTrace returns', () => {
  const events = [
    { id: 'u', type: 'message' as const, agent: 'user', content: 'Find the population of Paris 2024 and Lyon' },
    ...Array.from({ length: 6 }, (_, k) => [
      { id: `c${k}`, type: 'tool_call' as const, agent: 'worker', tool: 'search', content: 'population Paris 2024' },
      { id: `r${k}`, type: 'tool_result' as const, agent: 'worker', tool: 'search', content: 'Paris 2,102,650' },
    ]).flat(),
    { id: 'a', type: 'message' as const, agent: 'worker', content: 'Paris has 2,102,650 inhabitants' },
  ];
  const analysis = analyzeTrace(traceOf(events));
  const views: string[] = [];
  const walk = (value: unknown, path: string, seen: Set<unknown>) => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (ArrayBuffer.isView(value)) {
      if ((value.buffer as ArrayBuffer & { resizable?: boolean }).resizable === true || value.buffer.byteLength !== value.byteLength) views.push(path);
      return;
    }
    for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, seen);
  };
  walk(analysis, 'analysis', new Set());
  assert.deepEqual(views, []);
  assert.ok(analysis.loops.some((l) => l.kind === 'repeated_tool_call' && l.repetitions === 6), 'the loop found from arena arrays is whole');
  assert.equal(Object.keys(analysis.credit.steps).length, events.length, 'steps made after the arena was freed');
  assert.equal(analysis.credit.events.a, analysis.credit.by_index[events.length - 1]);
});

test('free detaches a large chunk at once (its pages back to the system), and the arena takes a new one if used again', (t) => {
  if (typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer !== 'function') return t.skip('no ArrayBuffer.prototype.transfer in this runtime');
  const MiB = 1024 * 1024;
  const arena = new Arena(256 * MiB); // the reserve of a 1M-event trace's index
  const big = arena.float64((40 * MiB) / 8).fill(1);
  assert.equal(big.buffer.byteLength, 256 * MiB, 'the whole reserve in one buffer');
  arena.free();
  assert.equal(big.buffer.byteLength, 0, 'detached');
  assert.equal(big.length, 0, 'views made before read as empty');
  const again = arena.float64((40 * MiB) / 8);
  assert.ok(again.every((x) => x === 0), 'a new chunk, zeroed');
  assert.equal(again.buffer.byteLength, 256 * MiB, 'at the reserve\'s size');
});
