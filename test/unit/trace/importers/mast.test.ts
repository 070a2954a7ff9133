import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../../src/analysis';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { MAST_FAILURE_MODES } from '../../../../src/trace/importers/mast';
import { originOfId, LineIndex, type Range } from '../../../../src/trace/model';
import { traceStats } from '../../../../src/trace/stats';
import { fixture } from '../../helpers';

function slice(text: string, range: Range): string {
  const lines = new LineIndex(text);
  return text.slice(lines.lineStart(range.start.line) + range.start.character, lines.lineStart(range.end.line) + range.end.character);
}

/** The log entries of a ChatDev log, split independently of the importer. */
function chatDevEntries(log: string): string[] {
  return log.split(/(?=^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [A-Z]+\] )/m).filter((s) => s.startsWith('[')).map((s) => s.trimEnd());
}

const CHATDEV = ['ChatDev_MAD_records', 'trace_0_ChatDev.json'];
const AG2 = ['AG2_early_human_annotated', 'AG2_trace2.json'];

test('MAST ChatDev record: lanes, phases as delegates, messages, tool calls, stops and reasons', () => {
  const text = fixture('mast', ...CHATDEV);
  const loaded = loadTrace(text, 'record.json');
  assert.equal(loaded.format, 'mast');
  assert.deepEqual(loaded.problems, []);
  const s = traceStats(loaded);
  assert.deepEqual(s.agents, ['ChatChain', 'Chief Executive Officer', 'Chief Product Officer', 'Chief Technology Officer', 'Programmer', 'Code Reviewer', 'Software Test Engineer', 'Counselor']);
  assert.deepEqual(s.by_type, { delegate: 12, message: 26, stop: 13, return: 12, tool_call: 5, orchestrator_decision: 8, tool_result: 1 });
  const reasons = (scope: string) => loaded.trace.events.filter((e) => e.type === 'stop' && e.scope === scope).map((e) => `${e.id} ${e.reason} ${e.decided_by}`);
  assert.deepEqual(reasons('phase'), [
    'L16.stop task_complete Chief Executive Officer', // DemandAnalysis: "<INFO> Application"
    'L29.stop task_complete Chief Technology Officer', // LanguageChoose: "<INFO> Python"
    'L44.stop max_turns chat_turn_limit', // Coding: 1 turn, chat_turn_limit 1
    'L67.stop task_complete Code Reviewer', // "<INFO> Finished"
    'L84.stop max_turns chat_turn_limit',
    'L103.stop task_complete Code Reviewer',
    'L120.stop max_turns chat_turn_limit',
    'L135.stop task_complete Code Reviewer',
    'L152.stop max_turns chat_turn_limit',
    'L184.stop max_turns chat_turn_limit', // Reflection (nested in EnvironmentDoc)
    'L186.stop max_turns chat_turn_limit', // EnvironmentDoc
    'L201.stop max_turns chat_turn_limit', // Manual
  ]);
  assert.deepEqual(reasons('run'), ['L203 task_complete ChatChain']);
  const delegates = loaded.trace.events.filter((e) => e.type === 'delegate');
  assert.deepEqual(delegates.map((e) => `${e.phase}/${e.chat_turn_limit}`), [
    'DemandAnalysis/10', 'LanguageChoose/10', 'Coding/1', 'CodeReviewComment/1', 'CodeReviewModification/1', 'CodeReviewComment/1',
    'CodeReviewModification/1', 'CodeReviewComment/1', 'CodeReviewModification/1', 'EnvironmentDoc/1', 'Reflection/1', 'Manual/1',
  ]);
  // Tokens: one usage block per logged turn; their sum is ChatDev's own total.
  const meta = loaded.trace.metadata as Record<string, any>;
  assert.equal(s.costs.event_tokens, 10558);
  assert.equal(meta.chatdev.post_info.num_total_tokens, 10558);
  assert.equal(loaded.trace.costs?.tokens, 10558);
  assert.equal(loaded.trace.costs?.wall_clock_s, 322);
  assert.deepEqual(s.time, { start: 0, end: 322, span_s: 322 }); // 20:40:53 .. 20:46:15
  assert.equal(loaded.trace.events.find((e) => e.id === 'L14')!.tokens, 505);
  assert.equal(meta.task, 'write a program that generates Fibonacci numbers up to a given number');
  // The echoed system prompt of the receiver is not part of the utterance.
  assert.equal(loaded.trace.events.find((e) => e.id === 'L29')!.content, '<INFO> Python');
});

