import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { runEnd } from '../../../src/analysis/run-summary';
import { traceOf, type EventInput } from './build';

test('premature: the orchestrator stops while a spawned worker still waits on its tool call', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'o1', type: 'orchestrator_decision', agent: 'orch', content: 'plan the work' },
      { id: 's1', type: 'spawn', agent: 'orch', to: 'w' },
      { id: 'w1', type: 'tool_call', agent: 'w', tool: 'search', content: 'query one' },
      { id: 'st', type: 'stop', agent: 'orch', reason: 'task_complete' },
    ]),
  );
  assert.equal(a.stops.length, 1);
  const [s] = a.stops;
  assert.equal(s.event, 'st');
  assert.equal(s.reason, 'task_complete');
  assert.equal(s.reason_source, 'recorded');
  assert.equal(s.finding, 'premature');
  assert.deepEqual(s.open_spawns, ['w']);
  assert.deepEqual(s.wasted, { events: 0, tokens: 0, seconds: 0 });
  assert.ok(a.findings.some((f) => f.kind === 'stop' && f.ids[0] === 'st' && f.severity === 'warning'));
});

test('a worker that handed over its output and went quiet is not an open spawn', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 's1', type: 'spawn', agent: 'orch', to: 'planner' },
      { id: 'p1', type: 'message', agent: 'planner', to: 'orch', content: 'the plan is ready' },
      { id: 'g', type: 'aggregate', agent: 'orch', content: 'combined plan' },
      { id: 'st', type: 'stop', agent: 'orch', reason: 'task_complete' },
    ]),
  );
  assert.equal(a.stops[0].finding, 'ok');
});

test('premature: an edit with no verification after it; a test run after the edit makes it ok', () => {
  const events = [
    { id: 'u', type: 'message' as const, agent: 'user', content: 'fix the bug' },
    { id: 'c1', type: 'tool_call' as const, agent: 'dev', tool: 'Edit', content: 'src/a.ts: replace x with y' },
    { id: 'r1', type: 'tool_result' as const, agent: 'dev', tool: 'Edit', content: 'ok' },
    { id: 'm', type: 'message' as const, agent: 'dev', content: 'fixed it' },
    { id: 'st', type: 'stop' as const, agent: 'dev', reason: 'task_complete' as const },
  ];
  const a = analyzeTrace(traceOf(events));
  assert.equal(a.stops[0].finding, 'premature');
  assert.deepEqual(a.stops[0].evidence, ['no test or check ran after the last change (Edit by dev at t=1 s)']);
  const finding = a.findings.find((f) => f.kind === 'stop')!;
  assert.deepEqual(finding.events, [4, 1], 'the finding frames the stop and the change its evidence names');

  const verified = [...events.slice(0, 3), { id: 't1', type: 'tool_call' as const, agent: 'dev', tool: 'Bash', content: 'npm test' }, { id: 't2', type: 'tool_result' as const, agent: 'dev', tool: 'Bash', content: '12 passing' }, ...events.slice(3)];
  assert.equal(analyzeTrace(traceOf(verified)).stops[0].finding, 'ok');
});

