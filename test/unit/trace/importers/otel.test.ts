import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { originOfId, LineIndex, type LoadedTrace, type Range } from '../../../../src/trace/model';
import { traceStats } from '../../../../src/trace/stats';
import { analyzeTrace } from '../../../../src/analysis';
import { runSummary } from '../../../../src/analysis/run-summary';
import { nodeFileAccess } from '../../../../src/trace/node-files';
import { spanKindOf } from '../../../../src/trace/importers/otel-agent-calls';
import { pairedFiles } from '../../../../src/trace/importers/otel-logs';
import type { FileAccess } from '../../../../src/trace/formats';
import { fixture, fixturePath } from '../../helpers';

function slice(text: string, range: Range): string {
  const lines = new LineIndex(text);
  return text.slice(lines.lineStart(range.start.line) + range.start.character, lines.lineStart(range.end.line) + range.end.character);
}

const event = (loaded: LoadedTrace, id: string) => loaded.trace.events.find((e) => e.id === id)!;

test('OTel GenAI JSON Lines: agents as lanes, spawn, delegate/return, tool calls, stops from finish reasons', () => {
  const loaded = loadTrace(fixture('otel', 'multi-agent.otlp.jsonl'), 'spans.txt');
  assert.equal(loaded.format, 'otel-genai');
  // The plain HTTP span is accounted for in one warning.
  assert.deepEqual(loaded.problems.map((p) => [p.severity, p.message]), [['warning', '1 span of 1 kind not shown (not GenAI / OpenInference operations; children pass through them): POST /v1/chat/completions 1']]);
  const s = traceStats(loaded);
  assert.deepEqual(s.agents, ['travel-planner', 'Coordinator', 'Researcher', 'Writer']);
  assert.deepEqual(s.by_type, { delegate: 3, spawn: 1, message: 4, tool_call: 2, tool_result: 2, return: 3, stop: 3 });
  assert.deepEqual(s.stops.map((x) => `${x.agent} ${x.reason}`), ['Researcher task_complete', 'Writer error', 'Coordinator task_complete']);
  // Tokens of the model calls only (the Researcher's invoke_agent span repeats its children's sum).
  assert.equal(s.tokens.total, 455 + 730 + 1824 + 360);
  assert.equal(s.costs.event_tokens, s.tokens.by_kind.output);
  assert.deepEqual(s.time, { start: 0, end: 9.5, span_s: 9.5 });
  const spawn = event(loaded, 'b2b2b2b2b2b2b2b2');
  assert.deepEqual([spawn.type, spawn.agent, spawn.to], ['spawn', 'Coordinator', 'Researcher']);
  const delegate = event(loaded, 'c3c3c3c3c3c3c3c3');
  assert.deepEqual([delegate.agent, delegate.to, delegate.t, delegate.duration_s], ['Coordinator', 'Researcher', 0.8, 5]);
  const tool = event(loaded, 'e5e5e5e5e5e5e5e5');
  assert.deepEqual([tool.tool, tool.content, tool.duration_s, tool.parent], ['web_search', '{"query": "flights Paris Rome March"}', 1.4, 'c3c3c3c3c3c3c3c3']);
  assert.equal(event(loaded, 'e5e5e5e5e5e5e5e5.result').content, '3 flights found');
  assert.equal(event(loaded, '0909090909090909.result').error, '535 authentication failed');
  assert.equal(event(loaded, 'f6f6f6f6f6f6f6f6').content, 'Cheapest: AZ 331 at 8:05.');
  assert.deepEqual(event(loaded, 'd4d4d4d4d4d4d4d4').finish_reasons, ['tool_calls']);
  assert.equal(event(loaded, 'a1a1a1a1a1a1a1a1').content, 'Plan a weekend in Rome and email me the plan.');
  // Edges: parent span -> child, delegate -> return, tool call -> result, create -> first invocation.
  const has = (src: string, dst: string, type: string) => loaded.trace.edges.some((x) => x.src === src && x.dst === dst && x.type === type);
  assert.ok(has('a1a1a1a1a1a1a1a1', 'c3c3c3c3c3c3c3c3', 'causal'));
  assert.ok(has('c3c3c3c3c3c3c3c3', 'c3c3c3c3c3c3c3c3.return', 'return'));
  assert.ok(has('e5e5e5e5e5e5e5e5', 'e5e5e5e5e5e5e5e5.result', 'return'));
  assert.ok(has('b2b2b2b2b2b2b2b2', 'c3c3c3c3c3c3c3c3', 'spawn'));
  // The plain HTTP span gives no event, and its chat parent stays a leaf.
  assert.deepEqual((loaded.trace.metadata as Record<string, any>).otel.skipped_spans, { 'POST /v1/chat/completions': 1 });
  assert.deepEqual((loaded.trace.metadata as Record<string, any>).otel.agent_ids, { Researcher: 'asst_researcher_01' });
  // Events are in time order (children were exported before their parents).
  const times = loaded.trace.events.map((e) => e.t);
  assert.deepEqual(times, [...times].sort((a, b) => a - b));
});