test('MAST ChatDev record: the labels are trace-level ground truth in metadata', () => {
  const text = fixture('mast', ...CHATDEV);
  const loaded = loadTrace(text, 'record.json');
  const gt = (loaded.trace.metadata as Record<string, any>).ground_truth;
  assert.deepEqual(gt.mast, JSON.parse(text).mast_annotation);
  assert.deepEqual(gt.failure_modes, ['1.1', '2.6', '3.3']);
  assert.deepEqual(gt.failure_mode_names, { '1.1': MAST_FAILURE_MODES['1.1'], '2.6': MAST_FAILURE_MODES['2.6'], '3.3': MAST_FAILURE_MODES['3.3'] });
  assert.equal(gt.level, 'trace');
  assert.equal(loaded.trace.metadata?.mas_name, 'ChatDev');
  assert.equal(loaded.trace.trace_id, 'mast/ChatDev/ProgramDev/5');
});

test('MAST ChatDev record: every event keeps the range of its log entry inside the JSON string', () => {
  const text = fixture('mast', ...CHATDEV);
  const entries = chatDevEntries(JSON.parse(text).trace.trajectory);
  const loaded = loadTrace(text, 'record.json');
  for (const e of loaded.trace.events) {
    const origin = originOfId(loaded, e.id)!;
    assert.equal(Number(/^L(\d+)/.exec(e.id)![1]), origin.record, e.id);
    const raw = slice(text, origin.range);
    assert.equal(JSON.parse(`"${raw}"`), entries[origin.record], e.id);
  }
  assert.equal(entries.length, 205);
});

test('MAST AG2 early record: turns, an executed code block, the boxed answer as stop, early labels', () => {
  const text = fixture('mast', ...AG2);
  const loaded = loadTrace(text, 'AG2_trace2.json');
  assert.equal(loaded.format, 'mast');
  assert.deepEqual(loaded.problems, []);
  const s = traceStats(loaded);
  assert.deepEqual(s.agents, ['mathproxyagent', 'assistant']);
  assert.deepEqual(s.by_type, { message: 7, tool_call: 1, tool_result: 1, stop: 1 });
  // The template in the first prompt ("```python # your code```") is never run: not a tool call.
  assert.deepEqual(loaded.trace.events.filter((e) => e.type === 'tool_call').map((e) => e.id), ['t5.call0']);
  assert.equal(loaded.trace.events.find((e) => e.id === 't6')!.type, 'tool_result');
  assert.deepEqual(s.stops.map((x) => `${x.id} ${x.reason}`), ['t7.stop task_complete']);
  const gt = (loaded.trace.metadata as Record<string, any>).ground_truth;
  assert.equal(Object.keys(gt.early_options).length, 22);
  assert.equal(gt.early_options['Invented content'], true);
  assert.deepEqual(gt.failure_modes, ['3.2', '3.3']); // "No attempt to verify outcome", "Evaluator agent fails to be critical"
  assert.equal(gt.early_mapped['1.3'], false);
  assert.equal(gt.other_data.correct, false);
  // the judged result is the run's outcome (as Who&When's is_correct); the failure-mode labels stay labels
  assert.deepEqual(loaded.trace.metrics, { task_success: 0 });
  const a = analyzeTrace(loaded);
  assert.equal(a.outcome.status, 'failure');
  // the stop ended a run the trace says failed: not "unknown"
  assert.deepEqual(a.findings.filter((f) => f.kind === 'stop').map((f) => f.inline), ['■ task complete · run failed']);
  const raw = JSON.parse(text);
  for (const e of loaded.trace.events) {
    const origin = originOfId(loaded, e.id)!;
    assert.deepEqual(JSON.parse(slice(text, origin.range)), raw.trajectory[origin.record], e.id);
  }
});

