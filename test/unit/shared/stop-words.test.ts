/** Stop words: a turn's end never reads "task complete" (it is a hand-back, no claim about the task); other stops keep their reason. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endedWords, reasonField, stopReasonWords, turnEndWords } from '../../../src/shared/stop-words';

test('a turn ended with task_complete reads "handed back"; every other stop keeps its reason in words', () => {
  assert.equal(endedWords('turn', 'task_complete'), 'turn ended (handed back)');
  assert.equal(endedWords('turn', 'user_abort'), 'turn ended (user abort)');
  assert.equal(endedWords('phase', 'max_turns'), 'phase ended (max turns)');
  assert.equal(endedWords('phase', 'task_complete'), 'phase ended (done)', "a stage done is no claim about the task");
  assert.equal(endedWords('run', 'task_complete'), 'stopped (task complete)', "a run's stop is the agent's claim, read as such");
  assert.equal(endedWords(undefined, 'error'), 'stopped (error)');
  assert.equal(stopReasonWords('turn', 'budget_exhausted'), 'budget exhausted');
});

test('an unknown reason reads "reason unknown" (a reason the schema does not know loads as unknown: "no reason recorded" would be false)', () => {
  assert.equal(stopReasonWords(undefined, 'unknown'), 'reason unknown');
  assert.equal(endedWords('run', 'unknown'), 'stopped (reason unknown)');
});

test("a field shows a stop's reason in words, with the event's reason value when the words are not just it spelled out", () => {
  assert.equal(reasonField('turn', 'task_complete'), 'handed back (task_complete)');
  assert.equal(reasonField('run', 'task_complete'), 'task complete');
  assert.equal(reasonField(undefined, 'unknown'), 'reason unknown', 'a reason the file spelled otherwise also loads as unknown');
  assert.equal(reasonField('turn', 'user_abort'), 'user abort');
});

test('a turn end reads as a hand-back only when nothing cut it short', () => {
  assert.equal(turnEndWords('task_complete'), 'turn ended: handed back to the user');
  assert.equal(turnEndWords('user_abort'), 'turn ended: the user stopped it');
  assert.equal(turnEndWords('error'), 'turn ended by an error');
});
