/** The graph page's saved state (webview/saved-state.ts): a trace's view and selection are restored for its URI only. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSaved, savedForTrace, type SavedState } from '../../../webview/saved-state';

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
