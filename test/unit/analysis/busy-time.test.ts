/**
 * Busy time (src/analysis/busy-time.ts) in the index's arena: the same busy and wall time, to the
 * last bit, as the lists-of-numbers version it replaced (kept below as the reference) on random
 * traces (lanes, nested parents, repeated ids, zero-length, touching and equal intervals), and on
 * the heap it allocates a small part of what that version did: about 730 bytes per event for 100k
 * events nested ten to a parent (the bound is 150: code not yet optimized boxes its numbers, about
 * 70 bytes per event; optimized it is under 1).
 */
import assert from 'node:assert/strict';
import { Session } from 'node:inspector/promises';
import { test } from 'node:test';
import fc from 'fast-check';
import { busyTime, type BusyTime } from '../../../src/analysis/busy-time';
import { TraceIndex } from '../../../src/analysis/trace-index';
import type { TraceEvent } from '../../../src/trace/schema';
import { traceOf } from './build';

/** The version before the arena (commit 7dc3ebe), word for word: lists grown by push, a Map of lists per parent and per lane. */
function referenceBusyTime(index: TraceIndex, start: Float64Array, end: Float64Array): BusyTime {
  const n = index.size;
  const parent = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) {
    const id = index.event(v).parent;
    const p = typeof id === 'string' ? index.resolve(id, v) : undefined;
    if (p !== undefined && p !== v) parent[v] = p;
  }
  const children = new Map<number, number[]>();
  for (let v = 0; v < n; v++) if (parent[v] !== -1 && end[v] > start[v]) (children.get(parent[v]) ?? children.set(parent[v], []).get(parent[v])!).push(v);
  const pieces = new Map<string, number[]>();
  const all: number[] = [];
  for (let v = 0; v < n; v++) {
    if (!(end[v] > start[v])) continue;
    all.push(start[v], end[v]);
    const lane = index.agentOf(v);
    const out = pieces.get(lane) ?? pieces.set(lane, []).get(lane)!;
    const kids = children.get(v);
    if (!kids) {
      out.push(start[v], end[v]);
      continue;
    }
    const holes = merge(kids.flatMap((c) => [start[c], end[c]]));
    let from = start[v];
    for (let k = 0; k < holes.length; k += 2) {
      if (holes[k] > from) out.push(from, Math.min(holes[k], end[v]));
      from = Math.max(from, holes[k + 1]);
      if (from >= end[v]) break;
    }
    if (from < end[v]) out.push(from, end[v]);
  }
  let lane = 0;
  for (const p of pieces.values()) lane += length(merge(p));
  return { lane, wall: length(merge(all)) };
}

function merge(flat: number[]): number[] {
  const order = Array.from({ length: flat.length / 2 }, (_, k) => k).sort((a, b) => flat[2 * a] - flat[2 * b]);
  const out: number[] = [];
  for (const k of order) {
    const s = flat[2 * k];
    const e = flat[2 * k + 1];
    if (!(e > s)) continue;
    if (out.length && s <= out[out.length - 1]) out[out.length - 1] = Math.max(out[out.length - 1], e);
    else out.push(s, e);
  }
  return out;
}

function length(merged: number[]): number {
  let total = 0;
  for (let k = 0; k < merged.length; k += 2) total += merged[k + 1] - merged[k];
  return total;
}

/** An event of a random trace: its agent, time, the id it repeats (or its own), its parent's id, and its busy interval. */
const eventArb = fc.record({
  agent: fc.constantFrom('a', 'b', 'c', 'd', '__proto__'),
  t: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.double({ min: 0, max: 20, noNaN: true })),
  sameIdAs: fc.option(fc.nat(), { nil: undefined }),
  parent: fc.option(fc.nat(), { nil: undefined }),
  // small integers make equal, touching and nested intervals; doubles make sums that round
  from: fc.oneof(fc.integer({ min: -2, max: 30 }), fc.double({ min: -2, max: 30, noNaN: true }), fc.constant(Number.NaN)),
  length: fc.oneof(fc.integer({ min: -1, max: 10 }), fc.double({ min: -1, max: 10, noNaN: true }), fc.constant(0)),
});

