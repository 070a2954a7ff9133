/** An agent named by its kind and task says the kind once (src/shared/agent-words.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kindAndTask } from '../../../src/shared/agent-words';

test('kind: task, unless the task starts with the kind as a word of its own', () => {
  assert.equal(kindAndTask('Explore', 'find the config loader'), 'Explore: find the config loader');
  assert.equal(kindAndTask('Explore', 'Explore existing codebase'), 'Explore existing codebase');
  assert.equal(kindAndTask('Explore', 'explore: the sync code'), 'explore: the sync code', 'without case');
  assert.equal(kindAndTask('Explore', 'Explorer of caves'), 'Explore: Explorer of caves', 'a longer word is another word');
  assert.equal(kindAndTask('general-purpose', 'general-purpose-ish task'), 'general-purpose: general-purpose-ish task');
  assert.equal(kindAndTask('Plan', '  Plan the release'), 'Plan the release');
  assert.equal(kindAndTask('', 'task'), 'task', 'no kind');
});