test('premature: the run claims completion though its last test run reported failures in the summary a test runner prints, ran no test, or its tool was not found; a later passing run makes it ok', () => {
  const run = (k: number, summary: string) => [
    { id: `t${k}`, type: 'tool_call' as const, agent: 'dev', tool: 'Bash', content: 'python -m pytest -q' },
    { id: `r${k}`, type: 'tool_result' as const, agent: 'dev', tool: 'Bash', content: `..F...\n${'x'.repeat(k * 10)}\n${summary}` },
  ];
  const start = [
    { id: 'u', type: 'message' as const, agent: 'user', content: 'make the failing test pass' },
    { id: 'c1', type: 'tool_call' as const, agent: 'dev', tool: 'Edit', content: 'src/a.py: replace x with y' },
    { id: 'e1', type: 'tool_result' as const, agent: 'dev', tool: 'Edit', content: 'ok' },
  ];
  const end = [
    { id: 'm', type: 'message' as const, agent: 'dev', content: 'Task complete: the fix is in.' },
    { id: 'st', type: 'stop' as const, agent: 'dev', reason: 'task_complete' as const },
  ];
  for (const summary of ['1 failed, 5 passed in 0.12s', '=================== 1 failed, 5 passed in 0.12s ===================', 'FAILED tests/test_a.py::test_fix - assert 1 == 2', 'Tests:       1 failed, 5 passed, 6 total', '--- FAIL: TestFix (0.00s)', 'test result: FAILED. 5 passed; 1 failed', '  1 failing', '# fail 1', 'FAILED (failures=1)', '1 error in 0.3s', 'no tests ran in 0.01s', 'ERROR: file or directory not found: tests/x.py\n\nno tests ran in 0.00s', 'bash: pytest: command not found', 'zsh: command not found: pytest']) {
    const failing = analyzeTrace(traceOf([...start, ...run(1, summary), ...run(2, summary), ...end]));
    assert.equal(failing.stops[0].finding, 'premature', summary);
    assert.equal(failing.stops[0].sound, false, `${summary}: no check passed`);
    assert.ok(failing.stops[0].evidence.some((e) => e.startsWith('the last check before the run ended failed (Bash result r2)')), `${summary}: ${failing.stops[0].evidence.join(' | ')}`);
  }
  // the same runs, passing in the end: no failure read in "0 failed" or "6 passed"
  for (const summary of ['6 passed in 0.12s', '=================== 6 passed, 0 failed in 0.12s ===================', 'Tests:       6 passed, 6 total', 'ok  \tpkg\t0.01s', '# fail 0']) {
    const passing = analyzeTrace(traceOf([...start, ...run(1, '1 failed, 5 passed in 0.12s'), ...run(2, summary), ...end]));
    assert.equal(passing.stops[0].finding, 'ok', summary);
    assert.equal(passing.stops[0].sound, true, `${summary}: a check passed after the last change`);
  }
});

test('a failing check of nothing the run changed is no premature stop: an agent asked why a test fails runs it, sees it fail and explains it (a Kimi explore sub-agent read premature)', () => {
  const diagnosis = [
    { id: 'u', type: 'message' as const, agent: 'user', content: 'Find out why tests/test_client.py::test_retry fails one run in ten' },
    { id: 'c1', type: 'tool_call' as const, agent: 'dev', tool: 'Shell', content: 'python -m pytest tests/test_client.py -q' },
    { id: 'r1', type: 'tool_result' as const, agent: 'dev', tool: 'Shell', content: '..F\n2 failed, 18 passed in 1.2s' },
    { id: 'm', type: 'message' as const, agent: 'dev', content: 'The retry test is flaky: it sleeps on a real clock and races the server.' },
    { id: 'st', type: 'stop' as const, agent: 'dev', reason: 'task_complete' as const },
  ];
  const a = analyzeTrace(traceOf(diagnosis));
  assert.notEqual(a.stops[0].finding, 'premature', a.stops[0].message);
  assert.ok(!a.stops[0].evidence.some((e) => e.startsWith('the last check before the run ended failed')), a.stops[0].evidence.join(' | '));
  // a check that failed before the run's change is no verdict on the change either: an unverified change (low)
  const editedAfter = [...diagnosis.slice(0, 3), { id: 'e', type: 'tool_call' as const, agent: 'dev', tool: 'Edit', content: 'tests/test_client.py: use a fake clock' }, { id: 'er', type: 'tool_result' as const, agent: 'dev', tool: 'Edit', content: 'ok' }, ...diagnosis.slice(3)];
  const b = analyzeTrace(traceOf(editedAfter));
  assert.ok(!b.stops[0].evidence.some((e) => e.startsWith('the last check before the run ended failed')), b.stops[0].evidence.join(' | '));
});

