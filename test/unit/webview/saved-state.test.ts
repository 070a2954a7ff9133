/** The graph page's saved state (webview/saved-state.ts): a trace's view and selection are restored for its URI only. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EARLIER_KEPT, readSaved, savedForTrace, savedWith, type SavedState } from '../../../webview/saved-state';

const A = 'file:///work/runs/Algorithm-Generated/12.json';
const B = 'file:///work/runs/Hand-Crafted/12.json';
const view = { mode: 'time' as const, scale: 42, laneHeight: 30, pan: { x: -120, y: 0 } };
const saved: SavedState = { uri: A, view, selected: 7, follow: true };

test("a trace's saved view and selection come back for its URI", () => {
  assert.deepEqual(savedForTrace(saved, A, 'time', 20), { view, selected: 7 });
});

test('another trace with the same file name gets neither (two folders, two traces)', () => {
  assert.deepEqual(savedForTrace(saved, B, 'time', 20), {});
});

test('a state saved by file title only (no URI), or no URI for the trace, restores nothing', () => {
  assert.deepEqual(savedForTrace(readSaved({ title: '12.json', view, selected: 7, follow: true }), A, 'time', 20), {});
  assert.deepEqual(savedForTrace(saved, undefined, 'time', 20), {});
  assert.equal(readSaved(undefined), undefined);
});

test('a view of another axis mode, or a selection beyond the events, is left out', () => {
  assert.deepEqual(savedForTrace(saved, A, 'order', 20), { selected: 7 });
  assert.deepEqual(savedForTrace(saved, A, 'time', 7), { view });
});

test("switching back to a trace's tab finds its view and selection (the panel that follows the editor forgot all but the last trace's)", () => {
  const other = { mode: 'time' as const, scale: 3, laneHeight: 20, pan: { x: 0, y: 0 } };
  const onA = savedWith(undefined, A, { view, selected: 7 }, { follow: true });
  const onB = savedWith(onA, B, { view: other, selected: 2 }, { follow: false });
  assert.deepEqual(savedForTrace(onB, B, 'time', 20), { view: other, selected: 2 });
  assert.deepEqual(savedForTrace(onB, A, 'time', 20), { view, selected: 7 }, 'A, shown before B, is kept');
  assert.equal(onB.follow, false);
  const backOnA = savedWith(onB, A, { view, selected: 9 }, { follow: false });
  assert.deepEqual(Object.keys(backOnA.earlier ?? {}), [B], 'the shown trace is not among the earlier ones');
  assert.deepEqual(savedForTrace(backOnA, A, 'time', 20), { view, selected: 9 });
});

test(`at most ${EARLIER_KEPT} earlier traces are kept, the oldest goes first; an odd saved value restores nothing`, () => {
  let state: SavedState | undefined;
  for (let i = 0; i <= EARLIER_KEPT + 2; i++) state = savedWith(state, `file:///t/${i}.jsonl`, { view, selected: i }, { follow: true });
  assert.equal(Object.keys(state!.earlier!).length, EARLIER_KEPT);
  assert.deepEqual(savedForTrace(state, 'file:///t/0.jsonl', 'time', 99), {}, 'the oldest is gone');
  assert.deepEqual(savedForTrace(state, 'file:///t/2.jsonl', 'time', 99), { view, selected: 2 });
  assert.deepEqual(savedForTrace(readSaved({ uri: A, follow: true, earlier: { [B]: { selected: 'x' } } }), B, 'time', 20), {});
  assert.deepEqual(savedForTrace(readSaved({ uri: A, follow: true, earlier: {} }), 'toString', 'time', 20), {});
});