test('MAST: a cut-off ChatDev record loads the complete log entries before the cut', () => {
  const text = fixture('mast', ...CHATDEV);
  const cut = text.slice(0, Math.floor(text.length / 2));
  const loaded = loadTrace(cut, 'cut.json');
  assert.equal(loaded.format, 'mast');
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  assert.equal(errors.length, 2);
  assert.match(errors[0].message, /cut off/);
  assert.match(errors[1].message, /trajectory string is cut off/);
  assert.ok(loaded.trace.events.length > 20 && loaded.trace.events.length < 77, String(loaded.trace.events.length));
  const entries = chatDevEntries(JSON.parse(text).trace.trajectory);
  for (const e of loaded.trace.events) {
    const origin = originOfId(loaded, e.id)!;
    assert.equal(JSON.parse(`"${slice(cut, origin.range)}"`), entries[origin.record], e.id);
  }
  assert.equal((loaded.trace.metadata as Record<string, any>).ground_truth, undefined);
});

test('MAST: an AG2 trajectory stored as a JSON string maps each turn to its place in the string', () => {
  const inner = {
    problem_statement: ['What is 6*7?'],
    trajectory: [
      { content: ['Solve: what is 6*7? Use "python".'], role: 'user', name: 'user_proxy' },
      { content: ['```python\nprint(6*7)\n```'], role: 'assistant', name: 'assistant' },
      { content: ['exitcode: 0 (execution succeeded)\nCode output: 42'], role: 'user', name: 'user_proxy' },
      { content: ['The answer is 42. TERMINATE'], role: 'assistant', name: 'assistant' },
    ],
  };
  const record = { mas_name: 'AG2', benchmark_name: 'GSM', trace_id: 7, trace: { key: 'k', index: 7, trajectory: JSON.stringify(inner, null, 1) }, mast_annotation: { '1.3': 1, '3.1': 0, '1.5': 1 } };
  const text = JSON.stringify(record, null, 2);
  const loaded = loadTrace(text, 'r.json');
  // no other_data: no outcome; with one inside the trajectory's JSON (the MAD human-labelled records), its `correct` is the outcome
  assert.equal(loaded.trace.metrics, undefined);
  const judged = JSON.stringify({ ...record, trace: { ...record.trace, trajectory: JSON.stringify({ ...inner, other_data: { correct: true, answer: '42', given: '42' } }, null, 1) } }, null, 2);
  assert.deepEqual(loadTrace(judged, 'r.json').trace.metrics, { task_success: 1 });
  assert.deepEqual(loaded.problems, []);
  assert.deepEqual(loaded.trace.events.map((e) => `${e.id}:${e.type}`), ['t0:message', 't1:message', 't1.call0:tool_call', 't2:tool_result', 't3:message', 't3.stop:stop']);
  for (const e of loaded.trace.events) {
    const origin = originOfId(loaded, e.id)!;
    const innerText = JSON.parse(`"${slice(text, origin.range)}"`);
    assert.deepEqual(JSON.parse(innerText), inner.trajectory[origin.record], e.id);
  }
  const gt = (loaded.trace.metadata as Record<string, any>).ground_truth;
  assert.deepEqual(gt.failure_modes, ['1.3', '1.5']);
  assert.equal(loaded.trace.metadata?.task, 'What is 6*7?');
});

test('MAST: an unknown log format loads as one message with a warning; human annotations vote by majority', () => {
  const record = {
    mas_name: 'OpenManus',
    benchmark_name: 'GAIA',
    round: 'Round 2',
    trace: 'some free-form log\nwithout any known structure\n',
    annotations: [
      { 'failure mode': '1.5 Unaware of stopping conditions', annotator_1: true, annotator_2: true, annotator_3: false },
      { 'failure mode': '3.1 Premature Termination', annotator_1: false, annotator_2: true, annotator_3: false },
      { 'failure mode': '1.3 Step Repetition', annotator_1: true, annotator_2: true, annotator_3: true },
    ],
  };
  const loaded = loadTrace(JSON.stringify(record), 'h.json');
  assert.equal(loaded.trace.events.length, 1);
  assert.equal(loaded.trace.events[0].agent, 'OpenManus');
  assert.deepEqual(loaded.problems.map((p) => p.severity), ['warning']);
  const gt = (loaded.trace.metadata as Record<string, any>).ground_truth;
  assert.deepEqual(gt.mast, { '1.5': 1, '3.1': 0, '1.3': 1 });
  assert.deepEqual(gt.failure_modes, ['1.3', '1.5']);
  assert.equal(loaded.trace.metadata?.record, 'MAD-human');
});
