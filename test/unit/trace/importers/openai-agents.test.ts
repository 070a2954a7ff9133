import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import { tokenTotals } from '../../../../src/trace/tokens';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';
import { assertRangesReparse, assertSpansAccounted, byType, sorted } from './span-export-checks';

type Raw = Record<string, any>;

test('OpenAI Agents SDK JSON Lines (docs-written): agents, handoff as delegation, events by type and parents from a raw walk', () => {
  const text = fixture('openai-agents', 'trace.openai-agents.jsonl');
  const loaded = loadTrace(text, 'trace.jsonl');
  assert.equal(loaded.format, 'openai-agents');
  const records: Raw[] = text.trim().split('\n').map((l) => JSON.parse(l));
  const spans = records.filter((r) => r.object === 'trace.span');
  const expect: Record<string, number> = {};
  const add = (k: string) => (expect[k] = (expect[k] ?? 0) + 1);
  for (const s of spans) {
    const t = s.span_data.type;
    if (t === 'agent') {
      add('delegate');
      if (s.ended_at) add('return');
    } else if (t === 'function') {
      add('tool_call');
      if (s.ended_at) add('tool_result');
    } else if (t === 'generation' || t === 'response') add('message');
    else if (t === 'handoff') add('delegate');
    else if (t === 'guardrail') add('safety_event');
  }
  add('stop'); // the run's end: its last outermost agent span closing, no reason recorded (span-import.ts finalAgentSpans)
  assert.deepEqual(byType(loaded), sorted(expect));
  const agents = spans.filter((s) => s.span_data.type === 'agent').map((s) => s.span_data.name);
  for (const a of agents) assert.ok(loaded.trace.events.some((e) => e.agent === a && e.type === 'return'), `lane ${a}`);
  for (const s of spans) {
    const e = loaded.trace.events.find((x) => x.id === s.id);
    if (e) assert.equal(e.parent, s.parent_id ?? undefined, `parent of ${s.id}`);
  }
  assertSpansAccounted(loaded, 'openai_agents', spans.length);
  assertRangesReparse(text, loaded, (r) => r.id);
  // The handoff: a delegation Triage -> Billing, and Billing's agent span is delegated by Triage.
  const h = spans.find((s) => s.span_data.type === 'handoff')!;
  const hoff = loaded.trace.events.find((e) => e.id === h.id)!;
  assert.deepEqual([hoff.type, hoff.agent, hoff.to], ['delegate', h.span_data.from_agent, h.span_data.to_agent]);
  const billing = spans.find((s) => s.span_data.type === 'agent' && s.span_data.name === h.span_data.to_agent)!;
  const start = loaded.trace.events.find((e) => e.id === billing.id)!;
  assert.deepEqual([start.from, start.to], [h.span_data.from_agent, h.span_data.to_agent]);
  assert.ok(loaded.trace.edges.some((e) => e.src === h.id && e.dst === billing.id && e.type === 'causal'));
  // The first agent is called from the workflow; the failed tool keeps the error; the open call has no result.
  const triage = spans.find((s) => s.span_data.type === 'agent')!;
  assert.equal(loaded.trace.events.find((e) => e.id === triage.id)!.from, records[0].workflow_name);
  const failed = spans.find((s) => s.error)!;
  assert.match(loaded.trace.events.find((e) => e.id === `${failed.id}.result`)!.error as string, new RegExp(failed.span_data.name === 'refund' ? 'card declined' : ''));
  const open = spans.find((s) => !s.ended_at)!;
  assert.equal(loaded.trace.events.find((e) => e.id === open.id)!.call_status, 'no_result');
  const gen = spans.find((s) => s.span_data.type === 'generation')!;
  const call = loaded.trace.events.find((e) => e.id === gen.id)!;
  assert.equal(tokenTotals([call]).total, gen.span_data.usage.input_tokens + gen.span_data.usage.output_tokens);
  assert.equal(call.tokens, gen.span_data.usage.output_tokens);
  assert.deepEqual((loaded.trace.metadata as Raw).openai_agents.skipped_spans, { 'custom audit_log': 1 });
});

test("what was asked is the first model call's prompt (agent spans record no input), and a response's id is no words: it read 'Asked: resp_01'", async () => {
  const { analyzeTrace } = await import('../../../../src/analysis');
  const { runSummary } = await import('../../../../src/analysis/run-summary');
  const loaded = loadTrace(fixture('openai-agents', 'trace.openai-agents.jsonl'), 'trace.openai-agents.jsonl');
  assert.equal(runSummary(loaded, analyzeTrace(loaded)).task, 'I was charged twice');
  const response = loaded.trace.events.find((e) => e.id === 'span_resp0000000000000000001')!;
  assert.equal(response.content, undefined);
  assert.equal((response as { response_id?: unknown }).response_id, 'resp_01');
});