test('a stop the run went on after is a phase (no verdict); the run\'s stop is sound on a recorded success; V_stop along the timeline', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', content: 'solve it' },
      { id: 'r1', type: 'reward', agent: 'judge', value: 0.4, channel: 'team' },
      { id: 's1', type: 'stop', agent: 'a', reason: 'task_complete' },
      { id: 'm', type: 'message', agent: 'a', content: 'continuing with a better idea' },
      { id: 'r2', type: 'reward', agent: 'judge', value: 1, channel: 'team' },
      { id: 's2', type: 'stop', agent: 'a', reason: 'task_complete' },
    ]),
  );
  assert.deepEqual(
    a.stops.map((s) => [s.event, s.scope, s.finding, s.sound]),
    [
      ['s1', 'phase', 'ok', false],
      ['s2', 'run', 'ok', true],
    ],
  );
  assert.deepEqual(a.outcome, { status: 'success', value: 1, source: 'reward event r2' });
  assert.equal(a.v_stop.available, true);
  assert.equal(a.v_stop.channel, 'team');
  assert.deepEqual(
    a.v_stop.points.map((p) => [p.event, p.stop, p.continue, p.value]),
    [
      ['r1', 0.4, 1, 0.6],
      ['r2', 1, 1, 0],
    ],
  );
  assert.deepEqual(a.best_stop, { event: 'r2', index: 4, basis: 'reward', after: { events: 0, tokens: 0, seconds: 0 } });
});

test('delayed: work after a completion claim, with its events, tokens and seconds', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', t: 0, content: 'compute the sum' },
      { id: 'a1', type: 'message', agent: 'solver', t: 1, duration_s: 1, tokens: 50, content: 'the answer is 10.\nthe task is complete' },
      { id: 'a2', type: 'message', agent: 'solver', t: 10, tokens: 100, content: 'let me double check the numbers again' },
      { id: 'a3', type: 'message', agent: 'critic', t: 20, tokens: 100, content: 'checking the addition once more' },
      { id: 'a4', type: 'message', agent: 'solver', t: 30, tokens: 100, content: 'still looks right to me' },
      { id: 'a5', type: 'message', agent: 'critic', t: 40, tokens: 100, content: 'agreed: the answer is 10' },
      { id: 'st', type: 'stop', agent: 'solver', t: 50, reason: 'task_complete' },
    ]),
  );
  const [s] = a.stops;
  assert.equal(s.finding, 'delayed');
  assert.equal(s.done_at, 'a1');
  assert.equal(s.done_basis, 'completion_claim');
  assert.deepEqual(s.wasted, { events: 4, tokens: 400, seconds: 38 });
  assert.deepEqual(a.loops, []);
});

test('no stop: the trace ends without a stop event', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', content: 'go' },
      { id: 'm1', type: 'message', agent: 'a', content: 'working on it' },
      { id: 'c1', type: 'tool_call', agent: 'a', tool: 'x', content: 'arg one' },
      { id: 'r1', type: 'tool_result', agent: 'a', tool: 'x', content: 'output' },
    ]),
  );
  assert.equal(a.stops.length, 1);
  assert.equal(a.stops[0].event, 'r1');
  assert.equal(a.stops[0].reason, 'unknown');
  assert.equal(a.stops[0].reason_source, 'inferred');
  assert.equal(a.stops[0].finding, 'no_stop');
  assert.deepEqual(a.stops[0].evidence, ['the trace ends without a stop event']);
});

