import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import { tokenTotals } from '../../../../src/trace/tokens';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';
import { assertRangesReparse, assertSpansAccounted, byType, sorted } from './span-export-checks';

type Raw = Record<string, any>;

/** The separate walk: span kinds -> expected events, as the OpenInference kinds say. */
function expected(raw: Raw[], kindOf: (s: Raw) => string): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (k: string) => (out[k] = (out[k] ?? 0) + 1);
  for (const s of raw) {
    const k = kindOf(s);
    if (k === 'AGENT') {
      add('delegate');
      add('return');
      if (s.status_code === 'ERROR') add('stop');
    } else if (k === 'TOOL') {
      add('tool_call');
      add('tool_result');
    } else if (k === 'LLM') add('message');
    else if (k === 'CHAIN') add('orchestrator_decision');
  }
  add('stop'); // the run's end: its last outermost agent span closing, no reason recorded (span-import.ts finalAgentSpans)
  return sorted(out);
}

test('Phoenix JSON Lines with nested attributes (docs-written): agents, events by type and parents from a raw walk', () => {
  const text = fixture('phoenix', 'spans.phoenix.jsonl');
  const loaded = loadTrace(text, 'spans.jsonl');
  assert.equal(loaded.format, 'phoenix');
  const raw: Raw[] = text.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(byType(loaded), expected(raw, (s) => s.span_kind));
  const agents = raw.map((s) => s.attributes.agent?.name).filter(Boolean);
  for (const a of agents) assert.ok(loaded.trace.events.some((e) => e.agent === a), `lane ${a}`);
  for (const s of raw) {
    const e = loaded.trace.events.find((x) => x.id === s.context.span_id);
    if (e) assert.equal(e.parent, s.parent_id ?? undefined, `parent of ${s.context.span_id}`);
  }
  assertSpansAccounted(loaded, 'phoenix', raw.length);
  assertRangesReparse(text, loaded, (r) => (r.context as Raw).span_id);
  // Tokens from llm.token_count.*, the tool's parameters and output, the failed model call.
  const llms = raw.filter((s) => s.span_kind === 'LLM');
  assert.equal(tokenTotals(loaded.trace.events).total, llms.reduce((n, s) => n + s.attributes.llm.token_count.prompt + s.attributes.llm.token_count.completion, 0));
  assert.equal(loaded.trace.events.reduce((n, e) => n + (e.tokens ?? 0), 0), llms.reduce((n, s) => n + s.attributes.llm.token_count.completion, 0));
  const tool = raw.find((s) => s.span_kind === 'TOOL')!;
  const call = loaded.trace.events.find((e) => e.id === tool.context.span_id)!;
  assert.deepEqual([call.tool, call.content, call.agent], [tool.attributes.tool.name, tool.attributes.tool.parameters, 'solver']);
  assert.equal(loaded.trace.events.find((e) => e.id === `${tool.context.span_id}.result`)!.content, tool.attributes.output.value);
  const failed = raw.find((s) => s.status_code === 'ERROR')!;
  assert.equal(loaded.trace.events.find((e) => e.id === failed.context.span_id)!.error, failed.status_message);
});

test('Phoenix spans DataFrame as JSON (flattened columns): the same spans read the same way', () => {
  const text = fixture('phoenix', 'spans-dataframe.phoenix.json');
  const loaded = loadTrace(text, 'df.json');
  assert.equal(loaded.format, 'phoenix');
  const raw: Raw[] = JSON.parse(text);
  assert.deepEqual(byType(loaded), expected(raw, (s) => s.span_kind));
  for (const s of raw) assert.equal(loaded.trace.events.find((e) => e.id === s['context.span_id'])!.parent, s.parent_id ?? undefined);
  // The root CHAIN names no agent and the export no service: its lane is the fallback "agent".
  assert.deepEqual([...new Set(loaded.trace.events.map((e) => e.agent))].sort(), ['agent', ...raw.map((s) => s['attributes.agent.name']).filter(Boolean)].sort());
  assertSpansAccounted(loaded, 'phoenix', raw.length);
  assertRangesReparse(text, loaded, (r) => r['context.span_id']);
  assert.equal(tokenTotals([loaded.trace.events.find((e) => e.id === 'c3')!]).total, 250);
});
