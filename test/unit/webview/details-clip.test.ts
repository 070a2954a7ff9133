/** The details pane cuts a long field value (an agent name of thousands of characters) and says how much it left out; its analysis row in words. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analysisWords, clipField, FIELD_CHARS } from '../../../webview/details';

test('a field value over the limit is cut with the count of what was left out; a short one is whole', () => {
  assert.equal(clipField('researcher'), 'researcher');
  const long = 'a'.repeat(5000);
  const clipped = clipField(long);
  assert.equal(clipped, `${'a'.repeat(FIELD_CHARS)}…(${5000 - FIELD_CHARS} more)`);
  assert.equal(clipField('b'.repeat(FIELD_CHARS)), 'b'.repeat(FIELD_CHARS), 'exactly at the limit: whole');
});

test("the analysis row of a turn's end says no verdict and leaves how it ended to the reason row (a user's interruption is no hand-back)", () => {
  const words = analysisWords(['turn-end', 'last-stop']);
  assert.match(words, /^turn ended \(the user may go on; no verdict about the task\)/);
  assert.doesNotMatch(words, /hand-back|handed back/);
});