test('a trace with no stop event that records a success ended as meant: its end is sound, never "records no success"', () => {
  const events = [
    { id: 'o', type: 'orchestrator_decision' as const, agent: 'orchestrator', content: 'plan' },
    { id: 'w', type: 'return' as const, agent: 'worker', from: 'worker', to: 'orchestrator', content: 'the answer is 42' },
    { id: 'g', type: 'aggregate' as const, agent: 'orchestrator', content: 'final: 42' },
  ];
  const won = analyzeTrace(traceOf(events, [], { metrics: { task_success: 1 } })).stops[0];
  assert.equal(won.synthetic, true);
  assert.equal(won.finding, 'ok');
  assert.equal(won.sound, true);
  assert.match(won.message, /outcome is a success \(metrics\.task_success\)/);
  assert.doesNotMatch(won.message, /records no success/);
  const unknown = analyzeTrace(traceOf(events)).stops[0];
  assert.equal(unknown.sound, false, 'without a recorded success the end stays unverified');
});

test("a trace still being written has not stopped yet: its end gets no verdict (no 'no stop' error), and a recorded stop is judged as before", () => {
  const events = [
    { id: 'u', type: 'message' as const, agent: 'user', content: 'go' },
    { id: 'm1', type: 'message' as const, agent: 'a', content: 'working on it' },
    { id: 'c1', type: 'tool_call' as const, agent: 'a', tool: 'x', content: 'arg one' },
    { id: 'r1', type: 'tool_result' as const, agent: 'a', tool: 'x', content: 'output' },
  ];
  const running = analyzeTrace(traceOf(events), { inProgress: true });
  assert.equal(running.stops.length, 1);
  assert.equal(running.stops[0].finding, 'ok');
  assert.equal(running.stops[0].message, 'no stop yet: the file is still being written (the run is in progress); no verdict until it ends');
  const f = running.findings.find((x) => x.kind === 'stop')!;
  assert.deepEqual([f.severity, f.inline, f.mode], ['info', '■ no stop yet', 'ok']);
  // the same trace once it is no longer written: never stopped
  assert.equal(analyzeTrace(traceOf(events)).stops[0].finding, 'no_stop');
  // a stop the file records is judged whether the file is written or not
  const stopped = [...events, { id: 'st', type: 'stop' as const, agent: 'a', reason: 'task_complete' as const }];
  assert.deepEqual(analyzeTrace(traceOf(stopped), { inProgress: true }).stops, analyzeTrace(traceOf(stopped)).stops);
});

test('no stop: a max-turns stop that ended a loop the agents never left', () => {
  const turns = [];
  for (let k = 0; k < 3; k++) {
    turns.push({ id: `a${k}`, type: 'message' as const, agent: 'a', to: 'b', tokens: 10, content: 'try again' });
    turns.push({ id: `b${k}`, type: 'message' as const, agent: 'b', to: 'a', tokens: 10, content: 'still failing' });
  }
  const a = analyzeTrace(traceOf([{ id: 'u', type: 'message', agent: 'user', content: 'start' }, ...turns, { id: 'st', type: 'stop', agent: 'a', reason: 'max_turns' }]));
  const [s] = a.stops;
  assert.equal(s.finding, 'no_stop');
  assert.equal(s.reason, 'max_turns');
  assert.equal(s.evidence[0], 'the trace ended inside a loop (ping_pong, 3 repetitions)');
  assert.deepEqual(s.wasted, { events: 4, tokens: 40, seconds: 3 });
  assert.deepEqual(
    a.loops.map((l) => [l.kind, l.unresolved]),
    [['ping_pong', true]],
  );
  assert.ok(a.findings.some((f) => f.kind === 'stop' && f.severity === 'error'));
});

test('ok: a short clean run', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', content: 'add the numbers' },
      { id: 'a', type: 'message', agent: 'solver', content: 'the result: seven' },
      { id: 'st', type: 'stop', agent: 'solver', reason: 'task_complete' },
    ]),
  );
  assert.equal(a.stops[0].finding, 'ok');
  assert.deepEqual(a.stops[0].modes, []);
  assert.equal(a.v_stop.available, false);
  assert.equal(a.v_stop.note, 'no reward signal in the trace: V_stop is not estimated');
});

