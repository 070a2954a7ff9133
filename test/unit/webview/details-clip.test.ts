/** The details pane cuts a long field value (an agent name of thousands of characters) and says how much it left out. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clipField, FIELD_CHARS } from '../../../webview/details';

test('a field value over the limit is cut with the count of what was left out; a short one is whole', () => {
  assert.equal(clipField('researcher'), 'researcher');
  const long = 'a'.repeat(5000);
  const clipped = clipField(long);
  assert.equal(clipped, `${'a'.repeat(FIELD_CHARS)}…(${5000 - FIELD_CHARS} more)`);
  assert.equal(clipField('b'.repeat(FIELD_CHARS)), 'b'.repeat(FIELD_CHARS), 'exactly at the limit: whole');
});
