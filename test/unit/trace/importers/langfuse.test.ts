import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import { tokenTotals } from '../../../../src/trace/tokens';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';
import { analyzeTrace } from '../../../../src/analysis';
import { runSummary } from '../../../../src/analysis/run-summary';
import { finalAnswer } from '../../../../src/analysis/answer';
import { TraceIndex } from '../../../../src/analysis/trace-index';
import { assertRangesReparse, assertSpansAccounted, byType, slice, sorted } from './span-export-checks';

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

const CASE_35 = '35-langfuse-turn-exported-twice.json';

test('Langfuse: the same observations exported twice (new ids, same name, times, input, output, usage) are warned about and counted once', () => {
  const text = fixture('cases', CASE_35);
  const loaded = loadTrace(text, CASE_35);
  const raw: Raw[] = JSON.parse(text).observations;
  const dup = loaded.problems.find((p) => p.message.startsWith('6 observations duplicate 6 others'));
  assert.ok(dup, loaded.problems.map((p) => p.message).join('\n'));
  assert.equal(dup.severity, 'warning');
  // positioned at the first copy in the file (the second observation)
  assert.deepEqual(JSON.parse(slice(text, dup.range)).id, raw[1].id);
  // each observation once: the copies give no event
  const copies = raw.filter((o) => o.id.startsWith('a1c35e0b'));
  assert.equal(copies.length, 6);
  for (const o of copies) assert.ok(!loaded.trace.events.some((e) => e.id.startsWith(o.id)), `no event of the copy ${o.id}`);
  // tokens once: 15,320 + 16,240 + 16,595 = 48,155 (usageDetails total = input + output: the cached part is in the input)
  const totals = tokenTotals(loaded.trace.events);
  assert.equal(totals.total, 48155);
  assert.deepEqual(totals.by_kind, { input: 47600 - 43000, output: 555, cache_read: 43000 });
  assert.deepEqual((loaded.trace.metadata as Raw).langfuse.duplicates, Object.fromEntries(copies.map((o, i) => [o.id, raw[2 * i].id])));
  // no loops invented from the copies
  const a = analyzeTrace(loaded);
  assert.deepEqual(a.findings.filter((f) => f.kind === 'loop'), []);
  // the parent both copies of the turn name is not in the file: one orphan now
  assert.ok(loaded.problems.some((p) => p.message.startsWith('1 observation lost its parent (0000000000000001 not in this file)')));
});

test('Langfuse: a trace exported again under a new trace id (new observation ids) is matched across traces and counted once; without start times only within a trace', () => {
  const doc = JSON.parse(fixture('cases', CASE_35));
  const copyTrace = { ...doc, id: 'c0ffee0000000000000000000000035b', observations: doc.observations.filter((o: Raw) => o.id.startsWith('a1c35e0b')).map((o: Raw) => ({ ...o, traceId: 'c0ffee0000000000000000000000035b' })) };
  const first = { ...doc, observations: doc.observations.filter((o: Raw) => !o.id.startsWith('a1c35e0b')) };
  const loaded = loadTrace(JSON.stringify({ data: [first, copyTrace] }, null, 2), 'two.json');
  assert.equal(loaded.format, 'langfuse');
  const dup = loaded.problems.find((p) => p.message.startsWith('6 observations duplicate 6 others'));
  assert.ok(dup, loaded.problems.map((p) => p.message).join('\n'));
  assert.match(dup.message, /all under another trace id/);
  assert.equal(tokenTotals(loaded.trace.events).total, 48155);
  assert.ok(!loaded.trace.events.some((e) => e.id.startsWith('a1c35e0b')));
  // with no start time nothing pins a copy down: observations of two traces are never folded
  for (const t of [first, copyTrace]) for (const o of t.observations) delete o.startTime;
  const untimed = loadTrace(JSON.stringify({ data: [first, copyTrace] }, null, 2), 'two.json');
  assert.ok(!untimed.problems.some((p) => /duplicate/.test(p.message)), untimed.problems.map((p) => p.message).join('\n'));
});