test('stop reasons are inferred from the last events when not recorded', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', content: 'go' },
      { id: 'm', type: 'message', agent: 'a', content: 'Error: maximum turns reached, stopping' },
    ]),
  );
  assert.equal(a.stops[0].reason, 'max_turns');
  assert.equal(a.stops[0].reason_source, 'inferred');
});

test('a sub-agent stop is judged on its own lane only', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', content: 'find it and finish your part' },
      { id: 's', type: 'spawn', agent: 'main', to: 'sub' },
      { id: 'm1', type: 'message', agent: 'main', content: 'the answer is 42.\nthe task is complete for my part' },
      { id: 'x1', type: 'message', agent: 'sub', content: 'looking' },
      { id: 'm2', type: 'message', agent: 'main', content: 'more main work one' },
      { id: 'm3', type: 'message', agent: 'main', content: 'more main work two' },
      { id: 'm4', type: 'message', agent: 'main', content: 'more main work three' },
      { id: 'ret', type: 'return', agent: 'sub', to: 'main', content: 'found it' },
      { id: 'sst', type: 'stop', agent: 'sub', reason: 'task_complete' },
      { id: 'mst', type: 'stop', agent: 'main', reason: 'task_complete' },
    ]),
  );
  assert.deepEqual(
    a.stops.map((s) => [s.event, s.finding]),
    [
      ['sst', 'ok'],
      ['mst', 'delayed'],
    ],
  );
  assert.equal(a.stops[1].done_at, 'm1');
});

