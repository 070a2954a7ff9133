import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';
import { assertRangesReparse, assertSpansAccounted, byType, sorted } from './span-export-checks';

type Raw = Record<string, any>;

test('Zipkin v2 (docs-written GenAI trace): agents, events by type and parents as a raw walk of the file gives them', () => {
  const text = fixture('zipkin', 'agents.zipkin.json');
  const loaded = loadTrace(text, 'trace.json');
  assert.equal(loaded.format, 'zipkin');
  const raw: Raw[] = JSON.parse(text);
  const expect: Record<string, number> = {};
  const add = (k: string) => (expect[k] = (expect[k] ?? 0) + 1);
  for (const s of raw) {
    const op = s.tags['gen_ai.operation.name'];
    if (op === 'invoke_agent') {
      add('delegate');
      add('return');
    } else if (op === 'execute_tool') {
      add('tool_call');
      add('tool_result');
    } else if (op === 'chat') add('message');
  }
  add('stop'); // the run's end: its last outermost agent span closing, no reason recorded (span-import.ts finalAgentSpans)
  assert.deepEqual(byType(loaded), sorted(expect));
  for (const a of new Set(raw.map((s) => s.tags['gen_ai.agent.name']).filter(Boolean))) assert.ok(loaded.trace.events.some((e) => e.agent === a), `lane ${a}`);
  for (const s of raw) {
    const e = loaded.trace.events.find((x) => x.id === s.id);
    if (e) assert.equal(e.parent, s.parentId, `parent of ${s.id}`);
  }
  assertSpansAccounted(loaded, 'zipkin', raw.length);
  assertRangesReparse(text, loaded, (r) => r.id);
  const failed = raw.find((s) => s.tags.error)!;
  assert.equal(loaded.trace.events.find((e) => e.id === `${failed.id}.result`)!.error, failed.tags.error);
  assert.equal(loaded.trace.events.find((e) => e.id === 'a000000000000006'), undefined); // the HTTP span: skipped
});

test('Zipkin v2 (real file, openzipkin zipkin-lens/testdata/skew.json): shared ids and skew read, spans accounted for', () => {
  const text = fixture('zipkin', 'skew.json');
  const loaded = loadTrace(text, 'skew.json');
  assert.equal(loaded.format, 'zipkin');
  const raw: Raw[] = JSON.parse(text);
  assertSpansAccounted(loaded, 'zipkin', raw.length);
  const meta = (loaded.trace.metadata as Raw).zipkin;
  assert.deepEqual(meta.services, ['serviceb', 'servicea']);
  assert.deepEqual(meta.skipped_spans, { async: 1, post: 2, get: 1 });
  const messages = loaded.problems.map((p) => p.message);
  assert.ok(messages.includes('span id 74280ae0c10d8062 appears 2 times; this one is "74280ae0c10d8062~1"'));
  assert.ok(messages.some((m) => m.startsWith('clock skew: 2 spans start before their parents (up to 62.3 ms early)')), messages.join('\n'));
});
