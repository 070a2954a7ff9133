import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';
import { assertRangesReparse, assertSpansAccounted, byType, sorted } from './span-export-checks';

type Raw = Record<string, any>;

test('Agent-observability document (AgentOps-style, docs-written): agents, events by type and parents from a raw walk', () => {
  const text = fixture('agentops', 'trace.agentops.json');
  const loaded = loadTrace(text, 'trace.json');
  assert.equal(loaded.format, 'agentops');
  const raw: Raw[] = JSON.parse(text).spans;
  const kind = (s: Raw) => s.span_attributes.agentops?.span?.kind;
  const expect: Record<string, number> = {};
  const add = (k: string) => (expect[k] = (expect[k] ?? 0) + 1);
  for (const s of raw) {
    const k = kind(s);
    if (k === 'agent') {
      add('delegate');
      add('return');
      if (s.status_code === 'ERROR') add('stop');
    } else if (k === 'tool') {
      add('tool_call');
      add('tool_result');
    } else if (k === 'llm') add('message');
    else if (k === 'workflow' || k === 'task') add('orchestrator_decision');
  }
  add('stop'); // the run's end: its last outermost agent span closing, no reason recorded (span-import.ts finalAgentSpans)
  assert.deepEqual(byType(loaded), sorted(expect));
  const agents = raw.filter((s) => kind(s) === 'agent').map((s) => s.span_attributes.agent.name);
  for (const a of agents) assert.ok(loaded.trace.events.some((e) => e.agent === a && e.type === 'return'), `lane ${a}`);
  for (const s of raw) {
    const e = loaded.trace.events.find((x) => x.id === s.span_id);
    if (e) assert.equal(e.parent, s.parent_span_id ?? undefined, `parent of ${s.span_id}`);
  }
  assertSpansAccounted(loaded, 'agentops', raw.length);
  assertRangesReparse(text, loaded, (r) => r.span_id);
  const failed = raw.find((s) => s.status_code === 'ERROR')!;
  assert.equal(loaded.trace.events.find((e) => e.id === `${failed.span_id}.result`)!.error, failed.status_message);
  const llm = raw.find((s) => kind(s) === 'llm')!;
  const usage = llm.span_attributes.gen_ai.usage;
  // the model call's usage by kind; its own tokens are its output
  const call = loaded.trace.events.find((e) => e.id === llm.span_id)!;
  assert.deepEqual(call.usage, { input: usage.prompt_tokens, output: usage.completion_tokens });
  assert.equal(call.tokens, usage.completion_tokens);
});

test('Agent-observability document with nested child_spans and ISO durations: parents from nesting', () => {
  const doc = {
    trace_id: 't-1',
    spans: [
      { span_id: 'r', span_name: 'CodeAgent.run', timestamp: '2026-03-02T09:00:00Z', duration: 'PT3S', status_code: 'Unset', span_attributes: { 'openinference.span.kind': 'AGENT', 'agent.name': 'manager' },
        child_spans: [
          { span_id: 'l', span_name: 'LiteLLMModel.__call__', timestamp: '2026-03-02T09:00:00.5Z', duration: 'PT1.25S', span_attributes: { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 10, 'llm.token_count.completion': 5 }, child_spans: [] },
          { span_id: 't', span_name: 'SearchTool', timestamp: '2026-03-02T09:00:02Z', duration: 'PT0.5S', status_code: 'Error', status_message: 'timeout', span_attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search' }, child_spans: [] },
        ] },
    ],
  };
  const text = JSON.stringify(doc, null, 2);
  const loaded = loadTrace(text, 'trail.json');
  assert.equal(loaded.format, 'agentops');
  assert.deepEqual(loaded.trace.events.map((e) => [e.id, e.type, e.agent, e.parent, e.t]), [
    ['r', 'delegate', 'user', undefined, 0],
    ['l', 'message', 'manager', 'r', 0.5],
    ['t', 'tool_call', 'manager', 'r', 2],
    ['t.result', 'tool_result', 'manager', 't', 2.5],
    ['r.return', 'return', 'manager', 'r', 3],
    ['r.stop', 'stop', 'manager', 'r', 3], // the run's only agent span closing: its stop, reason unknown
  ]);
  assert.equal(loaded.trace.events.find((e) => e.id === 'l')!.duration_s, 1.25);
  assert.equal(loaded.trace.events.find((e) => e.id === 't.result')!.error, 'timeout');
  assertRangesReparse(text, loaded, (r) => r.span_id);
});
