import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { originOfId, LineIndex, type LoadedTrace, type Range } from '../../../../src/trace/model';
import { traceStats } from '../../../../src/trace/stats';
import { fixture } from '../../helpers';

/** The text a range covers. */
function slice(text: string, range: Range): string {
  const lines = new LineIndex(text);
  return text.slice(lines.lineStart(range.start.line) + range.start.character, lines.lineStart(range.end.line) + range.end.character);
}

function load(...parts: string[]): { text: string; loaded: LoadedTrace } {
  const text = fixture('who-and-when', ...parts);
  // A neutral name: the format is found by content.
  return { text, loaded: loadTrace(text, 'log.json') };
}

interface Case {
  file: [string, string];
  lanes: string[];
  delegates: number;
  toolCalls: number;
  toolResults: number;
  messages: number;
  stops: string[];
  mistake: { agent: string; step: number; stepAgent: string };
}

const CASES: Case[] = [
  { file: ['Hand-Crafted', '24.json'], lanes: ['human', 'Orchestrator'], delegates: 0, toolCalls: 0, toolResults: 0, messages: 4, stops: ['h4 task_complete'], mistake: { agent: 'Orchestrator', step: 1, stepAgent: 'Orchestrator' } },
  { file: ['Hand-Crafted', '57.json'], lanes: ['human', 'Orchestrator', 'WebSurfer'], delegates: 4, toolCalls: 0, toolResults: 0, messages: 12, stops: ['h16 timeout'], mistake: { agent: 'WebSurfer', step: 12, stepAgent: 'WebSurfer' } },
  { file: ['Hand-Crafted', '48.json'], lanes: ['human', 'Orchestrator', 'WebSurfer'], delegates: 1, toolCalls: 0, toolResults: 0, messages: 4, stops: ['h4.stop error'], mistake: { agent: 'WebSurfer', step: 4, stepAgent: 'WebSurfer' } },
  { file: ['Hand-Crafted', '9.json'], lanes: ['human', 'Orchestrator', 'WebSurfer', 'Assistant'], delegates: 21, toolCalls: 0, toolResults: 0, messages: 73, stops: ['h94 loop_breaker'], mistake: { agent: 'Orchestrator', step: 25, stepAgent: 'Orchestrator' } },
  { file: ['Hand-Crafted', '12.json'], lanes: ['human', 'Orchestrator', 'WebSurfer', 'Assistant'], delegates: 4, toolCalls: 0, toolResults: 0, messages: 15, stops: ['h19 task_complete'], mistake: { agent: 'Assistant', step: 16, stepAgent: 'Assistant' } },
  { file: ['Algorithm-Generated', '12.json'], lanes: ['MBTA_FranciscoFoxboroLine_Expert', 'Verification_Expert', 'Computer_terminal'], delegates: 0, toolCalls: 2, toolResults: 1, messages: 4, stops: ['h3.stop task_complete', 'h4.stop task_complete'], mistake: { agent: 'Verification_Expert', step: 1, stepAgent: 'Verification_Expert' } },
  { file: ['Algorithm-Generated', '102.json'], lanes: ['Filmography_Expert', 'StreamingAvailability_Expert', 'IMDB_Ratings_Expert', 'Computer_terminal'], delegates: 0, toolCalls: 0, toolResults: 0, messages: 10, stops: ['h8.stop task_complete'], mistake: { agent: 'Filmography_Expert', step: 1, stepAgent: 'Filmography_Expert' } },
  { file: ['Algorithm-Generated', '15.json'], lanes: ['Boggle_Board_Expert', 'Verification_Expert', 'Computer_terminal', 'Dictionary_Expert'], delegates: 0, toolCalls: 4, toolResults: 4, messages: 6, stops: [], mistake: { agent: 'Boggle_Board_Expert', step: 6, stepAgent: 'Verification_Expert' } },
  { file: ['Algorithm-Generated', '96.json'], lanes: ['PopulationData_Expert', 'Data_Retrieval_Expert', 'Computer_terminal'], delegates: 0, toolCalls: 4, toolResults: 4, messages: 6, stops: [], mistake: { agent: 'Data_Retrieval_Expert', step: 1, stepAgent: 'Data_Retrieval_Expert' } },
];

for (const c of CASES) {
  test(`Who&When ${c.file.join('/')}: lanes, delegates, tool calls, stops and reasons`, () => {
    const { text, loaded } = load(...c.file);
    assert.equal(loaded.format, 'who-and-when');
    assert.deepEqual(loaded.problems, []);
    const s = traceStats(loaded);
    assert.deepEqual([...s.agents].sort(), [...c.lanes].sort());
    assert.equal(s.by_type.delegate ?? 0, c.delegates);
    assert.equal(s.tool_calls, c.toolCalls);
    assert.equal(s.by_type.tool_result ?? 0, c.toolResults);
    assert.equal(s.messages, c.messages);
    assert.deepEqual(s.stops.map((x) => `${x.id} ${x.reason}`), c.stops);
    // One primary event per history step, t = the step index.
    const history = JSON.parse(text).history as unknown[];
    assert.equal(loaded.trace.events.filter((e) => /^h\d+$/.test(e.id)).length, history.length);
    assert.equal(loaded.trace.metadata?.subset, c.file[0]);
  });
}