test('OTel OpenInference document: AGENT, CHAIN, LLM and TOOL spans map the same way', () => {
  const loaded = loadTrace(fixture('otel', 'openinference.otlp.json'), 'oi.json');
  assert.equal(loaded.format, 'otel-genai');
  assert.deepEqual(loaded.problems, []);
  const s = traceStats(loaded);
  assert.deepEqual(s.agents, ['math-crew', 'planner', 'solver']);
  assert.deepEqual(s.by_type, { orchestrator_decision: 1, delegate: 2, message: 2, return: 2, tool_call: 1, tool_result: 1, stop: 1 });
  assert.equal(s.tokens.total, 250 + 312);
  // the run stops where its last agent span (solver, inside the math-crew chain) closes; the export says no reason
  assert.deepEqual(s.stops, [{ id: 'aaaaaaaaaaaaaaa4.stop', reason: 'unknown', agent: 'solver', t: 11.5 }]);
  const call = event(loaded, 'aaaaaaaaaaaaaaa5');
  assert.deepEqual([call.agent, call.tool, call.content], ['solver', 'calculator', '{"expression": "17*23"}']);
  assert.equal(event(loaded, 'aaaaaaaaaaaaaaa4.return').content, '391');
});

test('OTel: every event keeps the range of the span it came from', () => {
  for (const name of ['multi-agent.otlp.jsonl', 'openinference.otlp.json', 'cut-off.otlp.jsonl']) {
    const text = fixture('otel', name);
    const loaded = loadTrace(text, name);
    const ordinals = new Map<string, number>();
    for (const e of loaded.trace.events) {
      if (e.kind === 'missing_parent') continue; // the placeholder points at its first orphan
      const origin = originOfId(loaded, e.id)!;
      const span = JSON.parse(slice(text, origin.range));
      assert.equal(span.spanId, e.id.split('.')[0], `${name} ${e.id}`);
      const seen = ordinals.get(span.spanId);
      if (seen !== undefined) assert.equal(origin.record, seen);
      ordinals.set(span.spanId, origin.record);
    }
  }
  // record = the span's ordinal in the file: line 1 holds spans 0..5, line 2 spans 6..10.
  const loaded = loadTrace(fixture('otel', 'multi-agent.otlp.jsonl'), 'x');
  assert.equal(originOfId(loaded, 'b2b2b2b2b2b2b2b2')!.record, 0);
  assert.equal(originOfId(loaded, 'a1a1a1a1a1a1a1a1')!.record, 10);
  assert.equal(originOfId(loaded, 'a1a1a1a1a1a1a1a1')!.range.start.line, 1);
});

