/** The evidence model of blame: its fit, its scores, and the task statement it starts from. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { blameSteps, findBlame } from '../../../src/analysis/blame';
import { EVIDENCE_FEATURES } from '../../../src/analysis/blame-evidence';
import { fitBlameWeights, scoreSteps, type LabelledRun } from '../../../src/analysis/blame-model';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { traceOf } from './build';

const dims = EVIDENCE_FEATURES.length;
const unit = (k: number) => EVIDENCE_FEATURES.map((_, j) => (j === k ? 1 : 0));
const zero = () => new Array<number>(dims).fill(0);

test('the fit learns the feature that marks the decisive step, and no weight for a feature that never differs', () => {
  const mark = EVIDENCE_FEATURES.indexOf('reports_error');
  const always = EVIDENCE_FEATURES.indexOf('code');
  // 20 runs of 4 steps; the decisive step reports an error in 15 of them; every step has code
  const runs: LabelledRun[] = Array.from({ length: 20 }, (_, r) => {
    const features = [0, 1, 2, 3].map(() => {
      const x = zero();
      x[always] = 1;
      return x;
    });
    const decisive = r % 4;
    if (r < 15) features[decisive][mark] = 1;
    else features[(decisive + 1) % 4][mark] = 1;
    return { features, decisive };
  });
  const w = fitBlameWeights(runs, 0.5);
  assert.ok(w[mark] > 0.5, `reports_error weight ${w[mark]}`);
  assert.ok(Math.abs(w[always]) < 1e-6, `a constant feature gets no weight (${w[always]})`);
  // the fit is a minimum: moving the weight either way lowers the likelihood of the labels
  const nll = (weights: number[]) => runs.reduce((s, run) => s - Math.log(scoreSteps(run.features.map((features, i) => ({ pos: i, agent: 'a', record: i, features, answerFacts: { introduced: 0, of: 0 } })), weights).p[run.decisive]), 0) + 0.5 * weights.reduce((s, v) => s + v * v, 0);
  const at = nll(w);
  for (const d of [-0.05, 0.05]) assert.ok(nll(w.map((v, k) => (k === mark ? v + d : v))) > at);
});

test('scores: step probabilities sum to 1 and an agent’s share is the sum over its steps', () => {
  const steps = [
    { pos: 0, agent: 'planner', record: 0, features: unit(0), answerFacts: { introduced: 0, of: 2 } },
    { pos: 1, agent: 'searcher', record: 1, features: unit(3), answerFacts: { introduced: 2, of: 2 } },
    { pos: 2, agent: 'searcher', record: 2, features: zero(), answerFacts: { introduced: 0, of: 2 } },
  ];
  const w = zero();
  w[3] = 2;
  const s = scoreSteps(steps, w);
  assert.ok(Math.abs(s.p.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.equal(s.best, 1);
  assert.equal(s.agents[0].agent, 'searcher');
  assert.ok(Math.abs(s.agents[0].share - (s.p[1] + s.p[2])) < 1e-12);
  assert.throws(() => scoreSteps([], w), RangeError);
});

test('an agent’s first message that restates the recorded question with a plan is a step; a user prompt is the task', () => {
  const events = [
    { id: 'h0', type: 'message' as const, agent: 'Lyrics_Expert', content: 'Task: what is the last word before the second chorus? Plan: the song is Thriller by Michael Jackson.' },
    { id: 'h1', type: 'message' as const, agent: 'Verification_Expert', content: 'The word is Stare, verified.' },
  ];
  const planned = new TraceIndex(traceOf(events, [], { metadata: { task: { question: 'What is the last word before the second chorus?' } } }));
  assert.deepEqual(blameSteps(planned).map((s) => s.record), [0, 1]);
  const prompted = new TraceIndex(traceOf([{ ...events[0], agent: 'user', from: 'user' }, events[1]], [], { metadata: { task: { question: 'What is the last word before the second chorus?' } } }));
  assert.deepEqual(blameSteps(prompted).map((s) => s.record), [1]);
  const unrecorded = new TraceIndex(traceOf(events));
  assert.deepEqual(blameSteps(unrecorded).map((s) => s.record), [1], 'without a recorded question the first message is the task');
});

test('blame on a failed run names the most likely step and its agent, says how sure it is and why, then each agent\'s share, and never repeats the label "decisive error"', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'q', type: 'message', agent: 'user', from: 'user', content: 'Which river flows through Vienna?' },
      { id: 's1', type: 'message', agent: 'planner', content: 'Plan: ask the searcher, then check.' },
      { id: 's2', type: 'message', agent: 'searcher', content: 'Let us assume it is the Rhine, since I could not search.' },
      { id: 's3', type: 'message', agent: 'checker', content: 'Verified: the Rhine.' },
      { id: 's4', type: 'message', agent: 'planner', content: 'FINAL ANSWER: Rhine' },
    ]),
    { outcome: 'failure' },
  );
  assert.equal(a.blame?.basis, 'evidence');
  assert.equal(a.blame?.event, 's2');
  assert.equal(a.blame?.agent, 'searcher');
  assert.ok(a.blame!.p! > 0 && a.blame!.p! <= 1 && a.blame!.agentShare! >= a.blame!.p!);
  assert.match(a.blame!.message, /most likely of 4 agent steps \(an estimated \d+% chance\): .*(introduced 1 of the final answer's 1 facts|assumes)/);
  assert.equal(a.blame!.message.match(/an estimated (\d+)% chance/)![1], String(Math.round(a.blame!.p! * 100)), 'the chance in words is the p of the JSON');
  assert.doesNotMatch(a.blame!.message, /\bp = /, 'no statistics notation in the message');
  assert.match(a.blame!.message, /^searcher's message at t=2: the most likely of 4 agent steps \(an estimated \d+% chance\): .+\. Share of the blame by agent: searcher \d+%, (planner|checker) \d+%, (planner|checker) \d+%$/);
  assert.doesNotMatch(a.blame!.message, /decisive error/);
  // a hypothesis: a warning whose mark says its chance, the same as the message's
  const finding = a.findings.find((f) => f.kind === 'blame')!;
  assert.equal(finding.severity, 'warning');
  assert.equal(finding.inline, `⚠ most likely decisive error (${Math.round(a.blame!.p! * 100)}%)`);
});

test('a run of 200,000 agent steps is scored (no call-stack overflow) and its probabilities sum to 1', () => {
  const steps = Array.from({ length: 200_000 }, (_, i) => ({ pos: i, agent: `a${i % 3}`, record: i, features: i === 7 ? unit(3) : zero(), answerFacts: { introduced: 0, of: 1 } }));
  const w = zero();
  w[3] = 1;
  const s = scoreSteps(steps, w);
  assert.equal(s.best, 7);
  assert.ok(Math.abs(s.p.reduce((a, b) => a + b, 0) - 1) < 1e-9);
});

test('the blame message gives a reason on the side the step is on: a step that does not verify is never said to verify', () => {
  // only a negative weight on verification: the step that does NOT verify is lifted, and must be said not to
  const weights = EVIDENCE_FEATURES.map((f) => (f === 'verifies' ? -2 : 0));
  const index = new TraceIndex(
    traceOf([
      { id: 'q', type: 'message', agent: 'user', from: 'user', content: 'Which river flows through Vienna?' },
      { id: 's1', type: 'message', agent: 'checker', content: 'I verified the atlas.' },
      { id: 's2', type: 'message', agent: 'searcher', content: 'It is the Rhine.' },
      { id: 's3', type: 'message', agent: 'checker', content: 'Checked again, verified.' },
    ]),
  );
  const b = findBlame(index, { status: 'failure', value: -1, source: 'test' }, { rules: ['evidence'], weights })!;
  assert.equal(b.event, 's2');
  assert.match(b.message, /does not verify/);
  assert.doesNotMatch(b.message, /[:,] verifies\b/);
});

test('a tiny probability is not printed as 0%, and a run of one step says so', () => {
  const many = analyzeTrace(traceOf([{ id: 'q', type: 'message', agent: 'user', from: 'user', content: 'Count.' }, ...Array.from({ length: 20_000 }, (_, i) => ({ id: `s${i}`, type: 'message' as const, agent: `a${i % 3}`, content: `${i}` }))]), { outcome: 'failure' });
  assert.match(many.blame!.message, /an estimated chance under 1%/);
  assert.doesNotMatch(many.blame!.message, /\b0% chance/);
  assert.ok(many.blame!.p! > 0, `p in the JSON is not rounded to 0 (${many.blame!.p})`);
  const one = analyzeTrace(traceOf([{ id: 'q', type: 'message', agent: 'user', from: 'user', content: 'Which?' }, { id: 's', type: 'message', agent: 'x', content: 'Rome.' }]), { outcome: 'failure' });
  assert.match(one.blame!.message, /the only agent step of the run/);
  assert.doesNotMatch(one.blame!.message, /1 agent steps/);
});

test('a tool call without recorded arguments is a step: the wrong figure its result brought is charged to it', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'q', type: 'message', agent: 'user', from: 'user', content: 'In which year did the Berlin Wall fall?' },
      { id: 'c1', type: 'tool_call', agent: 'A', tool: 'search' },
      { id: 'r1', type: 'tool_result', agent: 'search', content: 'It fell in 1999.', causes: ['c1'] },
      { id: 'f', type: 'message', agent: 'B', content: 'FINAL ANSWER: 1999' },
    ]),
    { outcome: 'failure' },
  );
  assert.equal(a.blame?.event, 'c1');
  assert.equal(a.blame?.agent, 'A');
});

test('a final answer of punctuation only is no answer; a task recorded as text is the question', () => {
  const steps = (meta?: Record<string, unknown>) =>
    blameSteps(
      new TraceIndex(
        traceOf(
          [
            { id: 'a', type: 'message', agent: 'Math', content: 'Task: how much is 12 + 10? I think it is 23.' },
            { id: 'b', type: 'message', agent: 'Writer', content: '?!…—.' },
          ],
          [],
          meta ? { metadata: meta } : {},
        ),
      ),
    );
  assert.deepEqual(steps({ task: 'how much is 12 + 10?' }).map((s) => s.record), [0, 1], 'the first message restates the recorded task with a claim: a step');
  assert.deepEqual(steps().map((s) => s.record), [1]);
  // the answer's facts come from Math's claim, not from the punctuation
  const withTask = steps({ task: 'how much is 12 + 10?' });
  assert.equal(withTask[1].answerFacts.of, withTask[0].answerFacts.of);
  assert.ok(withTask[0].answerFacts.introduced > 0, 'Math introduced the answer "23"');
});

test('the error rule blames the call whose result records a failure as data only (is_error, a non-zero exit code, an error status), as it does error words', () => {
  for (const recorded of [{ is_error: true }, { exit_code: 2 }, { error: 'timeout' }, { content: 'Error: permission denied' }]) {
    const index = new TraceIndex(
      traceOf([
        { id: 'q', type: 'message', agent: 'user', from: 'user', content: 'Deploy the site.' },
        { id: 'c1', type: 'tool_call', agent: 'ops', tool: 'bash', content: 'ls' },
        { id: 'r1', type: 'tool_result', agent: 'ops', tool: 'bash', content: 'index.html' },
        { id: 'c2', type: 'tool_call', agent: 'ops', tool: 'bash', content: 'rsync site/ prod:/www' },
        { id: 'r2', type: 'tool_result', agent: 'ops', tool: 'bash', content: 'done', ...recorded } as Parameters<typeof traceOf>[0][number],
        { id: 'm', type: 'message', agent: 'ops', content: 'The site is deployed.' },
      ]),
    );
    const b = findBlame(index, { status: 'failure', value: -1, source: 'test' }, { rules: ['error'] });
    assert.deepEqual([b?.event, b?.basis], ['c2', 'error'], JSON.stringify(recorded));
  }
});
