/** Where a gap's words go on the time axis (webview/axis.ts gapRoom): centred, else beside the gap, else shorter, never on a tick's words. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gapRoom } from '../../../webview/axis';

const LABELS = ['⋯ 44 min 56 s gap', '⋯44 min 56 s⋯'];

test("a gap's words go centred on it when free, else end where it ends, else start where it starts, else shorter, else nowhere", () => {
  const centred = gapRoom(200, 220, 600, [], LABELS)!;
  assert.equal(centred.label, LABELS[0]);
  assert.ok(Math.abs((centred.from + centred.to) / 2 - 210) < 1e-9);
  // a tick's words right after the gap: the words end where the gap ends (left of it)
  const ending = gapRoom(200, 220, 600, [[222, 260]], LABELS)!;
  assert.equal(ending.to, 220);
  // a tick on each side: start where it starts
  const starting = gapRoom(200, 220, 600, [[100, 199]], LABELS)!;
  assert.equal(starting.from, 200);
  // no room for the whole words, room for the short ones
  assert.equal(gapRoom(200, 220, 600, [[0, 160], [260, 600]], LABELS)?.label, LABELS[1]);
  // never outside the axis, never on other words
  assert.equal(gapRoom(5, 15, 60, [], LABELS), undefined);
  assert.equal(gapRoom(200, 220, 600, [[0, 600]], LABELS), undefined);
});
