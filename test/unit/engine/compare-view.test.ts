/** The compare panel's model (src/engine/compare-view.ts): lane pairs in columns, differences with both records' places, long content read back. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { columnWindows, compareView, laneColumns } from '../../../src/engine/compare-view';
import type { CompareColumn } from '../../../src/shared/compare-protocol';
import { setAsideLongContent } from '../../../src/engine/long-content';
import { SessionStore } from '../../../src/engine/session-store';
import { makeSnapshot } from '../../../src/engine/snapshot';
import type { CompareModel } from '../../../src/shared/compare-protocol';
import { loadTraceFile } from '../../../src/trace/load-file';
import { fixturePath } from '../helpers';

const CODEX = (name: string) => fixturePath('codex', name);
const LONG_RUN = CODEX('rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
const SHORT_RUN = CODEX('rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');

function model(fileA: string, fileB: string): CompareModel {
  const m = compareView(makeSnapshot('a', -1, fileA, loadTraceFile(fileA)), makeSnapshot('b', -1, fileB, loadTraceFile(fileB)));
  assert.ok(!('error' in m));
  return m;
}

test('lane columns: paired events share a column in order; the rest stand alone as the comparison calls them, B\'s before A\'s as run order places them', () => {
  // A: 1 2 3 4, B: 11 12 13; 1~11 same, 3~13 changed, 2 only in A, 12 only in B, 4 moved (its partner is not in B's lane here)
  const partner = new Map([
    [1, 11],
    [3, 13],
  ]);
  const kinds = new Map<number, 'same' | 'only_in_a' | 'only_in_b' | 'changed' | 'moved'>([
    [2, 'only_in_a'],
    [3, 'changed'],
    [4, 'moved'],
    [12, 'only_in_b'],
    [13, 'changed'],
  ]);
  const k = (i: number) => kinds.get(i) ?? 'same';
  assert.deepEqual(laneColumns([1, 2, 3, 4], [11, 12, 13], partner, k, k), [
    { kind: 'same', a: 1, b: 11 },
    { kind: 'only_in_b', b: 12 },
    { kind: 'only_in_a', a: 2 },
    { kind: 'changed', a: 3, b: 13 },
    { kind: 'moved', a: 4 },
  ]);
});

test('lane columns: pairs that cross (not in the same order on both sides) never share a column, and every event is drawn once', () => {
  const partner = new Map([
    [1, 12],
    [2, 11],
  ]);
  const cols = laneColumns([1, 2], [11, 12], partner, () => 'same', () => 'same');
  assert.deepEqual(cols.flatMap((c) => [c.a, c.b]).filter((x) => x !== undefined).sort(), [1, 11, 12, 2].sort());
  assert.equal(cols.filter((c) => c.a !== undefined && c.b !== undefined).length, 1, 'one of the crossing pairs is kept together');
  for (const c of cols.filter((c) => c.a === undefined || c.b === undefined)) assert.notEqual(c.kind, 'same', 'an event alone is never drawn as the same step');
});

test('two Codex rollouts: the first divergence is drawn in its lane pair, every difference knows both records, columns hold every event once', () => {
  const m = model(LONG_RUN, SHORT_RUN);
  assert.equal(m.a.format, 'codex');
  assert.ok(m.differences.length > 0);
  const first = m.differences[0];
  assert.ok(first.column >= 0, 'the first divergence has a column');
  const col = m.lanes[first.lanes].columns[first.column];
  assert.equal(col.diff, 0);
  assert.ok(col.a === first.a || col.b === first.b);
  for (const d of m.differences) {
    if (d.a !== null) assert.ok(d.placeA && d.placeA.range.start.line >= 0, 'an event of A has its record');
    if (d.b !== null) assert.ok(d.placeB, 'an event of B has its record');
  }
  const drawnA = m.lanes.flatMap((p) => p.columns.map((c) => c.a).filter((x) => x !== undefined));
  const drawnB = m.lanes.flatMap((p) => p.columns.map((c) => c.b).filter((x) => x !== undefined));
  assert.equal(new Set(drawnA).size, drawnA.length);
  assert.equal(new Set(drawnB).size, drawnB.length);
  assert.equal(drawnA.length, m.a.events);
  assert.equal(drawnB.length, m.b.events);
  assert.equal(m.counts.only_in_a + m.counts.only_in_b + m.counts.changed + m.counts.moved, m.differences.length);
});

test('a run against itself: no difference, every column the same step', () => {
  const m = model(SHORT_RUN, SHORT_RUN);
  assert.equal(m.differences.length, 0);
  assert.ok(m.lanes.every((p) => p.columns.every((c) => c.kind === 'same' && c.a === c.b)));
});

test('long content a snapshot let go (a trace read from disk) is read back: a change deep in a long tool output is found', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-compare-'));
  const write = (name: string, tail: string) => {
    const file = path.join(dir, name);
    const lines = [
      { trace_id: 't', task_id: 'x' },
      { id: 'e1', t: 0, type: 'tool_call', agent: 'a', tool: 'bash', content: 'make' },
      { id: 'e2', t: 1, type: 'tool_result', agent: 'a', tool: 'bash', content: `${'line of output '.repeat(40)}${tail}` },
      { id: 'e3', t: 2, type: 'stop', agent: 'a', reason: 'task_complete' },
    ];
    fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    return file;
  };
  const fileA = write('a.otrace.jsonl', 'all 12 tests passed');
  const fileB = write('b.otrace.jsonl', '3 of 12 tests FAILED');
  const a = makeSnapshot('a', -1, fileA, loadTraceFile(fileA));
  const b = makeSnapshot('b', -1, fileB, loadTraceFile(fileB));
  assert.equal(setAsideLongContent(a), 1);
  assert.equal(setAsideLongContent(b), 1);
  const m = compareView(a, b);
  assert.ok(!('error' in m));
  assert.deepEqual(
    m.differences.map((d) => [d.kind, d.a, d.b]),
    [['changed', 1, 1]],
  );
  assert.equal(a.loaded.trace.events[1].content, '', 'the snapshot itself keeps its content let go');
});

test('the engine answers a comparison of two sessions by key and stamp, and nothing for a stamp no longer the latest', async () => {
  const store = new SessionStore();
  const sa = await store.load({ key: 'file:///a', version: -1, path: LONG_RUN, local: true }, 1);
  const sb = await store.load({ key: 'file:///b', version: -1, path: SHORT_RUN, local: true }, 2);
  assert.ok(sa && sb);
  const m = store.compareSessions(sa.key, sa.stamp, sb.key, sb.stamp);
  assert.ok(m && !('error' in m) && m.differences.length > 0);
  assert.equal(store.compareSessions(sa.key, sa.stamp + 1, sb.key, sb.stamp), undefined);
});

test('more columns than sent: short lane pairs whole, the budget split among the rest, each window starting a little before its first difference', () => {
  const lane = (n: number, firstDiff: number): CompareColumn[] => Array.from({ length: n }, (_, k) => ({ kind: k === firstDiff ? 'only_in_a' : 'same', a: k }));
  const windows = columnWindows([lane(50_000, 30_000), lane(10, 3), lane(30_000, -1)], 1_000);
  assert.deepEqual(windows[1], { start: 0, count: 10 }, 'the short pair whole');
  assert.equal(windows[0].count + windows[2].count, 990, 'the rest of the budget split');
  assert.equal(windows[0].count, 495);
  assert.ok(windows[0].start <= 30_000 && 30_000 < windows[0].start + windows[0].count, `the first difference is in the window: ${JSON.stringify(windows[0])}`);
  assert.ok(windows[0].start > 0, 'steps before it are left out');
  assert.deepEqual(windows[2], { start: 0, count: 495 }, 'a pair with no difference from its start');
  assert.deepEqual(columnWindows([lane(5, 2), lane(7, -1)], 1_000), [{ start: 0, count: 5 }, { start: 0, count: 7 }], 'under the budget: everything');
});
