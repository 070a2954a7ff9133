import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import { tokenTotals } from '../../../../src/trace/tokens';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';
import { assertRangesReparse, assertSpansAccounted, byType, sorted } from './span-export-checks';

type Raw = Record<string, any>;

test('Langfuse trace (docs-written, GET /api/public/traces/{id}): agents, events by type and parents from a raw walk', () => {
  const text = fixture('langfuse', 'trace.langfuse.json');
  const loaded = loadTrace(text, 'trace.json');
  assert.equal(loaded.format, 'langfuse');
  const raw: Raw[] = JSON.parse(text).observations;
  const expect: Record<string, number> = {};
  const add = (k: string) => (expect[k] = (expect[k] ?? 0) + 1);
  for (const o of raw) {
    if (o.type === 'AGENT') {
      add('delegate');
      add('return');
      if (o.level === 'ERROR') add('stop');
    } else if (o.type === 'TOOL') {
      add('tool_call');
      add('tool_result');
    } else if (o.type === 'GENERATION' || o.type === 'EVENT') add('message');
    else if (o.type === 'SPAN') add('orchestrator_decision');
  }
  add('stop'); // the run's end: its last outermost agent span closing, no reason recorded (span-import.ts finalAgentSpans)
  assert.deepEqual(byType(loaded), sorted(expect));
  // Lanes: each AGENT observation's name, plus the trace's name for the root's caller.
  const agents = raw.filter((o) => o.type === 'AGENT').map((o) => o.name);
  assert.deepEqual([...new Set(loaded.trace.events.map((e) => e.agent))].sort(), [...agents, JSON.parse(text).name].sort());
  for (const o of raw) assert.equal(loaded.trace.events.find((e) => e.id === o.id)!.parent, o.parentObservationId ?? undefined, `parent of ${o.id}`);
  // Tools run in the lane of their agent; the failed refund carries its status message.
  const refund = raw.find((o) => o.level === 'ERROR');
  assert.equal(loaded.trace.events.find((e) => e.id === `${refund!.id}.result`)!.error, refund!.statusMessage);
  assert.equal(loaded.trace.events.find((e) => e.id === refund!.id)!.agent, raw.find((o) => o.id === refund!.parentObservationId)!.name);
  const gens = raw.filter((o) => o.type === 'GENERATION');
  assert.equal(tokenTotals(loaded.trace.events).total, gens.reduce((n, o) => n + o.usage.input + o.usage.output, 0));
  assert.equal(loaded.trace.events.reduce((n, e) => n + (e.tokens ?? 0), 0), gens.reduce((n, o) => n + o.usage.output, 0));
  assertSpansAccounted(loaded, 'langfuse', raw.length);
  assertRangesReparse(text, loaded, (r) => r.id);
  assert.deepEqual(loaded.problems, []);
  // Observations come newest first in the file; events are in time order.
  const times = loaded.trace.events.map((e) => e.t);
  assert.deepEqual(times, [...times].sort((a, b) => a - b));
});

test('Langfuse: an observation whose parent is not in the file hangs under a placeholder; a cut-off file keeps the rest', () => {
  const doc = JSON.parse(fixture('langfuse', 'trace.langfuse.json'));
  doc.observations = doc.observations.filter((o: Raw) => o.id !== 'obs-billing');
  const loaded = loadTrace(JSON.stringify(doc, null, 2), 'x.json');
  assert.ok(loaded.trace.events.some((e) => e.id === 'missing:obs-billing' && e.kind === 'missing_parent'));
  assert.ok(loaded.problems.some((p) => p.message.startsWith('3 observations lost their parent (obs-billing')));
  const text = fixture('langfuse', 'trace.langfuse.json');
  const cut = loadTrace(text.slice(0, Math.floor(text.length / 2)), 'cut.json');
  assert.equal(cut.format, 'langfuse');
  assert.match(cut.problems[0].message, /ends early/);
  assert.ok(cut.trace.events.length > 0);
});
