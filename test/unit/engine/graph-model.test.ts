/** The timeline graph model: an entry per event, lanes as a spawn tree, a compressed time axis, tool bars, derived links. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { buildGraph, eventDetails, findingsForGraph, graphLayout } from '../../../src/engine/graph-model';
import { followLayout } from '../../../src/engine/structure-growth';
import { FollowedFile } from '../trace/followed-file';
import '../../../src/trace/importers';
import { readTraceJsonl } from '../../../src/trace/read';
import { OriginArray } from '../../../src/trace/model';
import type { TraceEvent } from '../../../src/trace/schema';

const demo = readTraceJsonl(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8'));

test('one entry per event, one lane per agent, sub-agents under their spawner', () => {
  const g = buildGraph(demo, 'demo');
  assert.equal(g.nodes.length, 35);
  assert.deepEqual(g.lanes.map((l) => [l.name, l.parent ?? null, l.depth, l.count]), [
    ['orchestrator', null, 0, 16],
    ['planner', 'orchestrator', 1, 1],
    ['researcher', 'orchestrator', 1, 12],
    ['web_searcher', 'researcher', 2, 3],
    ['writer', 'orchestrator', 1, 1],
    ['critic', 'orchestrator', 1, 2],
  ]);
  for (const n of g.nodes) assert.equal(g.lanes[n.lane].name, n.agent);
});

test('x is time (tx) or event order, so later events are to the right; a tool call and its result are one bar', () => {
  const g = buildGraph(demo, 'demo');
  const byId = new Map(g.nodes.map((n) => [n.eventId, n]));
  assert.equal(byId.get('e1')!.tx, 0);
  assert.equal(byId.get('e2')!.tx, 1);
  const sorted = [...g.nodes].sort((a, b) => a.t - b.t);
  for (let i = 1; i < sorted.length; i++) {
    assert.ok(sorted[i].tx >= sorted[i - 1].tx);
    assert.ok(sorted[i].order > sorted[i - 1].order);
  }
  assert.equal(byId.get('e9')!.txEnd, byId.get('e10')!.tx, 'the call e9 is a bar to its result e10');
  assert.equal(byId.get('e10')!.bar, byId.get('e9')!.id);
  assert.deepEqual(
    g.nodes.filter((n) => n.bar).map((n) => n.eventId),
    ['e10', 'e15', 'e19', 'e23'],
  );
  assert.equal(g.axis.gaps.length, 0, 'the demo has no idle gap');
});

test('repeated ids: every event is its own node, keyed by its index', () => {
  const g = buildGraph(readTraceJsonl('{"id":"a","t":1,"type":"message","agent":"p"}\n{"id":"a","t":2,"type":"message","agent":"p"}\n'), 'r');
  assert.deepEqual(g.nodes.map((n) => [n.id, n.index, n.eventId]), [['n0', 0, 'a'], ['n1', 1, 'a']]);
});

test('derived spawn, message and return links join lanes where the trace has no edge into that lane', () => {
  assert.deepEqual(buildGraph(demo, 'demo').edges.filter((e) => e.derived), [], 'the demo writes all its links');
  const text = [
    '{"id":"s","t":0,"type":"spawn","agent":"lead","to":"w"}',
    '{"id":"d","t":1,"type":"delegate","agent":"lead","to":"w"}',
    '{"id":"w1","t":2,"type":"tool_call","agent":"w"}',
    '{"id":"r","t":3,"type":"return","agent":"w","to":"lead"}',
    '{"id":"a","t":4,"type":"aggregate","agent":"lead"}',
    '{"id":"d2","t":5,"type":"delegate","agent":"lead","to":"w"}',
    '{"id":"w2","t":6,"type":"tool_call","agent":"w"}',
    '{"edge":{"src":"d2","dst":"w2","type":"message"}}',
  ].join('\n');
  const g = buildGraph(readTraceJsonl(text), 't');
  const idOf = new Map(g.nodes.map((n) => [n.id, n.eventId]));
  assert.deepEqual(
    g.edges.map((e) => `${idOf.get(e.source)}>${idOf.get(e.target)}:${e.type}${e.derived ? ' (derived)' : ''}`),
    ['d2>w2:message', 's>w1:spawn (derived)', 'd>w1:delegate (derived)', 'r>a:return (derived)'],
  );
});

test('the stop event keeps its reason in the label; events at one time keep their order', () => {
  const g = buildGraph(demo, 'demo');
  assert.equal(g.nodes.find((n) => n.eventId === 'e35')!.label, 'stop: quality met');
  const same = readTraceJsonl('{"id":"a","t":1,"type":"message","agent":"p"}\n{"id":"b","t":1,"type":"message","agent":"p"}\n');
  const [a, b] = buildGraph(same, 's').nodes;
  assert.deepEqual([a.order, b.order], [0, 1]);
});

test('a trace over the limit draws its first events and says how many there are', () => {
  const g = buildGraph(demo, 'demo', 10);
  assert.equal(g.nodes.length, 10);
  assert.equal(g.totalEvents, 35);
  const shown = new Set(g.nodes.map((n) => n.id));
  for (const e of g.edges) assert.ok(shown.has(e.source) && shown.has(e.target), `edge ${e.source}>${e.target} leaves the drawn events`);
});

test('analysis results mark the graph: loop members, findings most severe first, credit per event', () => {
  const analysis = analyzeTrace(demo);
  const g = buildGraph(demo, 'demo', Infinity, analysis);
  const loopNodes = g.nodes.filter((n) => n.marks.includes('loop')).map((n) => n.eventId);
  for (const id of ['e14', 'e18', 'e22']) assert.ok(loopNodes.includes(id), `the repeated web.search call ${id} is marked`);
  assert.ok(!loopNodes.includes('e35'));
  // the analysis findings, the sound stop e35 among them (every stop is a finding)
  assert.equal(g.findings.length, analysis.findings.length);
  const e35 = demo.trace.events.findIndex((e) => e.id === 'e35');
  assert.deepEqual(g.findings.filter((f) => f.kind === 'stop').map((f) => [f.severity, f.events]), [['info', [e35]]]);
  const order = { error: 0, warning: 1, info: 2 };
  for (let i = 1; i < g.findings.length; i++) assert.ok(order[g.findings[i - 1].severity] <= order[g.findings[i].severity]);
  assert.equal(g.nodes.find((n) => n.eventId === 'e28')!.credit, analysis.credit.events.e28);
  assert.deepEqual(buildGraph(demo, 'demo').findings, [], 'no analysis, no findings');
});

test('large content: the node holds a preview and the whole length; the trace keeps it whole', () => {
  const big = 'y'.repeat(9_000) + 'END';
  const l = readTraceJsonl(`{"id":"a","t":0,"type":"message","agent":"x","content":${JSON.stringify(big)}}\n{"id":"b","t":1,"type":"message","agent":"x","content":"short"}`);
  const g = buildGraph(l, 'big');
  assert.equal(g.nodes[0].textLength, 9_003);
  assert.ok(g.nodes[0].text!.length < 2_100 && g.nodes[0].text!.includes('Show Whole Content'));
  assert.equal(g.nodes[1].textLength, undefined);
  assert.equal(l.trace.events[0].content, big);
});

test('derived links reach the next event of the receiving lane in time, also when its lane is written out of time order', () => {
  const events = [
    { id: 'm', type: 'message', agent: 'a', to: 'b', t: 5 },
    { id: 'b3', type: 'message', agent: 'b', t: 9 },
    { id: 'b1', type: 'message', agent: 'b', t: 1 },
    { id: 'b2', type: 'message', agent: 'b', t: 6 },
  ] as TraceEvent[];
  const g = buildGraph({ format: 'test', trace: { events, edges: [] }, eventOrigins: new OriginArray(), edgeOrigins: new OriginArray(), problems: [] }, 'lanes');
  const link = g.edges.find((e) => e.derived);
  assert.equal(link?.target, g.nodes.find((n) => n.eventId === 'b2')!.id, 'b2 is the first event of b at or after t=5');
  assert.equal(g.lanes.find((l) => l.name === 'b')?.count, 3);
});

test('a stop is marked sound (✓) only when the trace records success: a claimed task_complete without an outcome gets no verdict mark; a turn end is labelled "turn ended"', () => {
  for (const [reason, success, marked] of [
    ['task_complete', false, []],
    ['quality_met', false, []],
    ['task_complete', true, ['stop-ok']],
    ['quality_met', true, ['stop-ok']],
    ['error', true, []],
    ['unknown', false, []],
    ['max_turns', false, []],
  ] as const) {
    const text = [
      '{"id":"a","t":0,"type":"message","agent":"lead","to":"worker","content":"send the report by email"}',
      '{"id":"b","t":1,"type":"return","agent":"worker","to":"lead","content":"sent","causes":["a"]}',
      `{"id":"s","t":2,"type":"stop","agent":"lead","reason":"${reason}","decided_by":"lead"}`,
      ...(success ? ['{"id":"r","t":3,"type":"reward","agent":"judge","value":1,"channel":"task"}'] : []),
    ].join('\n');
    const loaded = readTraceJsonl(text);
    const analysis = analyzeTrace(loaded);
    const s = analysis.stops.find((x) => x.event === 's')!;
    assert.equal(s.finding, 'ok', `${reason}: no stop failure found`);
    const stop = buildGraph(loaded, 't', Infinity, analysis).nodes.find((n) => n.eventId === 's')!;
    assert.deepEqual(stop.marks.filter((m) => m.startsWith('stop')), marked, `${reason}, success recorded: ${success}`);
  }
  const turns = readTraceJsonl(
    [
      '{"id":"u1","t":0,"type":"message","agent":"user","content":"rename the file"}',
      '{"id":"a1","t":1,"type":"message","agent":"dev","content":"renamed it"}',
      '{"id":"s1","t":2,"type":"stop","agent":"dev","reason":"task_complete"}',
      '{"id":"u2","t":3,"type":"message","agent":"user","content":"now delete the old copy"}',
      '{"id":"a2","t":4,"type":"message","agent":"dev","content":"deleted"}',
      '{"id":"s2","t":5,"type":"stop","agent":"dev","reason":"task_complete"}',
    ].join('\n'),
  );
  const node = buildGraph(turns, 't', Infinity, analyzeTrace(turns)).nodes.find((n) => n.eventId === 's1')!;
  assert.equal(node.label, 'turn ended: handed back');
  assert.deepEqual(node.marks, ['turn-end']);
});

test('names and labels show control and bidi characters as ⟨U+…⟩; the content is kept as it is', async () => {
  const { eventDetails } = await import('../../../src/engine/graph-model');
  const h = '\u202Egnp.exe\u202C\u0000\u001b[31m\u0007\u0085';
  const shown = '⟨U+202E⟩gnp.exe⟨U+202C⟩⟨U+0000⟩⟨U+001B⟩[31m⟨U+0007⟩⟨U+0085⟩';
  const text = [
    { id: `e1${h}`, t: 0, type: 'spawn', agent: `lead${h}`, to: `worker${h}`, content: `raw ${h}` },
    { id: 'e2', t: 1, type: 'tool_call', agent: `worker${h}`, tool: `bash${h}` },
    { id: 'e3', t: 2, type: 'tool_result', agent: `worker${h}`, tool: `bash${h}`, parent: 'e2' },
    { id: 'e4', t: 3, type: 'stop', agent: `lead${h}`, reason: 'task_complete' },
  ].map((l) => JSON.stringify(l)).join('\n');
  const loaded = readTraceJsonl(text);
  const g = buildGraph(loaded, 'hostile', Infinity, analyzeTrace(loaded));
  assert.deepEqual(g.nodes.map((n) => n.label), [`spawn worker${shown}`, `bash${shown}`, `result bash${shown}`, 'stop: task complete']);
  assert.deepEqual(g.lanes.map((l) => l.name), [`lead${h}`, `worker${h}`], 'lane names stay the keys; the webview shows them escaped');
  const d = eventDetails(loaded.trace.events[0]);
  assert.deepEqual(d.fields.filter(([k]) => ['id', 'agent', 'to'].includes(k)), [['id', `e1${shown}`], ['agent', `lead${shown}`], ['to', `worker${shown}`]]);
  assert.equal(d.text, `raw ${h}`, 'the raw content view keeps the content');
  for (const f of g.findings) assert.doesNotMatch(f.message, /[\u0000-\u0008\u001b\u0085\u202e]/, f.message);
});

test('a trace as read after an append shows the analysis before it with the marks made of it then (the loop column grown), equal to marks made again', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-marks-'));
  try {
    const header = JSON.stringify({ trace_id: 'm', task_id: 'm', system: 'test' });
    // the same search again and again (a loop), a turn end and a stop
    const lines = [header];
    for (let k = 0; k < 12; k++) lines.push(JSON.stringify({ id: `e${k}`, t: k, type: k % 2 ? 'tool_result' : 'tool_call', agent: 'w', tool: 'search', content: 'query: same thing' }));
    lines.push(JSON.stringify({ id: 's1', t: 20, type: 'stop', agent: 'w', reason: 'turn_end' }), JSON.stringify({ id: 's2', t: 21, type: 'stop', agent: 'orchestrator', reason: 'task_complete', content: 'done' }));
    const f = new FollowedFile(dir, `${lines.join('\n')}\n`);
    const before = f.load().loaded;
    followLayout(before);
    const analysis = analyzeTrace(before);
    assert.ok(analysis.loops.length > 0 && analysis.stops.length > 0, 'a loop and stops to mark');
    const shownBefore = graphLayout(before, Infinity, analysis);
    f.append(`${JSON.stringify({ id: 'e99', t: 30, type: 'message', agent: 'w', to: 'orchestrator', content: 'more' })}\n`);
    const after = f.load().loaded;
    followLayout(after);
    const carried = graphLayout(after, Infinity, analysis);
    assert.equal(carried.marks, shownBefore.marks, 'the marks made for the trace before are shown');
    const again = graphLayout(after, Infinity, structuredClone(analysis)); // another analysis object: made again
    assert.notEqual(again.marks, carried.marks);
    assert.deepEqual(Array.from(carried.loop), Array.from(again.loop));
    assert.equal(carried.loop.length, after.trace.events.length);
    assert.deepEqual([...carried.marks].map(([i, m]) => [i, [...m]]), [...again.marks].map(([i, m]) => [i, [...m]]));
    assert.deepEqual(Array.from(shownBefore.loop), Array.from(carried.loop).slice(0, before.trace.events.length), 'the layout before keeps its own');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the findings bar marks a finding with waste whose events a finding with more waste already counted (overlaps), and no other", () => {
  const events: TraceEvent[] = Array.from({ length: 10 }, (_, k) => ({ id: `e${k}`, t: k, type: 'message', agent: 'a' }));
  const finding = (list: number[], tokens?: number) => ({ kind: 'loop' as const, severity: 'warning' as const, events: list, inline: 'loop', message: 'a loop', ...(tokens ? { tokens } : {}) });
  const findings = [
    finding([0, 1, 2], 100), // the most waste: counted first
    finding([2, 3], 50), // shares event 2 with the one before: overlaps
    finding([4, 5], 40), // apart
    finding([5], 0), // no waste: never marked
    finding([6, 4], 30), // shares event 4 with the third
    finding([12, 13], 20), // indices past the trace's events: counted apart
    finding([13], 10), // shares one of them
    finding([8, 9, 8], 5), // an event twice in one finding: no overlap
  ] as unknown as Parameters<typeof findingsForGraph>[0];
  const overlaps = findingsForGraph(findings, events, 'seconds').map((f) => f.overlaps === true);
  assert.deepEqual(overlaps, [false, true, false, false, true, false, true, false]);
  // the next analysis's findings (a list of their own) are marked from nothing counted: the flags are kept from call to call, made zero after each
  const next = [finding([2, 3], 50), finding([7], 10)] as unknown as Parameters<typeof findingsForGraph>[0];
  assert.deepEqual(findingsForGraph(next, events, 'seconds').map((f) => f.overlaps === true), [false, false]);
});

test("the details of a failed call's result show its recorded failure (an OTel span's ERROR status read as `error`; Claude Code's is_error; an exit code)", async () => {
  const { eventDetails } = await import('../../../src/engine/graph-model');
  await import('../../../src/trace/importers');
  const { loadTrace } = await import('../../../src/trace/formats');
  const file = path.join(__dirname, '..', '..', 'fixtures', 'otel', 'multi-agent.otlp.jsonl');
  const loaded = loadTrace(fs.readFileSync(file, 'utf8'), file);
  const result = loaded.trace.events.find((e) => e.id === '0909090909090909.result')!;
  assert.deepEqual(eventDetails(result).fields.find(([k]) => k === 'error'), ['error', '535 authentication failed']);
  const ok = loaded.trace.events.find((e) => e.type === 'tool_result' && e.id !== result.id)!;
  assert.equal(eventDetails(ok).fields.find(([k]) => k === 'error'), undefined, 'a result that did not fail says nothing of it');
  const shell = { id: 'r', t: 1, type: 'tool_result', agent: 'a', is_error: true, exit_code: 2 } as unknown as TraceEvent;
  assert.deepEqual(eventDetails(shell).fields.filter(([k]) => k === 'failed' || k === 'exit code'), [['failed', 'yes (is_error)'], ['exit code', '2']]);
});

test("the details pane shows a stop's reason in words, with the recorded value for a turn end (no bare task_complete beside \"no verdict\")", () => {
  const fields = (e: Record<string, unknown>) => Object.fromEntries(eventDetails({ id: 's', t: 1, type: 'stop', agent: 'a', ...e } as TraceEvent).fields);
  assert.equal(fields({ reason: 'task_complete', scope: 'turn' }).reason, 'handed back (task_complete)');
  assert.equal(fields({ reason: 'max_turns' }).reason, 'max turns');
  assert.equal(fields({ reason: 'unknown' }).reason, 'reason unknown');
});