test("Langfuse: the trace's input is the recorded task (not a model call's output)", () => {
  const loaded = loadTrace(fixture('cases', CASE_35), CASE_35);
  assert.equal((loaded.trace.metadata as Raw).task, 'The nightly export job times out. Find out why.');
  assert.equal(runSummary(loaded, analyzeTrace(loaded)).task, 'The nightly export job times out. Find out why.');
});

test("Langfuse: observations that carry no input or output get the trace's input and output as the task and the final answer, with a warning", () => {
  const doc = JSON.parse(fixture('cases', CASE_35));
  doc.observations = doc.observations.filter((o: Raw) => !o.id.startsWith('a1c35e0b'));
  for (const o of doc.observations) {
    o.input = null;
    o.output = null;
  }
  const loaded = loadTrace(JSON.stringify(doc, null, 2), 'x.json');
  const warning = loaded.problems.find((p) => p.message.startsWith('no observation carries input or output'));
  assert.ok(warning, loaded.problems.map((p) => p.message).join('\n'));
  const root = loaded.trace.events.find((e) => e.id === '7f20d9c81b3e5a11')!;
  assert.equal(root.content, doc.input);
  assert.equal(loaded.trace.events.find((e) => e.id === '7f20d9c81b3e5a11.return')!.content, doc.output);
  assert.equal(runSummary(loaded, analyzeTrace(loaded)).task, doc.input);
  const index = new TraceIndex(loaded);
  const final = finalAnswer(index, 0, index.size - 1);
  assert.equal(loaded.trace.events[final!.pos].id, '7f20d9c81b3e5a11.return');
  // with the observations' own content, nothing is filled in and nothing is said
  const own = loadTrace(fixture('langfuse', 'trace.langfuse.json'), 'trace.json');
  assert.ok(!own.problems.some((p) => p.message.startsWith('no observation carries')));
});

test('Langfuse usage: the cached input is read as part of the input or beside it, as the recorded total says', () => {
  const doc = JSON.parse(fixture('cases', CASE_35));
  doc.observations = doc.observations.filter((o: Raw) => o.id === '7f20d9c81b3e5a11' || o.id === '7f20d9c81b3e5a12');
  const gen = doc.observations[1];
  const usageOf = (details: Raw) => {
    gen.usageDetails = details;
    return tokenTotals(loadTrace(JSON.stringify(doc), 'x.json').trace.events);
  };
  // total = input + output: the cached tokens are part of the input
  assert.deepEqual(usageOf({ input: 15200, output: 120, input_cached_tokens: 12000, total: 15320 }).by_kind, { input: 3200, output: 120, cache_read: 12000 });
  // total = input + output + cached (the Langfuse SDKs' split): beside it
  assert.deepEqual(usageOf({ input: 3200, output: 120, input_cached_tokens: 12000, total: 15320 }).by_kind, { input: 3200, output: 120, cache_read: 12000 });
  // no total: Langfuse sums every usage type, so they are beside each other (Anthropic's keys)
  assert.deepEqual(usageOf({ input: 40, output: 10, cache_read_input_tokens: 900, cache_creation_input_tokens: 50 }).by_kind, { input: 40, output: 10, cache_read: 900, cache_write: 50 });
  // reasoning beside the output (output_reasoning_tokens) is part of the output in otrace's usage
  assert.deepEqual(usageOf({ input: 100, output: 20, output_reasoning_tokens: 30, total: 150 }).by_kind, { input: 100, output: 50, reasoning: 30 });
});

test('Langfuse: a trace of a session (sessionId) is one turn of it: its end hands back to the user, no verdict about the task', () => {
  const loaded = loadTrace(fixture('cases', CASE_35), CASE_35);
  const stop = loaded.trace.events.find((e) => e.type === 'stop')!;
  assert.equal(stop.scope, 'turn');
  const a = analyzeTrace(loaded);
  assert.deepEqual(a.findings.filter((f) => f.kind === 'stop' && f.mode !== 'ok').map((f) => f.message), []);
  // a trace outside any session ends its run
  const doc = JSON.parse(fixture('cases', CASE_35));
  doc.sessionId = null;
  assert.equal(loadTrace(JSON.stringify(doc), 'x.json').trace.events.find((e) => e.type === 'stop')!.scope, undefined);
});