test('OTel: a cut-off JSON Lines file loads the complete spans, with positioned errors', () => {
  const text = fixture('otel', 'cut-off.otlp.jsonl');
  const loaded = loadTrace(text, 'cut.jsonl');
  assert.equal(loaded.format, 'otel-genai');
  const lastLine = text.split('\n')[1];
  assert.deepEqual(
    loaded.problems.map((p) => [p.severity, p.range.start.line, p.range.start.character, p.message.replace(/ \(.*/, '')]),
    [
      ['error', 1, lastLine.length, 'the JSON ends early'],
      ['error', 1, lastLine.lastIndexOf('{"traceId"'), 'span 9 is cut off; skipped'],
      ['warning', 0, 223, '3 spans lost their parent'],
      ['warning', 0, 1741, '1 span of 1 kind not shown'],
    ],
  );
  const s = traceStats(loaded);
  assert.equal(s.events, 15); // span 9 (the Coordinator's chat) is cut, span 10 (the root) lost: a placeholder stands for it
  assert.ok(!loaded.trace.events.some((e) => e.id.startsWith('a1a1a1a1a1a1a1a1') || e.id === '1111111111111111'));
  assert.deepEqual(s.stops.map((x) => `${x.agent} ${x.reason}`), ['Researcher task_complete', 'Writer error']);
});

test('OTel: string and number timestamps give exact seconds; missing start times are reported', () => {
  const span = (id: string, parent: string | undefined, start: unknown, end: unknown) => ({
    traceId: 't1',
    spanId: id,
    parentSpanId: parent,
    name: `chat ${id}`,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.agent.name', value: { stringValue: 'A' } },
      { key: 'gen_ai.usage.input_tokens', value: { intValue: '7' } },
    ],
  });
  const doc = { resourceSpans: [{ scopeSpans: [{ spans: [span('s1', undefined, '1735725600000000001', '1735725600250000001'), span('s2', 's1', 1735725600500000000, 1735725601000000000), span('s3', 's1', undefined, undefined)] }] }] };
  const loaded = loadTrace(JSON.stringify(doc, null, 1), 'd.json');
  assert.deepEqual(loaded.trace.events.map((e) => [e.id, e.t, e.duration_s]), [
    ['s1', 0, 0.25],
    ['s3', 0, undefined],
    ['s2', 0.499999999, 0.5],
  ]);
  assert.deepEqual(loaded.problems.map((p) => [p.severity, p.message]), [
    ['warning', "span s3 has no start time; placed at its parent's start"],
    ['warning', '1 span has no end time (s3): still open when the file was written; duration unknown, no result or return invented'],
    ['info', 'inputs and outputs are not in this file: none of its 3 GenAI spans carries prompts, completions, tool arguments or results (capturing them is opt-in in the OpenTelemetry GenAI conventions; they may be in a logs file of the same export); messages and tool calls are shown without content'],
  ]);
  assert.deepEqual(traceStats(loaded).tokens, { calls: 3, by_kind: { input: 21 }, total: 21 });
});

/** The content the log records of logs-mixed.otlp.jsonl give its spans (make_fixtures.py, section 4). */
function assertLogContent(loaded: LoadedTrace): void {
  const chat = event(loaded, '3b3b3b3b3b3b3b3b');
  assert.equal(chat.input, 'You are a support agent.\nWhere is my order 1042?');
  assert.equal(chat.content, 'lookup_order({"order": 1042})');
  assert.deepEqual(chat.finish_reasons, ['tool_calls']);
  // the tool span records no arguments or result: the model's call and the result fed back to it (by call id) give them
  assert.equal(event(loaded, '3c3c3c3c3c3c3c3c').content, '{"order": 1042}');
  assert.equal(event(loaded, '3c3c3c3c3c3c3c3c.result').content, 'shipped 2025-01-02');
  assert.equal(event(loaded, '3d3d3d3d3d3d3d3d').content, 'Order 1042 shipped on 2 January.');
  assert.equal(event(loaded, '3a3a3a3a3a3a3a3a').state_changes, 1);
  assert.ok(!loaded.problems.some((p) => /inputs and outputs are not in this file/.test(p.message)));
}

test('OTel log records (events as logs) in the same file give their spans content, joined by trace and span id', () => {
  const loaded = loadTrace(fixture('otel', 'logs-mixed.otlp.jsonl'), 'logs-mixed.otlp.jsonl');
  assert.equal(loaded.format, 'otel-genai');
  assertLogContent(loaded);
  const messages = loaded.problems.map((p) => `${p.severity}: ${p.message}`);
  assert.ok(messages.some((m) => /^info: 5 log records are GenAI events joined to their spans by trace and span id \(gen_ai\.system\.message 1, gen_ai\.user\.message 1, gen_ai\.choice 1, gen_ai\.client\.inference\.operation\.details 1, gen_ai\.execution\.state\.changed 1\)/.test(m)), messages.join('\n'));
  assert.ok(messages.includes('warning: 1 GenAI log record names a span not in this file (ffffffffffffffff); not shown'), messages.join('\n'));
  assert.ok(messages.includes('info: 1 record is not spans (log 1); not shown'), messages.join('\n'));
  // the log records' positions: the joined info is at the first of them (line 2)
  assert.equal(loaded.problems.find((p) => p.message.startsWith('5 log records'))!.range.start.line, 1);
});