test('a command-line option is not a change: "git commit --amend --no-edit" after a verified edit leaves the stop sound; an unverified edit before it is still premature', () => {
  const commit = { id: 'g', type: 'tool_call' as const, agent: 'dev', tool: 'Bash', content: JSON.stringify({ command: 'git add -f out.css && git commit --amend --no-edit 2>&1' }) };
  const base = [
    { id: 'u', type: 'message' as const, agent: 'user', content: 'fix the bug' },
    { id: 'c1', type: 'tool_call' as const, agent: 'dev', tool: 'Edit', content: 'src/a.ts: replace x with y' },
    { id: 'r1', type: 'tool_result' as const, agent: 'dev', tool: 'Edit', content: 'ok' },
  ];
  const tested = [{ id: 't1', type: 'tool_call' as const, agent: 'dev', tool: 'Bash', content: 'npm test' }, { id: 't2', type: 'tool_result' as const, agent: 'dev', tool: 'Bash', content: '12 passing' }];
  const end = [commit, { id: 'm', type: 'message' as const, agent: 'dev', content: 'fixed and committed' }, { id: 'st', type: 'stop' as const, agent: 'dev', reason: 'task_complete' as const }];
  assert.equal(analyzeTrace(traceOf([...base, ...tested, ...end])).stops[0].finding, 'ok');
  const untested = analyzeTrace(traceOf([...base, ...end])).stops[0];
  assert.equal(untested.finding, 'premature');
  assert.match(untested.evidence[0], /last change \(Edit by dev/);
});

test('a stop that leaves calls running in the background (background_running) is a designed hand-off: never premature; a turn end says so', () => {
  const events = [
    { id: 'o1', type: 'orchestrator_decision' as const, agent: 'orch', content: 'plan the work' },
    { id: 's1', type: 'spawn' as const, agent: 'orch', to: 'w' },
    { id: 'w1', type: 'tool_call' as const, agent: 'w', tool: 'search', content: 'query one' },
  ];
  const run = analyzeTrace(traceOf([...events, { id: 'st', type: 'stop', agent: 'orch', reason: 'task_complete', background_running: ['s1'] }]));
  assert.deepEqual(run.stops.map((s) => [s.event, s.finding]), [['st', 'ok']], 'the same stop without background_running is premature (test above)');
  const turn = analyzeTrace(traceOf([...events, { id: 'st', type: 'stop', agent: 'orch', reason: 'task_complete', scope: 'turn', background_running: ['s1', 'w1'] }]));
  assert.equal(turn.stops[0].message, 'turn ended (handed back) with 2 calls still running in the background: a designed hand-off (the harness reports back when they finish), not a premature stop; no verdict about the task');
});

test('a run ended by an error is said to be one, with its detail, not judged as a decision to stop ("no stop failure found" of a crash)', () => {
  const events = [
    { id: 'm', type: 'message' as const, agent: 'a', content: 'searching' },
    { id: 'st', type: 'stop' as const, agent: 'a', reason: 'error' as const, detail: 'openai.BadRequestError:\n content filter' },
  ];
  const [stop] = analyzeTrace(traceOf(events)).stops;
  assert.equal(stop.message, 'stop (error): the run ended on an error (openai.BadRequestError: content filter), not a decision to stop; whether the task was done is unknown');
  const [limit] = analyzeTrace(traceOf([events[0], { id: 'st', type: 'stop', agent: 'a', reason: 'max_turns' }])).stops;
  assert.match(limit.message, /^stop \(max_turns\): the run reached its turn limit, not a decision to stop/);
});

test('a delayed stop and the best stop say the same work after the peak: a trailing reward (the judge scoring the last draft) adds no seconds', () => {
  const a = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', from: 'user', to: 'writer', content: 'write an essay scoring at least 0.8' },
      { id: 'd1', type: 'message', agent: 'writer', content: 'draft 1 of the essay' },
      { id: 'r1', type: 'reward', agent: 'judge', value: 0.9 },
      { id: 'd2', type: 'message', agent: 'writer', content: 'draft 2 of the essay, polished' },
      { id: 'r2', type: 'reward', agent: 'judge', value: 0.85 },
      { id: 'd3', type: 'message', agent: 'writer', content: 'draft 3 of the essay, more polished' },
      { id: 'r3', type: 'reward', agent: 'judge', value: 0.8 },
      { id: 'd4', type: 'message', agent: 'writer', content: 'draft 4 of the essay, final' },
      { id: 'r4', type: 'reward', agent: 'judge', value: 0.7 },
      { id: 's', type: 'stop', agent: 'writer', reason: 'quality_met' },
    ]),
  );
  const stop = a.stops.at(-1)!;
  assert.equal(stop.finding, 'delayed');
  assert.equal(a.best_stop?.event, 'r1');
  assert.deepEqual(stop.wasted, a.best_stop!.after, 'the same events, tokens and seconds after r1');
  assert.equal(stop.wasted.seconds, 5, 'from r1 (t 2) to the end of the last draft (t 7)');
});

test('a file cut off inside a record holds no end of the run: no best stop placed by "the answer the run ended with", and a loop it ends inside is a warning that says so, not an error', async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { readTraceJsonl } = await import('../../../src/trace/read');
  const { CUT_OFF_END } = await import('../../../src/analysis/stop-verdicts');
  // the demo's first 19 records and half of the 20th: its ping-pong still going, its reward not written
  const lines = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8').split('\n');
  const cut = readTraceJsonl(`${lines.slice(0, 19).join('\n')}\n${lines[19].slice(0, 45)}`);
  const a = analyzeTrace(cut);
  assert.equal(a.stops.at(-1)?.message, CUT_OFF_END);
  assert.equal(a.best_stop, null, JSON.stringify(a.best_stop));
  const unresolved = a.findings.filter((f) => f.kind === 'loop' && /ended inside it/.test(f.message));
  assert.ok(unresolved.length > 0, 'the ping-pong the file ends inside');
  for (const f of unresolved) {
    assert.equal(f.severity, 'warning');
    assert.match(f.message, /the file ends there, not the run: it is cut off; whether the run left the loop is not known\)$/);
  }
  // the whole demo: its end is in the file
  assert.ok(analyzeTrace(readTraceJsonl(lines.join('\n'))).best_stop);
});

