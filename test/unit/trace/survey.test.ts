import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readTraceJson, readTraceJsonl } from '../../../src/trace/read';
import { toOtraceJsonl, toSurvey } from '../../../src/trace/write';
import { fixture } from '../helpers';

test('the survey example loads unchanged, with no problems', () => {
  const text = fixture('survey', 'example_trace.json');
  const loaded = readTraceJson(text);
  assert.deepEqual(loaded.problems, []);
  assert.equal(loaded.format, 'survey-json');
  assert.deepEqual(loaded.trace, JSON.parse(text));
});

test('survey JSON -> otrace JSONL -> survey JSON is deep-equal', () => {
  const original = JSON.parse(fixture('survey', 'example_trace.json'));
  const jsonl = toOtraceJsonl(readTraceJson(JSON.stringify(original)).trace);
  const back = readTraceJsonl(jsonl);
  assert.deepEqual(back.problems, []);
  assert.deepEqual(toSurvey(back.trace), original);
});
