/** Stop words: a turn's end never reads "task complete" (it is a hand-back, no claim about the task); other stops keep their reason. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endedWords, stopReasonWords } from '../../../src/shared/stop-words';

test('a turn ended with task_complete reads "handed back"; every other stop keeps its reason in words', () => {
  assert.equal(endedWords('turn', 'task_complete'), 'turn ended (handed back)');
  assert.equal(endedWords('turn', 'user_abort'), 'turn ended (user abort)');
  assert.equal(endedWords('phase', 'max_turns'), 'phase ended (max turns)');
  assert.equal(endedWords('run', 'task_complete'), 'stopped (task complete)', "a run's stop is the agent's claim, read as such");
  assert.equal(endedWords(undefined, 'error'), 'stopped (error)');
  assert.equal(stopReasonWords('turn', 'budget_exhausted'), 'budget exhausted');
});