test('Who&When: mistake_step is a 0-based index into history[]; the labels are ground truth in metadata only', () => {
  for (const c of CASES) {
    const { text, loaded } = load(...c.file);
    const raw = JSON.parse(text);
    const gt = loaded.trace.metadata?.ground_truth as Record<string, unknown>;
    assert.equal(gt.mistake_step, Number(raw.mistake_step));
    assert.equal(gt.mistake_step, c.mistake.step);
    assert.equal(gt.mistake_agent, c.mistake.agent);
    assert.equal(gt.mistake_reason, raw.mistake_reason);
    assert.equal(gt.mistake_event, `h${c.mistake.step}`);
    assert.equal(gt.mistake_step_agent, c.mistake.stepAgent);
    const origin = originOfId(loaded, `h${c.mistake.step}`)!;
    assert.equal(origin.record, c.mistake.step);
    assert.deepEqual(JSON.parse(slice(text, origin.range)), raw.history[c.mistake.step]);
    const event = loaded.trace.events.find((e) => e.id === `h${c.mistake.step}`)!;
    assert.equal(event.agent, c.mistake.stepAgent);
    // Nothing of the labels leaks into events.
    for (const e of loaded.trace.events) assert.ok(!Object.keys(e).some((k) => k.startsWith('mistake')), e.id);
    assert.equal(gt.ground_truth, raw.ground_truth);
  }
});

test('Who&When: every event keeps the range of the history record it came from', () => {
  for (const c of CASES) {
    const { text, loaded } = load(...c.file);
    const history = JSON.parse(text).history as unknown[];
    for (const e of loaded.trace.events) {
      const origin = originOfId(loaded, e.id)!;
      assert.equal(Number(/^h(\d+)/.exec(e.id)![1]), origin.record, e.id);
      assert.deepEqual(JSON.parse(slice(text, origin.range)), history[origin.record], `${c.file.join('/')} ${e.id}`);
    }
  }
});

test('Who&When: code blocks run by the terminal are tool calls paired with its result', () => {
  const { loaded } = load('Algorithm-Generated', '12.json');
  const calls = loaded.trace.events.filter((e) => e.type === 'tool_call');
  assert.deepEqual(calls.map((e) => [e.id, e.tool, e.to]), [
    ['h1.call0', 'python', 'Computer_terminal'],
    ['h1.call1', 'python', 'Computer_terminal'],
  ]);
  const result = loaded.trace.events.find((e) => e.type === 'tool_result')!;
  assert.equal(result.id, 'h2');
  assert.equal(result.exit_code, 0);
  assert.deepEqual(
    loaded.trace.edges.filter((x) => x.type === 'return'),
    [
      { src: 'h1.call0', dst: 'h2', type: 'return' },
      { src: 'h1.call1', dst: 'h2', type: 'return' },
    ],
  );
});

test('Who&When: a Magentic-One run through ComputerTerminal, ended by max rounds', () => {
  const log = {
    history: [
      { role: 'human', content: 'What is 2**10?' },
      { role: 'Orchestrator (-> Assistant)', content: 'Write code.' },
      { role: 'Assistant', content: 'Run this:\n```python\nprint(2**10)\n```' },
      { role: 'Orchestrator (-> ComputerTerminal)', content: 'Please run the code.' },
      { role: 'ComputerTerminal', content: 'The script ran, then exited with Unix exit code: 0\nIts output was:\n1024' },
      { role: 'Orchestrator (-> ComputerTerminal)', content: 'Run it again.' },
      { role: 'ComputerTerminal', content: 'No code block detected in the messages. Please provide a markdown-encoded code block to execute.' },
      { role: 'Orchestrator (termination condition)', content: 'Max rounds (30) reached.\nFINAL ANSWER: 1024' },
    ],
    mistake_agent: 'Assistant',
    mistake_step: '2',
    mistake_reason: 'none',
  };
  const loaded = loadTrace(JSON.stringify(log, null, 2), 'x.json');
  assert.deepEqual(loaded.problems, []);
  const types = loaded.trace.events.map((e) => `${e.id}:${e.type}`);
  assert.deepEqual(types, ['h0:message', 'h1:delegate', 'h2:message', 'h2.call0:tool_call', 'h3:delegate', 'h4:tool_result', 'h5:delegate', 'h6:message', 'h7:stop']);
  const stop = loaded.trace.events.find((e) => e.type === 'stop')!;
  assert.equal(stop.reason, 'max_turns');
  assert.equal(stop.final_answer, '1024');
  assert.equal(loaded.trace.events.find((e) => e.id === 'h4')!.exit_code, 0);
  assert.ok(loaded.trace.edges.some((x) => x.src === 'h2.call0' && x.dst === 'h4' && x.type === 'return'));
  assert.ok(loaded.trace.edges.some((x) => x.src === 'h3' && x.dst === 'h4' && x.type === 'message'));
});

