/** A finding in the Problems panel is led by its kind once (it read "verification: verification: the last check…"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kindFirst } from '../../../src/engine/summary';

test("a finding's message is led by its kind once", () => {
  assert.equal(kindFirst('loop', 'repeated tool call ×3'), 'loop: repeated tool call ×3');
  assert.equal(kindFirst('verification', 'verification: the last check failed'), 'verification: the last check failed');
  assert.equal(kindFirst('stop', 'stop (task_complete): premature'), 'stop (task_complete): premature');
  assert.equal(kindFirst('stop', 'no stop at end of trace'), 'stop: no stop at end of trace');
  assert.equal(kindFirst('stop', 'stopped early'), 'stop: stopped early', 'a word that only starts like the kind');
});