test('OTel log records in a sibling logs file (traces.jsonl beside logs.jsonl) are read too; the logs file opened alone reads the spans beside it', () => {
  const traces = fixturePath('otel', 'split', 'traces.jsonl');
  const logs = fixturePath('otel', 'split', 'logs.jsonl');
  const fromTraces = loadTrace(fixture('otel', 'split', 'traces.jsonl'), traces, nodeFileAccess);
  assertLogContent(fromTraces);
  assert.ok(fromTraces.problems.some((p) => p.severity === 'info' && p.message.startsWith('log records read from logs.jsonl beside this file') && p.file === undefined), fromTraces.problems.map((p) => p.message).join('\n'));
  const warning = fromTraces.problems.find((p) => p.message.startsWith('1 GenAI log record names a span not in this file'))!;
  assert.equal(warning.file, logs, 'a problem of the logs file names that file');
  const fromLogs = loadTrace(fixture('otel', 'split', 'logs.jsonl'), logs, nodeFileAccess);
  assert.equal(fromLogs.format, 'otel-genai');
  assertLogContent(fromLogs);
  assert.equal(originOfId(fromLogs, '3b3b3b3b3b3b3b3b')!.file, traces, 'the events point at the spans file');
  assert.ok(fromLogs.problems.some((p) => p.message.startsWith('spans read from traces.jsonl beside this file')));
});

test('OTel: an export whose spans carry no content says so once; a logs file without its spans says where they should be', () => {
  const bare = loadTrace(fixture('otel', 'split', 'traces.jsonl'), 'traces.jsonl');
  const notes = bare.problems.filter((p) => /inputs and outputs are not in this file/.test(p.message));
  assert.equal(notes.length, 1);
  assert.equal(notes[0].severity, 'info');
  assert.equal((bare.trace.metadata as Record<string, any>).otel.content, 'not_recorded');
  // files with content say nothing
  assert.ok(!loadTrace(fixture('otel', 'multi-agent.otlp.jsonl'), 'x.jsonl').problems.some((p) => /not in this file: no span/.test(p.message)));
  const logsAlone = loadTrace(fixture('otel', 'split', 'logs.jsonl'), 'logs.jsonl');
  assert.equal(logsAlone.format, 'otel-genai');
  assert.deepEqual(logsAlone.trace.events, []);
  assert.match(logsAlone.problems[0].message, /^this file holds 7 log records \(6 GenAI events\) and no spans; the spans they belong to \(trace 4bf92f3577b34da6a3ce929d0e0e4736\) are in another file/);
});

test("OTel: the task is the user's first prompt (input messages, per-message events, log records), not a model call's output", () => {
  const task = (l: LoadedTrace) => (l.trace.metadata as Record<string, unknown>).task;
  const multi = loadTrace(fixture('otel', 'multi-agent.otlp.jsonl'), 'x.jsonl');
  assert.equal(task(multi), 'Plan a weekend in Rome and email me the plan.');
  assert.equal(runSummary(multi, analyzeTrace(multi)).task, 'Plan a weekend in Rome and email me the plan.');
  assert.equal(task(loadTrace(fixture('otel', 'logs-mixed.otlp.jsonl'), 'x.jsonl')), 'Where is my order 1042?');
  assert.equal(task(loadTrace(fixture('cases', '18-otlp-genai-content-in-span-events.json'), 'x.json')), 'Find me a train from Lyon to Turin on 12 March, arriving before noon.');
  // no user message in the file: no task is made up from a model's output
  assert.equal(task(loadTrace(fixture('copilot', 'agent-debug-log.otlp.json'), 'x.json')), undefined);
});

