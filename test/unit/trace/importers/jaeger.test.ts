import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';
import { assertRangesReparse, assertSpansAccounted, byType, sorted } from './span-export-checks';

type Raw = Record<string, any>;
const tag = (s: Raw, key: string) => (s.tags as Raw[]).find((t) => t.key === key)?.value;

test('Jaeger (docs-written GenAI trace): agents, events by type and parents as a raw walk of the file gives them', () => {
  const text = fixture('jaeger', 'agents.jaeger.json');
  const loaded = loadTrace(text, 'agents.json');
  assert.equal(loaded.format, 'jaeger');
  // The separate walk: spans of data[].spans[], their gen_ai.operation.name and CHILD_OF parent.
  const raw: Raw[] = JSON.parse(text).data.flatMap((t: Raw) => t.spans);
  const expect: Record<string, number> = {};
  const add = (k: string) => (expect[k] = (expect[k] ?? 0) + 1);
  for (const s of raw) {
    const op = tag(s, 'gen_ai.operation.name');
    if (op === 'invoke_agent') {
      add('delegate');
      add('return');
    } else if (op === 'execute_tool') {
      add('tool_call');
      add('tool_result');
    } else if (op === 'chat') add('message');
    if (op === 'invoke_agent' && tag(s, 'error')) add('stop');
  }
  add('stop'); // the run's end: its last outermost agent span closing, no reason recorded (span-import.ts finalAgentSpans)
  assert.deepEqual(byType(loaded), sorted(expect));
  const agents = new Set(raw.map((s) => tag(s, 'gen_ai.agent.name')).filter(Boolean));
  for (const a of agents) assert.ok(loaded.trace.events.some((e) => e.agent === a), `lane ${a}`);
  for (const s of raw) {
    const parent = (s.references as Raw[]).find((r) => r.refType === 'CHILD_OF')?.spanID;
    const e = loaded.trace.events.find((x) => x.id === s.spanID);
    if (e) assert.equal(e.parent, parent, `parent of ${s.spanID}`);
  }
  assertSpansAccounted(loaded, 'jaeger', raw.length);
  assertRangesReparse(text, loaded, (r) => r.spanID);
  // Details: the lanes, the failed tool, the FOLLOWS_FROM link, the skipped HTTP span.
  assert.deepEqual([...new Set(loaded.trace.events.map((e) => e.agent))].sort(), ['Coordinator', 'Researcher', 'travel-planner']);
  assert.equal(loaded.trace.events.find((e) => e.id === 'a000000000000007.result')!.error, '535 authentication failed');
  assert.ok(loaded.trace.edges.some((e) => e.type === 'link' && e.src === 'a000000000000007' && e.dst === 'a000000000000003'));
  assert.equal(loaded.trace.events.find((e) => e.id === 'a000000000000003')!.duration_s, 5);
  assert.deepEqual(loaded.problems.map((p) => p.message), ['1 span of 1 kind not shown (no agent, tool, model or step role; children pass through them): POST /v1/chat/completions 1']);
});

test('Jaeger (real file, jaeger model/converter/json/fixtures/ui_01.json): a plain service trace is read, its spans accounted for', () => {
  const text = fixture('jaeger', 'ui_01.json');
  const loaded = loadTrace(text, 'ui_01.json');
  assert.equal(loaded.format, 'jaeger');
  const raw: Raw[] = JSON.parse(text).spans;
  // No GenAI / OpenInference tags: every span is counted as skipped, none lost.
  assertSpansAccounted(loaded, 'jaeger', raw.length);
  assert.equal(loaded.trace.events.length, 0);
  const meta = (loaded.trace.metadata as Raw).jaeger;
  assert.deepEqual(meta.services, ['service-x', 'service-y']);
  assert.deepEqual(meta.skipped_spans, { 'test-general-conversion': 1, 'some-operation': 2, 'reference-test': 1, 'preserveParentID-test': 1 });
  // The repeated span id "2" is reported at the second record.
  const dup = loaded.problems.find((p) => p.message.startsWith('span id 2 appears 2 times'))!;
  assert.equal(dup.range.start.line, text.split('\n').findIndex((l, i) => i > 10 && l.includes('"spanID": "2"')) - 2);
});

test('Jaeger: a cut-off download loads the complete spans with a positioned error', () => {
  const full = fixture('jaeger', 'agents.jaeger.json');
  const cut = full.slice(0, full.indexOf('"spanID": "a000000000000005"'));
  const loaded = loadTrace(cut, 'cut.json');
  assert.equal(loaded.format, 'jaeger');
  assert.equal(loaded.problems[0].severity, 'error');
  assert.match(loaded.problems[0].message, /ends early/);
  assert.ok(loaded.problems.some((p) => p.message === 'span 4 is cut off; skipped'));
  assert.equal(loaded.trace.events.filter((e) => e.type === 'delegate').length, 2);
});
