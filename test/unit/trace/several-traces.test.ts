/** Several traces in one file (docs/model.md): one graph with a lane group per trace, analysis per trace. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { buildGraph } from '../../../src/engine/graph-model';
import { readTraceJsonl } from '../../../src/trace/read';
import { traceStats } from '../../../src/trace/stats';
import { severalTraces, traceGroups } from '../../../src/trace/trace-groups';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { fixture } from '../helpers';

const text = fixture('several-traces', 'two-runs.otrace.jsonl');
const loaded = readTraceJsonl(text);
/** The same file as one trace: every trace-fields line but the first removed. */
const mergedText = text.split('\n').filter((l, i) => i === 0 || !l.startsWith('{"trace_id"')).join('\n');
const merged = readTraceJsonl(mergedText);

test('JSONL: a trace-fields line naming another trace starts a new trace; every event kept, each names its trace', () => {
  assert.equal(loaded.trace.events.length, 9);
  assert.deepEqual(loaded.trace.events.map((e) => e.trace_id), ['run-a', 'run-a', 'run-a', 'run-a', 'run-a', 'run-b', 'run-b', 'run-b', 'run-b']);
  assert.deepEqual(traceGroups(loaded).map((g) => [g.id, g.indices.length]), [['run-a', 5], ['run-b', 4]]);
  assert.deepEqual(Object.keys(loaded.traceHeaders ?? {}), ['run-a', 'run-b']);
  assert.equal(loaded.trace.trace_id, 'run-a');
  // Ids repeat across traces, not within one: no duplicate-id warning; one info at the second trace's line.
  assert.deepEqual(loaded.problems.map((p) => `${p.severity}@${p.range.start.line + 1}: ${p.message}`), [
    'info@7: 2 traces in this file ("run-a", "run-b"); one graph with a lane group per trace; each trace is analysed on its own',
  ]);
  assert.equal(traceGroups(merged).length, 1);
  // the analysis asks severalTraces: the same groups for two traces, nothing for one
  assert.deepEqual(severalTraces(loaded), traceGroups(loaded));
  assert.equal(severalTraces(merged), undefined);
});

test('analysis per trace: each trace its own outcome, stop and blame; nothing found across traces', () => {
  const a = analyzeTrace(loaded);
  assert.deepEqual(a.traces?.map((t) => [t.trace_id, t.events, t.outcome.status]), [['run-a', 5, 'success'], ['run-b', 4, 'failure']]);
  // run-a stops soundly; run-b ends without a stop: two stop findings, one per trace, at the file's indices.
  assert.deepEqual(a.stops.map((s) => [s.index, s.finding]), [[4, 'ok'], [8, 'no_stop']]);
  assert.equal(a.traces![0].blame, null, 'the successful run blames nobody');
  assert.equal(a.traces![1].blame?.index, 8, 'the failed run blames its own last output');
  assert.ok(a.findings.every((f) => /^trace run-[ab]: /.test(f.message)), 'each finding names its trace');
  assert.ok(a.findings.filter((f) => f.message.startsWith('trace run-a')).every((f) => f.events.every((i) => i < 5)));
  // The same search with the same result in both runs is no loop (it is, read as one trace).
  const sameResult = (t: string) => readTraceJsonl(t.replace('"no results"', '"Paris"'));
  assert.equal(analyzeTrace(sameResult(text)).loops.length, 0);
  assert.ok(analyzeTrace(sameResult(mergedText)).loops.length > 0, 'as one trace, the second search repeats the first');
  assert.equal(a.credit.by_index.length, 9);
  assert.ok(a.credit.by_index.slice(0, 5).every((v) => v >= 0) && a.credit.by_index.slice(5).every((v) => v <= 0), 'credit in the run that succeeded, blame in the one that failed');
});

test('graph: one lane group per trace, same agent names kept apart, a header count', () => {
  const g = buildGraph(loaded, 'two runs', Infinity, analyzeTrace(loaded));
  assert.deepEqual(g.traces, [{ id: 'run-a', events: 5, lanes: 2 }, { id: 'run-b', events: 4, lanes: 2 }]);
  assert.deepEqual(g.lanes.map((l) => [l.name, l.trace, l.parent ?? null, l.count]), [
    ['orchestrator · run-a', 'run-a', null, 2],
    ['worker · run-a', 'run-a', 'orchestrator · run-a', 3],
    ['orchestrator · run-b', 'run-b', null, 1],
    ['worker · run-b', 'run-b', 'orchestrator · run-b', 3],
  ]);
  for (const n of g.nodes) assert.equal(g.lanes[n.lane].trace, n.trace);
  for (const n of g.nodes) assert.equal(g.lanes[n.lane].agent, n.agent, 'a lane named apart still names its agent');
  // The derived spawn link of run-b goes to run-b's worker, not run-a's.
  const spawnB = g.nodes[5];
  const link = g.edges.find((e) => e.source === spawnB.id && e.type === 'spawn');
  assert.ok(link, 'run-b has its spawn link');
  assert.equal(g.nodes[Number(link.target.slice(1))].trace, 'run-b');
  // One trace: no groups.
  const one = buildGraph(merged, 'merged');
  assert.equal(one.traces, undefined);
  assert.ok(one.lanes.every((l) => l.trace === undefined));
});

test('stats per trace', () => {
  const s = traceStats(loaded);
  assert.equal(s.events, 9);
  assert.deepEqual(s.traces?.map((t) => [t.trace_id, t.events, t.stops.length, t.agents]), [
    ['run-a', 5, 1, ['orchestrator', 'worker']],
    ['run-b', 4, 0, ['orchestrator', 'worker']],
  ]);
});

test('OTLP: a file with two traceIds gives events naming their trace, two lane groups, analysis per trace', () => {
  const l = loadTrace(fixture('cases', '06-link-cycle.json'), '06-link-cycle.json');
  const ids = [...new Set(l.trace.events.map((e) => e.trace_id))];
  assert.equal(ids.length, 2);
  const a = analyzeTrace(l);
  assert.deepEqual(a.traces?.map((t) => t.trace_id), ids);
  const g = buildGraph(l, 'otlp', Infinity, a);
  assert.deepEqual(g.traces?.map((t) => t.id), ids);
  assert.deepEqual([...new Set(g.lanes.map((l) => l.trace))], ids, 'lanes grouped by trace, in order');
});
