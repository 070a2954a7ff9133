/** The overview's event columns packed into one byte buffer and read back as typed arrays. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packColumns, unpackColumns } from '../../../src/graph-columns';
import type { GraphColumns } from '../../../src/protocol';

function columns(n: number): GraphColumns {
  const c: GraphColumns = { byTime: new Int32Array(n), tx: new Float64Array(n), lane: new Int32Array(n), kind: new Uint8Array(n), end: new Int32Array(n) };
  for (let i = 0; i < n; i++) {
    c.byTime[i] = n - 1 - i;
    c.tx[i] = i * 0.125 + 1e-9 * i;
    c.lane[i] = i % 7;
    c.kind[i] = (i * 31) % 256;
    c.end[i] = i % 3 === 0 ? -1 : i + 1;
  }
  return c;
}

test('packed columns read back the same values, 21 bytes per event', () => {
  for (const n of [0, 1, 5, 1000]) {
    const c = columns(n);
    const bytes = packColumns(c);
    assert.equal(bytes.byteLength, 21 * n);
    const back = unpackColumns(bytes);
    assert.deepEqual(back, c);
    assert.ok(back.tx instanceof Float64Array && back.byTime instanceof Int32Array && back.kind instanceof Uint8Array);
  }
});

test('non-finite axis positions and negative bar ends survive', () => {
  const c = columns(3);
  c.tx[1] = Number.NaN;
  c.tx[2] = -0.5;
  c.end[0] = -1;
  const back = unpackColumns(packColumns(c));
  assert.ok(Number.isNaN(back.tx[1]));
  assert.equal(back.tx[2], -0.5);
  assert.equal(back.end[0], -1);
});

test('bytes that do not start on a multiple of 8 in their buffer (as a message may deliver them) are read from a copy', () => {
  const c = columns(11);
  const packed = packColumns(c);
  const shifted = new Uint8Array(packed.byteLength + 3);
  shifted.set(packed, 3);
  assert.deepEqual(unpackColumns(shifted.subarray(3)), c);
});

test('a length that is not 21 bytes per event, or columns of different lengths, are refused', () => {
  assert.throws(() => unpackColumns(new Uint8Array(22)), /21 per event/);
  assert.throws(() => packColumns({ ...columns(4), kind: new Uint8Array(3) }), /different lengths/);
});