test('OTel agents calling agents (semantic-conventions-genai): plan, agent as a tool, A2A, remote invoke_agent, a transfer to an agent in another trace', () => {
  const loaded = loadTrace(fixture('otel', 'agent-interactions.otlp.json'), 'agent-interactions.otlp.json');
  const ev = (id: string) => event(loaded, id);
  const hop = (id: string) => [ev(id).type, ev(id).from, ev(id).to];
  // a plan span is the agent's planning step: an orchestrator decision in its lane
  assert.deepEqual([ev('5222222222222222').type, ev('5222222222222222').agent], ['orchestrator_decision', 'planner']);
  assert.deepEqual(ev('5333333333333333').usage, { input: 200, cache_read: 100, cache_write: 200, output: 80 });
  // an agent invoked as a tool (invoke_agent under execute_tool, named by gen_ai.transfer.target.name) is its own lane
  assert.deepEqual(hop('5555555555555555'), ['delegate', 'planner', 'researcher']);
  assert.equal(ev('5666666666666666').agent, 'researcher');
  assert.equal(ev('5555555555555555.return').to, 'planner');
  // A2A: the client span is the call (planner -> refund_agent); the server span and the callee's invoke_agent are its serving side, drawn once
  assert.deepEqual(hop('6000000000000000'), ['delegate', 'planner', 'refund_agent']);
  assert.equal(ev('6000000000000000.return').content, 'No refund is due on this booking.');
  assert.equal(ev('6000000000000000.stop').reason, 'task_complete');
  assert.ok(!loaded.trace.events.some((e) => e.id.startsWith('6111111111111111') || e.id.startsWith('6222222222222222')));
  assert.deepEqual([ev('6333333333333333').agent, ev('6333333333333333').parent], ['refund_agent', '6000000000000000']);
  // a remote invoke_agent (CLIENT) with gen_ai.caller.name; the callee's INTERNAL span is its serving side
  assert.deepEqual(hop('6444444444444444'), ['delegate', 'planner', 'pricing_agent']);
  assert.equal(ev('6444444444444444.return').content, '800 EUR is within budget.');
  assert.ok(!loaded.trace.events.some((e) => e.id.startsWith('6555555555555555')));
  // pass_control: the booker's run (another trace, linked to the transfer) is delegated by the planner
  assert.deepEqual(hop('7000000000000000'), ['delegate', 'planner', 'booker']);
  assert.equal(ev('7000000000000000.return').to, 'planner');
  const has = (src: string, dst: string, type: string) => loaded.trace.edges.some((x) => x.src === src && x.dst === dst && x.type === type);
  assert.ok(has('6666666666666666', '7000000000000000', 'causal'), 'the transfer causes the booker run');
  assert.ok(has('7000000000000000', '6666666666666666', 'link'), 'the span link is drawn');
  assert.equal(ev('5111111111111111').state_changes, 1);
  const messages = loaded.problems.map((p) => `${p.severity}: ${p.message}`);
  assert.deepEqual(messages, [
    'info: 2 traces in this file (a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4, b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5); one graph with a lane group per trace; each trace is analysed on its own',
    'info: 3 spans are the serving side of a remote agent call (an A2A server span, an invoke_agent under an invoke_agent CLIENT or A2A call of the same agent): each call is drawn once, as the caller recorded it',
  ]);
});

test('OTel: a root agent span that links to a span of another trace in the file is called by that span\'s agent; span kinds read in both numberings', () => {
  const doc = JSON.parse(fixture('otel', 'agent-interactions.otlp.json'));
  const transfer = doc.resourceSpans[0].scopeSpans[0].spans.find((s: { spanId: string }) => s.spanId === '6666666666666666');
  transfer.attributes = transfer.attributes.filter((a: { key: string }) => !a.key.startsWith('gen_ai.transfer.'));
  const loaded = loadTrace(JSON.stringify(doc), 'x.json');
  const booker = event(loaded, '7000000000000000');
  assert.deepEqual([booker.from, booker.to], ['planner', 'booker']);
  assert.ok(!loaded.trace.edges.some((e) => e.src === '6666666666666666' && e.dst === '7000000000000000'), 'no handoff: only the link says who started it');
  assert.deepEqual([spanKindOf(3, false), spanKindOf(2, true), spanKindOf('SPAN_KIND_SERVER', false), spanKindOf(1, false), spanKindOf(0, true), spanKindOf(0, false), spanKindOf('x', false)], ['client', 'client', 'server', 'internal', 'internal', undefined, undefined]);
});

test('OTel: the other signal file of an export is found by name only (traces/spans <-> logs, same directory, JSON or JSON Lines)', () => {
  const dir = ['traces.jsonl', 'logs.jsonl', 'otel-spans.json', 'otel-logs.json', 'run1.traces.jsonl', 'run1.logs.jsonl', 'run2.logs.jsonl', 'logs.txt', 'catalogs.jsonl', 'run.jsonl'];
  const files: FileAccess = { readText: () => undefined, list: (d) => (d === '/x' || d === 'C:\\x' ? dir : undefined) };
  assert.deepEqual(pairedFiles('/x/traces.jsonl', files, 'logs'), ['/x/logs.jsonl']);
  assert.deepEqual(pairedFiles('/x/otel-spans.json', files, 'logs'), ['/x/otel-logs.json']);
  assert.deepEqual(pairedFiles('/x/run1.traces.jsonl', files, 'logs'), ['/x/run1.logs.jsonl']);
  assert.deepEqual(pairedFiles('/x/logs.jsonl', files, 'spans'), ['/x/traces.jsonl']);
  assert.deepEqual(pairedFiles('C:\\x\\traces.jsonl', files, 'logs'), ['C:\\x\\logs.jsonl']);
  // no signal word, or the same signal: nothing
  assert.deepEqual(pairedFiles('/x/run.jsonl', files, 'logs'), []);
  assert.deepEqual(pairedFiles('/x/logs.jsonl', files, 'logs'), []);
});
