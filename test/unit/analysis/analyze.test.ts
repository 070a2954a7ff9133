import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { loadTrace } from '../../../src/trace/formats';
import { readTraceJson } from '../../../src/trace/read';
import '../../../src/trace/importers';
import { fixture, fixturePath } from '../helpers';

test('the survey example: success, a clean stop at its aggregate, centralized as declared', () => {
  const a = analyzeTrace(readTraceJson(fixture('survey', 'example_trace.json')));
  assert.deepEqual(a.outcome, { status: 'success', value: 1, source: 'metrics.task_success' });
  assert.deepEqual(
    a.stops.map((s) => [s.event, s.reason, s.reason_source, s.finding]),
    [['e8', 'task_complete', 'inferred', 'ok']],
  );
  assert.deepEqual(a.loops, []);
  assert.equal(a.blame, null);
  assert.equal(a.topology.declared, 'centralized');
  assert.equal(a.topology.guess, 'centralized');
  assert.equal(a.metrics.spawns, 2);
  assert.equal(a.v_stop.available, false);
  assert.equal(a.v_stop.note, 'only a final, trace-level reward: V_stop needs rewards observed over time, so it is not estimated');
  // the final aggregate holds the most credit; every event is on a path to it
  assert.equal(a.credit.events.e8, 0.5);
  assert.ok(Object.values(a.credit.events).every((v) => v > 0));
});

test('ground-truth labels in trace.metadata never change the analysis', () => {
  const text = fixture('who-and-when', 'Algorithm-Generated', '12.json');
  const loaded = loadTrace(text, fixturePath('who-and-when', 'Algorithm-Generated', '12.json'));
  assert.ok(loaded.trace.metadata?.ground_truth, 'the importer keeps labels in metadata');
  const withLabels = JSON.stringify(analyzeTrace(loaded, { outcome: 'failure' }));
  // only the labels go: the task (the user's question) is the run's input, not a label
  const { ground_truth: _labels, ...unlabelled } = loaded.trace.metadata as Record<string, unknown>;
  const stripped = { ...loaded, trace: { ...loaded.trace, metadata: unlabelled } };
  assert.equal(JSON.stringify(analyzeTrace(stripped, { outcome: 'failure' })), withLabels);
});

test('Who&When labels scrambled or removed in the file itself leave the whole analysis unchanged (both subsets); the correct answer judges only the outcome', () => {
  // at the text level, so the importer is covered too: a label that shaped events, lanes or the task would show
  for (const [subset, name] of [['Algorithm-Generated', '12.json'], ['Algorithm-Generated', '96.json'], ['Hand-Crafted', '24.json'], ['Hand-Crafted', '57.json']]) {
    const raw = JSON.parse(fixture('who-and-when', subset, name)) as Record<string, unknown> & { history: unknown[] };
    const file = fixturePath('who-and-when', subset, name);
    const analysis = (o: Record<string, unknown>) => analyzeTrace(loadTrace(JSON.stringify(o, null, 4), file), { outcome: 'failure' });
    const run = (o: Record<string, unknown>) => JSON.stringify(analysis(o));
    const original = run(raw);
    const scrambled = { ...raw, mistake_agent: 'Nobody_Expert', mistake_step: String((Number(raw.mistake_step) + 1) % raw.history.length), mistake_reason: 'WebSurfer 1234 Paris', labels: undefined, mistake_type: undefined };
    const { mistake_agent: _a, mistake_step: _s, mistake_reason: _r, mistake_type: _t, labels: _l, ...stripped } = raw;
    assert.equal(run(scrambled), original, `${subset}/${name} scrambled`);
    assert.equal(run(stripped), original, `${subset}/${name} stripped`);
    // the dataset's correct answer is, like is_correct, the run's outcome (judged by GAIA's scorer: who-and-when.ts), never more:
    // with the outcome given, only what reads the trace's own outcome signal may change (V_stop says whether there is one)
    const { ground_truth: _g, ...noAnswer } = raw;
    const withoutSignal = (o: Record<string, unknown>) => JSON.stringify({ ...analysis(o), v_stop: undefined });
    assert.equal(withoutSignal({ ...raw, ground_truth: '987654 Zebra' }), withoutSignal(raw), `${subset}/${name} another correct answer`);
    assert.equal(withoutSignal(noAnswer), withoutSignal(raw), `${subset}/${name} no correct answer`);
  }
});

