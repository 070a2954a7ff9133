/**
 * The analysis's arena (src/analysis/arena.ts): views are zeroed when handed out, also when their
 * memory was used before; a release hands the same memory out again; views never overlap; the
 * arena takes more chunks when its reserve runs out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Arena } from '../../../src/analysis/arena';

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

test('free gives every view back: views made before read as empty where chunks are resizable', () => {
  const arena = new Arena(1 << 20);
  const a = arena.int32(1000).fill(5);
  arena.free();
  const resizable = (a.buffer as ArrayBuffer & { resizable?: boolean }).resizable === true;
  if (resizable) assert.equal(a.length, 0, 'the chunk shrank under the view');
  const b = arena.int32(1000);
  assert.equal(b.byteOffset, 0);
  assert.ok(b.every((x) => x === 0));
});
