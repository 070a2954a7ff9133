/**
 * Which outputs can state a run's answer (src/analysis/answer-statement.ts): a restatement of the
 * task is none, however its case and white space differ from the task's, with a non-ASCII letter
 * or a timestamp in it (the texts the quick test on the raw head cannot judge); an output in the
 * agent's own words is one, though it shares words with the task.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerStatements } from '../../../src/analysis/answer-statement';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { traceOf } from './build';

const TASK = 'Which fund had the lowest percentage increase between May 2019 and May 2024 among the five listed?';

test('a restated task is not the agent\'s own words, whatever its case, white space, accents or timestamps', () => {
  const outputs = [
    `Restating: ${TASK.toUpperCase()}`,
    `We were asked:\n\n${TASK.replace(/ /g, '  \n ')}`,
    `Für alle: ${TASK}`,
    `At 2024-05-01T10:00:00Z the user asked: ${TASK}`,
    TASK.replace(' had ', '\thad\r\n'),
  ];
  const own = ['The lowest percentage increase between May 2019 and May 2024 was FEMKX, at 2.1%.', 'FEMKX'];
  const index = new TraceIndex(
    traceOf([
      { id: 'task', type: 'message', agent: 'human', content: TASK },
      ...outputs.map((content, k) => ({ id: `r${k}`, type: 'message' as const, agent: 'assistant', to: 'human', content })),
      ...own.map((content, k) => ({ id: `o${k}`, type: 'message' as const, agent: 'assistant', to: 'human', content })),
    ]),
  );
  const answers = new AnswerStatements(index);
  assert.deepEqual(
    outputs.map((_, k) => answers.ownWords(k + 1)),
    outputs.map(() => false),
  );
  assert.deepEqual(
    own.map((_, k) => answers.ownWords(outputs.length + 1 + k)),
    own.map(() => true),
  );
  index.free();
});