test('Who&When (AG2): blame on a failed run names the agent and the step that introduced the answer', () => {
  const file = fixturePath('who-and-when', 'Algorithm-Generated', '12.json');
  const a = analyzeTrace(loadTrace(fixture('who-and-when', 'Algorithm-Generated', '12.json'), file), { outcome: 'failure' });
  assert.deepEqual(
    { agent: a.blame?.agent, record: a.blame?.record, basis: a.blame?.basis },
    { agent: 'Verification_Expert', record: 1, basis: 'evidence' },
  );
  // the log has no clock: its times count steps, and the message says so
  assert.match(a.blame!.message, /^Verification_Expert's message at step 1: /);
  // the file's own outcome (is_correct: false -> metrics.task_success 0) is enough to blame
  const own = analyzeTrace(loadTrace(fixture('who-and-when', 'Algorithm-Generated', '12.json'), file));
  assert.deepEqual([own.outcome.status, own.blame?.agent, own.blame?.record], ['failure', 'Verification_Expert', 1]);
  // without any outcome signal there is no failure to blame
  const loaded = loadTrace(fixture('who-and-when', 'Algorithm-Generated', '12.json'), file);
  delete loaded.trace.metrics;
  assert.equal(analyzeTrace(loaded).blame, null);
});

test('Who&When (Magentic-One): the orchestrator\'s first plan introduced the wrong translation', () => {
  const file = fixturePath('who-and-when', 'Hand-Crafted', '24.json');
  const a = analyzeTrace(loadTrace(fixture('who-and-when', 'Hand-Crafted', '24.json'), file), { outcome: 'failure' });
  assert.equal(a.blame?.agent, 'Orchestrator');
  assert.equal(a.blame?.record, 1);
  // "Request satisfied" while the run failed: a claim nobody verified (MAST 3.3), not a premature stop
  assert.deepEqual(
    a.stops.map((s) => [s.reason, s.scope, s.finding, s.sound]),
    [['task_complete', 'run', 'ok', false]],
  );
  assert.deepEqual(
    a.verification.map((v) => [v.kind, v.message]),
    [['unverified_claim', "verification: the run's stop claims task_complete but its outcome is a failure (given by the caller): the claim was not verified (MAST 3.3)"]],
  );
  // its mark's sign is its severity's, as Problems shows it: a warning, not an error's ✖
  assert.deepEqual(
    a.findings.filter((f) => f.kind === 'verification').map((f) => [f.severity, f.inline]),
    [['warning', '⚠ done claimed, run failed']],
  );
  assert.equal(a.topology.declared, 'centralized');
});

test('Who&When (AG2): the terminal\'s repeated "no code" echo after TERMINATE is neither a stop nor a loop', () => {
  const file = fixturePath('who-and-when', 'Algorithm-Generated', '102.json');
  const a = analyzeTrace(loadTrace(fixture('who-and-when', 'Algorithm-Generated', '102.json'), file));
  // one stop (TERMINATE): the run failed (is_correct: false), so its claim is an unverified one, not a premature stop
  assert.deepEqual(
    a.stops.map((s) => [s.event, s.scope, s.finding, s.sound]),
    [['h8.stop', 'run', 'ok', false]],
  );
  assert.deepEqual(a.verification.map((v) => [v.kind, v.event]), [['unverified_claim', 'h8.stop']]);
  assert.deepEqual(a.loops, []);
});

test('Codex rollout: the 3 repeated identical tool calls its SOURCE.md counts are imported, and none is a loop: every repeat got a new result', () => {
  const name = 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';
  const loaded = loadTrace(fixture('codex', name), fixturePath('codex', name));
  const calls = new Map<string, number>();
  for (const e of loaded.trace.events) if (e.type === 'tool_call') calls.set(`${e.agent} ${e.tool} ${e.content}`, (calls.get(`${e.agent} ${e.tool} ${e.content}`) ?? 0) + 1);
  assert.deepEqual([...calls.values()].filter((n) => n > 1).sort(), [2, 2, 7]);
  // write_stdin polled a running command seven times and each answer was another one (its
  // redacted output's hash changed); the two re-run commands printed something new too
  const a = analyzeTrace(loaded);
  assert.deepEqual(a.loops.filter((l) => l.kind === 'repeated_tool_call'), []);
  assert.equal(a.topology.guess, 'harness');
});
