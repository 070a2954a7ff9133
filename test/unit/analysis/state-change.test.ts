/**
 * Which tool calls change state (src/analysis/state-change.ts): a change named by the tool, or by
 * its arguments where a command is named; never a word of a code comment or of prose.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { isStateChange } from '../../../src/analysis/state-change';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { traceOf } from './build';

function changes(tool: string, content: string): boolean {
  const index = new TraceIndex(traceOf([{ id: 'c', type: 'tool_call', agent: 'a', tool, content }]));
  try {
    return isStateChange(index, 0);
  } finally {
    index.free();
  }
}

test('a change is a tool that names one, or a command in the arguments: shell, JSON, package managers', () => {
  assert.equal(changes('Edit', '{"file_path": "a.ts"}'), true);
  for (const command of ['rm -rf dist', 'cd app && rm -f a.txt', '{"cmd": "mv a b"}', '["bash", "-lc", "mv a b"]', 'pip install numpy', 'sudo apt-get install -y ffmpeg', '{"command": "create", "path": "a.py"}', 'echo start\nmv a b', 'apply_patch <<EOF'])
    assert.equal(changes('bash', command), true, command);
  assert.equal(changes('bash', 'npm test -- --update'), false, 'a check that names a change word is a check');
});

test('a change word in a code comment or in prose is no change (AG2: "# Define the possible directions to move on the board")', () => {
  for (const code of ['# Representing the Boggle board\n# Define the possible directions to move on the board\ndirections = [(0, 1)]', 'print("please create the file")', 'x = 1  # we insert nothing here'])
    assert.equal(changes('python', code), false, code);
});

test('a run that only computed after its code ran is not "no check after the last change"', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', content: 'find the longest word on the board' },
      { id: 'c1', type: 'tool_call', agent: 'expert', tool: 'python', content: '# Define the possible directions to move on the board\nprint(longest())' },
      { id: 'r1', type: 'tool_result', agent: 'terminal', tool: 'python', content: 'exitcode: 0 (execution succeeded)\nCode output: BRINIEST' },
      { id: 'm', type: 'message', agent: 'expert', content: 'The longest word is BRINIEST.' },
    ]),
  );
  assert.ok(!a.stops.some((s) => s.evidence.some((e) => /no test or check ran after the last change/.test(e))), JSON.stringify(a.stops.map((s) => s.evidence)));
});
