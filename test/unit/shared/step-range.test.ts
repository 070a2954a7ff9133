/** A step clock's span in words (src/shared/step-range.ts): the steps it runs over, as `otrace summary` and the graph's run summary say it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stepRange } from '../../../src/shared/step-range';

test('a step clock\'s span names its steps, never a count of one fewer than its records', () => {
  assert.equal(stepRange(0, 9), 'steps 0–9');
  assert.equal(stepRange(4, 0), 'step 4');
  assert.equal(stepRange(2.5, 1), 'steps 2.5–3.5');
});