test('Who&When: a cut-off log loads the complete turns before the cut, with a positioned error', () => {
  const text = fixture('who-and-when', 'Hand-Crafted', '12.json');
  const history = JSON.parse(text).history as unknown[];
  const cut = text.slice(0, Math.floor(text.length * 0.6));
  const loaded = loadTrace(cut, 'cut.json');
  assert.equal(loaded.format, 'who-and-when');
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  assert.equal(errors.length, 2); // the JSON ends early; the turn it cuts is skipped
  const lastLine = cut.split('\n').length - 1;
  assert.equal(errors[0].range.start.line, lastLine);
  const ids = loaded.trace.events.filter((e) => /^h\d+$/.test(e.id)).map((e) => Number(e.id.slice(1)));
  assert.deepEqual(ids, ids.map((_, i) => i)); // a prefix h0..hk
  assert.ok(ids.length > 5 && ids.length < history.length);
  assert.equal(errors[1].message, `history[${ids.length}] is cut off; skipped`);
  assert.equal(loaded.trace.metadata?.ground_truth, undefined); // the labels follow history in the file
});

test('Who&When: a damaged turn is reported where it is and the turns after it still load', () => {
  const text = fixture('who-and-when', 'Hand-Crafted', '24.json');
  const damaged = text.replace('"role": "Orchestrator (thought)"', '"role" "Orchestrator (thought)"'); // history[1]
  const loaded = loadTrace(damaged, 'x.json');
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  assert.ok(errors.length >= 1);
  const line = damaged.split('\n').findIndex((l) => l.includes('"role" "Orchestrator (thought)"'));
  assert.equal(errors[0].range.start.line, line);
  const ids = loaded.trace.events.map((e) => e.id);
  assert.ok(ids.includes('h0') && !ids.includes('h1') && ids.includes('h4'), ids.join(','));
});

test('Who&When detection is by content: a chat history without its signs is not taken for one', () => {
  const other = { history: [{ role: 'system', content: 'You are a coding agent.' }, { role: 'assistant', content: 'ls' }], info: {} };
  assert.notEqual(loadTrace(JSON.stringify(other), 'anything.json').format, 'who-and-when');
  const labelled = { history: [{ role: 'human', content: 'Hi' }], mistake_agent: 'human', mistake_step: '0', mistake_reason: 'r' };
  assert.equal(loadTrace(JSON.stringify(labelled), 'anything.txt').format, 'who-and-when');
});

test("a Hand-Crafted run (no is_correct) whose final answer is not the dataset's correct answer failed, and says so by the file's words (it read as a run with no outcome, 'no problems found')", () => {
  const { loaded } = load('Hand-Crafted', '12.json');
  assert.deepEqual(loaded.trace.metrics, { task_success: 0 });
  assert.equal(loaded.trace.outcome_source, 'its final answer “5” is not the dataset\'s correct answer “6” (GAIA\'s scorer)');
  // an Algorithm-Generated run names its is_correct
  const ag = load('Algorithm-Generated', '102.json').loaded.trace;
  assert.equal(ag.outcome_source, `is_correct: ${ag.metrics?.task_success === 1}`);
  // the right answer by GAIA's scorer is a success; no final answer printed, or no correct answer in the file: no outcome
  const fixed = (text: string, truth: unknown) => {
    const d = JSON.parse(text) as { ground_truth?: unknown };
    d.ground_truth = truth;
    return loadTrace(JSON.stringify(d), 'log.json').trace;
  };
  const text = fixture('who-and-when', 'Hand-Crafted', '12.json');
  assert.deepEqual(fixed(text, ' 5.0 ').metrics, { task_success: 1 });
  assert.match(fixed(text, '5').outcome_source ?? '', /^its final answer “5” is the dataset's correct answer/);
  assert.equal(fixed(text, undefined).metrics, undefined);
  assert.equal(fixed(text, '').metrics, undefined);
  const noAnswer = JSON.parse(text) as { history: { content: string }[] };
  for (const h of noAnswer.history) h.content = h.content.replace(/FINAL ANSWER:/g, 'answer:');
  assert.equal(loadTrace(JSON.stringify(noAnswer), 'log.json').trace.metrics, undefined);
});
