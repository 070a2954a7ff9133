/** Writing JSON to bytes part by part: the bytes of JSON.stringify, columns included. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonBytes } from '../../../src/session/json-bytes';

test('columns and values are written as JSON.stringify writes the same document', () => {
  const tx = Float64Array.from({ length: 40_000 }, (_, i) => (i % 7 === 0 ? i / 3 : i * 1e-9));
  tx[5] = -0;
  tx[6] = Number.NaN;
  tx[7] = Infinity;
  const lane = Int32Array.from({ length: 40_000 }, (_, i) => (i % 5) - 1);
  const kind = Uint8Array.from([0, 255, 3]);
  const out = new JsonBytes();
  out.text('{"name":');
  out.value('quote " and ✓ and \u2028');
  out.text(',"tx":');
  out.column(tx);
  out.text(',"lane":');
  out.column(lane);
  out.text(',"kind":');
  out.column(kind);
  out.text(',"none":');
  out.column(new Int32Array(0));
  out.text('}');
  const want = JSON.stringify({ name: 'quote " and ✓ and \u2028', tx: Array.from(tx), lane: Array.from(lane), kind: Array.from(kind), none: [] });
  assert.equal(new TextDecoder().decode(out.done()), want);
});