test('a stop without a known reason is marked "reason unknown", with no "?" of an inference that found none', async () => {
  const { readTraceJsonl } = await import('../../../src/trace/read');
  const a = analyzeTrace(readTraceJsonl(['{"id":"a","t":0,"type":"message","agent":"x","from":"user","content":"list the files"}', '{"id":"b","t":1,"type":"tool_call","agent":"x","tool":"bash","content":"ls"}', '{"id":"c","t":2,"type":"stop","agent":"x","reason":"unknown"}'].join('\n')));
  const stop = a.findings.find((f) => f.kind === 'stop')!;
  assert.equal(a.stops.at(-1)!.reason_source, 'inferred', 'an unknown reason is inferred (here: none found)');
  assert.match(stop.inline, /^■ stop \(reason unknown\)/);
  assert.doesNotMatch(stop.inline, /\?/);
});

test("a sub-agent's stop at the end of the trace ends the sub-agent's run, not the trace's: a main agent still waiting on its call has no stop (a live Claude Code session read as ended by its sub-agent's 'task complete')", () => {
  const start = [
    { id: 'u', type: 'message' as const, agent: 'main', content: 'explore the codebase and summarise it' },
    { id: 'sp', type: 'spawn' as const, agent: 'main', to: 'explorer' },
    { id: 'd', type: 'delegate' as const, agent: 'main', to: 'explorer', content: 'explore the hooks' },
    { id: 'c', type: 'tool_call' as const, agent: 'explorer', tool: 'Read', content: 'src/hooks.ts' },
    { id: 'r', type: 'tool_result' as const, agent: 'explorer', tool: 'Read', content: 'export function hook() {}' },
    { id: 'ret', type: 'return' as const, agent: 'explorer', to: 'main', content: 'The hooks live in src/hooks.ts.' },
    { id: 'st', type: 'stop' as const, agent: 'explorer', reason: 'task_complete' as const },
  ];
  const endOf = (events: Parameters<typeof traceOf>[0]) => { const loaded = traceOf(events); const a = analyzeTrace(loaded); return { a, ended: runEnd(loaded, a).ended }; };
  const { a: waiting, ended: waitingEnd } = endOf(start);
  assert.deepEqual(waiting.stops.map((s) => [s.event, s.synthetic, s.sub_agent ?? '']), [['ret', true, ''], ['st', false, 'explorer']]);
  assert.equal(waiting.stops[0].finding, 'no_stop', "the trace's run has no stop");
  assert.equal(waitingEnd?.recorded, false, `the run summary's end is no stop: ${JSON.stringify(waitingEnd)}`);
  // the words quoted are the sub-agent's, and say so (they read as the run's last words, unnamed)
  assert.equal(waitingEnd?.text, 'The hooks live in src/hooks.ts.');
  assert.equal(waitingEnd?.speaker, 'explorer');

  // the main agent takes the answer and ends its turn: that stop ends the trace's run
  const { a: done, ended: doneEnd } = endOf([...start, { id: 'm', type: 'message' as const, agent: 'main', content: 'Summary: the hooks live in src/hooks.ts.' }, { id: 'end', type: 'stop' as const, agent: 'main', reason: 'task_complete' as const }]);
  assert.deepEqual(done.stops.map((s) => [s.event, s.synthetic, s.sub_agent ?? '']), [['st', false, 'explorer'], ['end', false, '']]);
  assert.equal(doneEnd?.event, 'end');
  // an orchestrator that stops before its sub-agent's late stop keeps its own stop as the run's end (no work of its own after it)
  const { a: late, ended: lateEnd } = endOf([...start.slice(0, 6), { id: 'end', type: 'stop' as const, agent: 'main', reason: 'task_complete' as const }, { id: 'st', type: 'stop' as const, agent: 'explorer', reason: 'task_complete' as const }]);
  assert.deepEqual(late.stops.map((s) => [s.event, s.synthetic]), [['end', false], ['st', false]]);
  assert.equal(lateEnd?.event, 'end');
});

