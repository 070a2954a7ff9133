/**
 * How the run ended (src/analysis/run-summary.ts `lastStop`): the words of an end that records none
 * are its agent's last words, unless a user's prompt came after them and before the end (a turn the
 * user stopped before its answer). The summary reads the prompts its tallies listed; a comparison of
 * runs (`runEnd`) walks the events: both must say the same of any trace.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { analyzeTrace } from '../../../src/analysis';
import { runEnd, runSummary } from '../../../src/analysis/run-summary';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';

const line = (r: object) => JSON.stringify(r);

test("a user's prompt between an agent's last words and a stop that records none takes the words away; one before them, or earlier in time, does not", () => {
  const ended = (rows: object[]) => runSummary(...analysed(rows)).ended?.text;
  const analysed = (rows: object[]) => {
    const loaded = loadTrace(rows.map(line).join('\n'), 'run.otrace.jsonl');
    return [loaded, analyzeTrace(loaded)] as const;
  };
  const said = { id: 'a1', t: 2, type: 'message', agent: 'coder', content: 'Fixed the parser.' };
  const stop = { id: 's', t: 9, type: 'stop', agent: 'coder', reason: 'user_abort' };
  const prompt = (t: number) => ({ id: `u${t}`, t, type: 'message', agent: 'user', content: 'Now add a test.' });
  assert.equal(ended([prompt(1), said, stop]), 'Fixed the parser.');
  assert.equal(ended([said, prompt(3), stop]), '');
  // after the words in the file, but earlier in time: not after them
  assert.equal(ended([said, prompt(1), stop]), 'Fixed the parser.');
  // after the stop in the file: not before the end
  assert.equal(ended([said, stop, prompt(3)]), 'Fixed the parser.');
  // the words come after the stop in the file (earlier in time): every prompt before the stop counts
  assert.equal(ended([prompt(3), stop, said]), '');
  assert.equal(ended([prompt(1), stop, said]), 'Fixed the parser.');
});

test('the summary, reading the prompts its tallies listed, and a comparison of runs, walking the events, say the same end (random turns, times out of order)', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          who: fc.constantFrom('user', 'coder', 'coder', 'reviewer'),
          type: fc.constantFrom('message', 'message', 'return', 'tool_call', 'stop'),
          t: fc.integer({ min: 0, max: 30 }),
          words: fc.boolean(),
          role: fc.option(fc.constantFrom('user', 'assistant'), { freq: 4 }),
        }),
        { minLength: 1, maxLength: 30 },
      ),
      (rows) => {
        const records = rows.map((r, k) =>
          r.type === 'stop'
            ? { id: `e${k}`, t: r.t, type: 'stop', agent: r.who, reason: 'user_abort' }
            : { id: `e${k}`, t: r.t, type: r.type, agent: r.who, ...(r.words ? { content: `words ${k}` } : {}), ...(r.role === null ? {} : { role: r.role }) },
        );
        const loaded = loadTrace(records.map(line).join('\n'), 'run.otrace.jsonl');
        const analysis = analyzeTrace(loaded);
        assert.deepEqual(runSummary(loaded, analysis).ended, runEnd(loaded, analysis).ended);
      },
    ),
    { seed: 65, numRuns: 400 },
  );
});

test("a header's own `task` is the run's task when its metadata records none; `metadata.task` comes first; no recorded task falls back to the first prompt", () => {
  const taskOf = (header: object) => {
    const loaded = loadTrace([header, { id: 'u', t: 0, type: 'message', agent: 'user', content: 'First prompt.' }].map(line).join('\n'), 'run.otrace.jsonl');
    const analysis = analyzeTrace(loaded);
    const summary = runSummary(loaded, analysis).task;
    assert.equal(runEnd(loaded, analysis).task, summary, 'the summary and a comparison of runs say the same task');
    return summary;
  };
  assert.equal(taskOf({ trace_id: 'r', task: 'Fix the flaky test.' }), 'Fix the flaky test.');
  assert.equal(taskOf({ trace_id: 'r', task: { question: 'How many moons?' } }), 'How many moons?');
  assert.equal(taskOf({ trace_id: 'r', task: 'Header task.', metadata: { task: 'Metadata task.' } }), 'Metadata task.');
  assert.equal(taskOf({ trace_id: 'r' }), 'First prompt.');
  assert.equal(taskOf({ trace_id: 'r', task: 42 }), 'First prompt.');
  assert.equal(taskOf({ trace_id: 'r', task: '  ' }), 'First prompt.');
});

test('with no recorded task and no user prompt, what was asked is the first instruction handed to an agent (a delegation), not the reply that came after it', () => {
  const taskOf = (rows: object[]) => {
    const loaded = loadTrace([{ trace_id: 'r' }, ...rows].map(line).join('\n'), 'run.otrace.jsonl');
    const analysis = analyzeTrace(loaded);
    const summary = runSummary(loaded, analysis).task;
    assert.equal(runEnd(loaded, analysis).task, summary, 'the summary and a comparison of runs say the same task');
    return summary;
  };
  const decision = { id: 'e1', t: 0, type: 'orchestrator_decision', agent: 'orchestrator', content: 'Plan the report.' };
  const delegation = { id: 'e2', t: 2, type: 'delegate', agent: 'orchestrator', to: 'planner', content: 'Make a plan for a one-page report.' };
  const reply = { id: 'e3', t: 5, type: 'communicate', agent: 'planner', from: 'planner', to: 'orchestrator', content: '1) find figures 2) draft' };
  assert.equal(taskOf([decision, delegation, reply]), 'Make a plan for a one-page report.');
  // a message before the delegation is still the first thing said
  assert.equal(taskOf([{ ...reply, t: 1 }, delegation]), '1) find figures 2) draft');
  // a user's prompt comes first whatever its time
  assert.equal(taskOf([delegation, reply, { id: 'u', t: 9, type: 'message', agent: 'planner', from: 'user', content: 'Write it.' }]), 'Write it.');
});

test('a run with no stop whose last action is a tool call with no result ended during that call, and its Ended line says so; one whose last action is words does not', async () => {
  const { endedLine } = await import('../../../src/shared/stop-words');
  const endOf = (rows: object[]) => {
    const loaded = loadTrace([{ trace_id: 'r' }, ...rows].map(line).join('\n'), 'run.otrace.jsonl');
    return runSummary(loaded, analyzeTrace(loaded)).ended!;
  };
  const prompt = { id: 'u', t: 0, type: 'message', agent: 'main', from: 'user', content: 'Build and upload.' };
  const said = { id: 'a', t: 1, type: 'message', agent: 'main', content: 'Building now.' };
  const call = { id: 'c', t: 2, type: 'tool_call', agent: 'main', tool: 'Bash', content: 'npm run build' };
  const inCall = endOf([prompt, said, call]);
  assert.equal(inCall.recorded, false);
  assert.equal(inCall.duringCall, true);
  assert.match(endedLine(inCall), /^no stop at its end: it ended during a tool call \(its last action, with no result\); main's last words: Building now\.$/);
  const answered = endOf([prompt, said, call, { id: 'r', t: 3, type: 'tool_result', agent: 'main', content: 'ok', call_id: 'c' }]);
  assert.equal(answered.duringCall, undefined, 'the call got its result');
  assert.match(endedLine(answered), /^no stop at its end: it ends after its last event/);
  assert.equal(endOf([prompt, said]).duringCall, undefined);
});

test("a session the user went on with says how many prompts came after the first and the last one's words; one prompt says none", async () => {
  const { laterPromptsWords } = await import('../../../src/shared/prompt-words');
  const summaryOf = (rows: object[]) => {
    const loaded = loadTrace([{ trace_id: 'r' }, ...rows].map(line).join('\n'), 'run.otrace.jsonl');
    return runSummary(loaded, analyzeTrace(loaded));
  };
  const prompt = (t: number, content: string) => ({ id: `u${t}`, t, type: 'message', agent: 'main', from: 'user', content });
  const said = (t: number) => ({ id: `a${t}`, t, type: 'message', agent: 'main', content: `Done step ${t}.` });
  const session = summaryOf([prompt(0, 'Work on the first task.'), said(1), prompt(2, 'Next one.'), said(3), prompt(4, 'continue   until all are done'), said(5)]);
  assert.equal(session.task, 'Work on the first task.');
  assert.deepEqual(session.later_prompts, { count: 2, last: 'continue until all are done' });
  assert.equal(laterPromptsWords(session.later_prompts!), 'then 2 more prompts; the last: “continue until all are done”');
  assert.equal(laterPromptsWords({ count: 1, last: 'Next one.' }), 'then 1 more prompt: “Next one.”');
  assert.equal(summaryOf([prompt(0, 'Only this.'), said(1)]).later_prompts, undefined);
});

test('prompts counted after the first are those a user or human sent by name, not messages a chat gave the role `user` (AutoGen: every participant but the speaker)', () => {
  const loaded = loadTrace(
    [
      { trace_id: 'r', metadata: { task: 'Find the film.' } },
      { id: 'h0', t: 0, type: 'message', agent: 'Filmography_Expert', role: 'user', content: "Let's start." },
      { id: 'h1', t: 1, type: 'message', agent: 'Computer_terminal', role: 'user', content: 'There is no code to execute.' },
      { id: 'h2', t: 2, type: 'message', agent: 'Ratings_Expert', role: 'user', content: 'TERMINATE' },
    ]
      .map(line)
      .join('\n'),
    'run.otrace.jsonl',
  );
  assert.equal(runSummary(loaded, analyzeTrace(loaded)).later_prompts, undefined);
});
