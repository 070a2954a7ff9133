/** The overview's event columns and findings' events packed into one byte buffer and read back as typed arrays. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packColumns, packOverview, unpackColumns, unpackOverview } from '../../../src/shared/overview-columns';
import type { GraphColumns, GraphOverview } from '../../../src/shared/protocol';

/** Columns with lanes as Int32 (read back, lanes come in the integers they were packed in). */
function wide<T extends { lane: ArrayLike<number> }>(c: T): T {
  return { ...c, lane: Int32Array.from(c.lane) };
}

/** Columns of n events: in reverse time order unless `inFileOrder`, lanes up to `lanes - 1`. */
function columns(n: number, { inFileOrder = false, lanes = 7 } = {}): GraphColumns {
  const c: GraphColumns = { byTime: new Int32Array(n), tx: new Float64Array(n), lane: new Int32Array(n), kind: new Uint8Array(n), end: new Int32Array(n), row: new Uint8Array(n) };
  for (let i = 0; i < n; i++) {
    c.byTime[i] = inFileOrder ? i : n - 1 - i;
    c.tx[i] = i * 0.125 + 1e-9 * i;
    c.lane[i] = (i * 7919) % lanes;
    c.kind[i] = (i * 31) % 256;
    c.end[i] = i % 3 === 0 ? -1 : i + 1;
    c.row[i] = i % 4;
  }
  return c;
}

test('packed columns read back the same values; a 16-byte header, 4 bytes per finding event, 15 to 22 per event', () => {
  for (const n of [0, 1, 5, 1000, 70_000]) {
    for (const events of [[], [3, 0, 2], Array.from({ length: 333 }, (_, k) => (k * 7) % Math.max(1, n))]) {
      // Lanes that fit 1, 2 or 4 bytes, time order in file order (byTime left out) or not.
      for (const [lanes, laneBytes] of [[7, 1], [257, 2], [65_537, 4]]) {
        for (const inFileOrder of [false, true]) {
          const c = columns(n, { inFileOrder, lanes });
          const bytes = packColumns(c, events);
          const most = Array.from(c.lane).reduce((a, b) => Math.max(a, b), 0);
          const perLane = most < 256 ? 1 : most < 65_536 ? 2 : 4;
          if (n === 70_000) assert.equal(perLane, laneBytes);
          const identity = c.byTime.every((i, rank) => i === rank); // one event, or none: in file order either way
          assert.equal(identity, inFileOrder || n <= 1);
          assert.equal(bytes.byteLength, 16 + (identity ? 14 : 18) * n + perLane * n + 4 * events.length, `${n} events, ${lanes} lanes, in file order: ${inFileOrder}`);
          const back = unpackColumns(bytes);
          assert.deepEqual(wide(back.columns), c);
          assert.deepEqual(Object.keys(back.columns), Object.keys(c), 'members in the order of GraphColumns');
          assert.deepEqual(Array.from(back.findingEvents), events);
          assert.equal(back.columns.lane.BYTES_PER_ELEMENT, perLane, 'lanes in the integers they were packed in');
          assert.ok(back.columns.tx instanceof Float64Array && back.columns.byTime instanceof Int32Array && back.columns.kind instanceof Uint8Array);
        }
      }
    }
  }
});

test('a negative lane (none is made, but the type allows it) is kept in 4 bytes', () => {
  const c = columns(4);
  c.lane[2] = -1;
  assert.equal(unpackColumns(packColumns(c)).columns.lane[2], -1);
});

test('non-finite axis positions and negative bar ends survive', () => {
  const c = columns(3);
  c.tx[1] = Number.NaN;
  c.tx[2] = -0.5;
  c.end[0] = -1;
  const back = unpackColumns(packColumns(c)).columns;
  assert.ok(Number.isNaN(back.tx[1]));
  assert.equal(back.tx[2], -0.5);
  assert.equal(back.end[0], -1);
});

test('bytes that do not start on a multiple of 8 in their buffer (as a message may deliver them) are read from a copy', () => {
  const c = columns(11);
  const packed = packColumns(c, [1, 2]);
  const shifted = new Uint8Array(packed.byteLength + 3);
  shifted.set(packed, 3);
  const back = unpackColumns(shifted.subarray(3));
  assert.deepEqual({ columns: wide(back.columns), findingEvents: back.findingEvents }, { columns: c, findingEvents: new Int32Array([1, 2]) });
});

test('a length that does not match the header, or columns of different lengths, are refused', () => {
  assert.throws(() => unpackColumns(new Uint8Array(4)), /no header/);
  const bytes = packColumns(columns(3), [1]);
  assert.throws(() => unpackColumns(bytes.subarray(0, bytes.length - 1)), /not the 77 of 3 events and 1 findings' events/);
  assert.throws(() => packColumns({ ...columns(4), kind: new Uint8Array(3) }), /different lengths/);
});

/** An overview of `n` events with findings of the given sizes. */
function overview(n: number, sizes: number[]): GraphOverview {
  return {
    title: 'a "title" · ünïcode ✓',
    format: 'otrace',
    stamp: 3,
    totalEvents: n,
    lanes: [{ name: 'a', depth: 0, count: n, rows: 4 }],
    axis: { points: [[0, 0]], gaps: [], span: n },
    columns: columns(n),
    kinds: ['message'],
    findings: sizes.map((size, f) => ({ kind: 'loop', severity: 'warning', events: Array.from({ length: size }, (_, k) => (k * 13 + f) % n), inline: `loop ×${size}`, message: `m${f}`, ...(f % 2 ? { tokens: f } : {}) })),
    problems: { errors: 0, warnings: 1 },
    legend: { edgeTypes: [], bars: false, credit: false, cues: [], marks: [] },
  };
}

test('the overview read back from its bytes equals it; the JSON holds each finding\'s event count, the bytes its events', () => {
  for (const sizes of [[], [1], [5, 0, 300, 2]]) {
    const o = overview(50, sizes);
    const { json, columns: bytes } = packOverview(o);
    const parsed = JSON.parse(Buffer.from(json).toString('utf8')) as { findings: { events: unknown }[]; columns?: unknown };
    assert.equal(parsed.columns, undefined, 'no columns in the JSON');
    assert.deepEqual(parsed.findings.map((f) => f.events), sizes, 'a count per finding in the JSON');
    assert.equal(bytes.byteLength, 16 + 19 * 50 + 4 * sizes.reduce((a, b) => a + b, 0));
    const back = unpackOverview(json, bytes);
    assert.deepEqual({ ...back, columns: wide(back.columns) }, o);
    const notColumns = (keys: string[]) => keys.filter((k) => k !== 'columns');
    assert.deepEqual(notColumns(Object.keys(back)), notColumns(Object.keys(o)), 'members in the overview\'s order (the columns last)');
    back.findings.forEach((f, k) => assert.deepEqual(Object.keys(f), Object.keys(o.findings[k]), 'a finding\'s members in their order'));
    assert.equal(JSON.stringify(back.findings), JSON.stringify(o.findings));
  }
});

test('findings whose counts do not match the bytes are refused', () => {
  const { json, columns: bytes } = packOverview(overview(10, [3, 4]));
  const fewer = packOverview(overview(10, [3, 3])).columns;
  assert.throws(() => unpackOverview(json, fewer), /count 7 events, the bytes hold 6/);
  assert.ok(unpackOverview(json, bytes));
});