test("a file holding only the user's prompt so far ends with no agent's words: the prompt is not quoted as its last words", () => {
  const only = traceOf([{ id: 'u', type: 'message', agent: 'user', to: 'coder', content: 'Fix the failing parser tests' }]);
  const ended = runEnd(only, analyzeTrace(only)).ended;
  assert.equal(ended?.recorded, false);
  assert.equal(ended?.text, '', JSON.stringify(ended));
  // once the agent says something, that is quoted
  const answered = traceOf([{ id: 'u', type: 'message', agent: 'user', to: 'coder', content: 'Fix the failing parser tests' }, { id: 'm', type: 'message', agent: 'coder', content: 'Looking at the parser now.' }]);
  assert.equal(runEnd(answered, analyzeTrace(answered)).ended?.text, 'Looking at the parser now.');
});

test('a run a limit stopped while it looped "stopped still looping": never "no stop at stop (max_turns)"', () => {
  const events: Parameters<typeof traceOf>[0] = [{ id: 'u', type: 'message', agent: 'user', to: 'a', content: 'find the fund' }];
  for (let k = 0; k < 5; k++) {
    events.push({ id: `q${k}`, type: 'message', agent: 'a', to: 'b', content: 'Please search for the Fidelity fund ticker again.' });
    events.push({ id: `r${k}`, type: 'message', agent: 'b', to: 'a', content: 'I searched but the page did not load.' });
  }
  events.push({ id: 'end', type: 'stop', agent: 'a', reason: 'max_turns' });
  const stop = analyzeTrace(traceOf(events)).stops.at(-1)!;
  assert.equal(stop.finding, 'no_stop', JSON.stringify(stop));
  assert.match(stop.message, /^still looping at stop \(max_turns\): the trace ended inside a loop/);
});

test('no stop: the trace ends with the root span it opened first still open, however long the run after it', () => {
  const children = Array.from({ length: 40 }, (_, k) => ({ id: `c${k}`, type: 'message' as const, agent: k % 2 ? 'critic' : 'solver', parent: 'root', content: `step ${k}: ${['plan', 'draft', 'check', 'revise', 'note'][k % 5]} part ${k}` }));
  const a = analyzeTrace(traceOf([{ id: 'root', type: 'message', agent: 'solver', open: true, content: 'solve the task' }, ...children]));
  const [end] = a.stops;
  assert.equal(end.finding, 'no_stop');
  assert.match(end.message, /run ended with the root still open/);
});

test('delayed: the work after the done point counts from a tenth of the events up to it (30 events, then 3)', () => {
  const filler = Array.from({ length: 28 }, (_, k) => ({ id: `f${k}`, type: 'message' as const, agent: k % 2 ? 'critic' : 'solver', content: `working on part ${k}: ${['plan', 'draft', 'check', 'revise'][k % 4]} ${k * 7}` }));
  const after: EventInput[] = [
    { id: 'a2', type: 'message', agent: 'solver', content: 'let me double check the numbers again' },
    { id: 'a3', type: 'message', agent: 'critic', content: 'checking the addition once more' },
    { id: 'a4', type: 'message', agent: 'solver', content: 'still looks right to me' },
  ];
  const run = (extra: EventInput[]) => analyzeTrace(traceOf([{ id: 'u', type: 'message', agent: 'user', content: 'compute the sum' }, ...filler, { id: 'a1', type: 'message', agent: 'solver', content: 'the answer is 10.\nthe task is complete' }, ...extra, { id: 'st', type: 'stop', agent: 'solver', reason: 'task_complete' }])).stops[0];
  const at = run(after);
  assert.deepEqual([at.finding, at.done_at, at.wasted.events], ['delayed', 'a1', 3]);
  // two events after: fewer than the fewest counted (3)
  assert.equal(run(after.slice(0, 2)).finding, 'ok');
});