/** One generated event. */
type EventRow = { agent: string; t: number; sameIdAs: number | undefined; parent: number | undefined; from: number; length: number };

/** The index of a random trace and a busy interval per position. */
function indexOf(rows: EventRow[]): { index: TraceIndex; start: Float64Array; end: Float64Array } {
  const events = rows.map((r, i) => ({
    id: r.sameIdAs !== undefined && r.sameIdAs % 4 === 0 ? `e${r.sameIdAs % rows.length}` : `e${i}`,
    type: 'message' as const,
    agent: r.agent,
    t: r.t,
    ...(r.parent !== undefined ? { parent: `e${r.parent % (rows.length + 1)}` } : {}),
  })) as TraceEvent[];
  const index = new TraceIndex(traceOf(events));
  const start = new Float64Array(index.size);
  const end = new Float64Array(index.size);
  // by position (time order): the interval of the row the event came from
  for (let v = 0; v < index.size; v++) {
    const r = rows[index.at(v)];
    start[v] = r.from;
    end[v] = r.from + r.length;
  }
  return { index, start, end };
}

test('busy and wall time equal the lists-of-numbers version bit for bit on random traces', () => {
  fc.assert(
    fc.property(fc.array(eventArb, { minLength: 0, maxLength: 60 }), (rows) => {
      const { index, start, end } = indexOf(rows);
      try {
        const want = referenceBusyTime(index, start.slice(), end.slice());
        const got = busyTime(index, start, end);
        assert.ok(Object.is(got.lane, want.lane), `lane ${got.lane} against ${want.lane}`);
        assert.ok(Object.is(got.wall, want.wall), `wall ${got.wall} against ${want.wall}`);
      } finally {
        index.free();
      }
    }),
    { seed: 30, numRuns: 2000 },
  );
});

test('busy time reads its inputs and leaves them as they were', () => {
  const { index, start, end } = indexOf(
    Array.from({ length: 40 }, (_, i) => ({ agent: 'abc'[i % 3], t: i, sameIdAs: undefined, parent: i % 5 === 0 ? undefined : i - (i % 5), from: i % 7, length: (i * 3) % 5 })),
  );
  const before = [Array.from(start), Array.from(end)];
  busyTime(index, start, end);
  assert.deepEqual([Array.from(start), Array.from(end)], before);
  index.free();
});

test('busy time of 100k nested events allocates a small part of what lists of numbers did (its scratch is in the arena)', async () => {
  const n = 100_000;
  const events = Array.from({ length: n }, (_, i) => ({ id: `e${i}`, type: 'message', agent: `w${i % 8}`, t: i / 2, ...(i % 10 === 0 ? {} : { parent: `e${i - (i % 10)}` }) })) as TraceEvent[];
  const index = new TraceIndex(traceOf(events));
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    start[v] = index.event(v).t;
    end[v] = start[v] + (v % 10 === 0 ? 5 : 0.4);
  }
  for (let k = 0; k < 3; k++) busyTime(index, start, end); // compiled, and the index's lazy parts made
  const session = new Session();
  session.connect();
  try {
    // every allocation sampled, those collected since included (a list grown by push leaves its old copies behind)
    await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    busyTime(index, start, end);
    const { profile } = await session.post('HeapProfiler.stopSampling');
    type Node = { callFrame: { functionName: string }; selfSize: number; children: Node[] };
    const inBusyTime = (node: Node, inside: boolean): number =>
      (inside ? node.selfSize : 0) + node.children.reduce((sum, c) => sum + inBusyTime(c, inside || c.callFrame.functionName === 'busyTime'), 0);
    const bytes = inBusyTime(profile.head as Node, false);
    assert.ok(bytes < 150 * n, `busy time allocated ${bytes} bytes on the heap for ${n} events (${(bytes / n).toFixed(1)} per event)`);
  } finally {
    session.disconnect();
    index.free();
  }
});
