/** The windowed graph: an overview of every event, windows bounded by their range and level of detail, stable keys, kept events. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { bucketWidth, runKey } from '../../../src/shared/axis';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import { unpackOverview } from '../../../src/shared/overview-columns';
import { findEvents, graphEvent, graphOverview, graphOverviewBytes, graphWindow } from '../../../src/engine/graph-window';
import { buildGraph } from '../../../src/engine/graph-model';
import { graphIndex } from '../../../src/engine/graph-index';
import { makeSnapshot } from '../../../src/engine/snapshot';
import type { WindowRequest } from '../../../src/shared/protocol';
import { readTraceJsonl } from '../../../src/trace/read';

const demoText = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8');
const demo = makeSnapshot('demo', 1, 'demo.otrace.jsonl', readTraceJsonl(demoText));

/** A trace of `n` events: an orchestrator messaging 4 workers, each answering with a tool call, one per second. */
function big(n: number) {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = `w${i % 4}`;
    if (i % 10 === 0) lines.push(JSON.stringify({ id: `e${i}`, t: i, type: 'message', agent: 'orch', to: w }));
    else if (i === n - 1) lines.push(JSON.stringify({ id: `e${i}`, t: i, type: 'stop', agent: 'orch', reason: 'task_complete' }));
    else lines.push(JSON.stringify({ id: `e${i}`, t: i, type: 'tool_call', agent: w, tool: 'search', content: `query ${i}` }));
  }
  return makeSnapshot('big', 1, 'big.otrace.jsonl', readTraceJsonl(`${lines.join('\n')}\n`));
}

const big30k = big(30_000);

const request = (over: Partial<WindowRequest>): WindowRequest => ({ seq: 1, stamp: 0, mode: 'time', from: 0, to: 1e9, scale: 100, ...over });

test('the overview covers every event: time order, axis position, lane, kind and bar end per event', () => {
  const o = graphOverview(demo, 'demo');
  assert.equal(o.totalEvents, 35);
  assert.equal(o.columns.byTime.length, 35);
  assert.deepEqual([...o.columns.byTime].sort((a, b) => a - b), [...Array(35).keys()]);
  assert.equal(o.columns.end.filter((e) => e >= 0).length, 4, 'four tool calls drawn as bars');
  assert.ok(o.kinds.includes('stop'));
  assert.ok(o.legend.bars);
  assert.ok(o.legend.edgeTypes.length > 0);
});

test('zoomed in, a window holds every event of its range on its own; results are drawn in their call bar', () => {
  const w = graphWindow(demo, request({ scale: 1000 }));
  assert.equal(w.runs.length, 0);
  assert.equal(w.nodes.length, 31, '35 events, 4 results inside their bars');
  assert.ok(w.nodes.every((n) => !n.bar && n.fields.length === 0 && n.text === undefined), 'windows carry no texts (the details pane asks per event)');
  const keys = new Set(w.nodes.map((n) => n.id));
  for (const e of w.edges) assert.ok(keys.has(e.source) && keys.has(e.target), `edge ${e.id} joins drawn nodes`);
});

test('a window of 30k events is bounded by its range and level of detail; keys of runs name mode, level, lane and bucket', () => {
  const s = big30k;
  const o = graphOverview(s, 'big');
  assert.equal(o.totalEvents, 30_000);
  // The whole trace on 1,000 px: run bars per lane and bucket.
  const all = graphWindow(s, request({ scale: 1000 / 30_000 }));
  const drawn = all.nodes.length + all.runs.length;
  assert.ok(drawn < 2000, `${drawn} elements for the whole trace`);
  assert.equal(all.runs.reduce((sum, r) => sum + r.count, 0) + all.nodes.length + all.nodes.filter((n) => n.endIndex !== undefined).length, 30_000, 'every event is in a run or drawn');
  assert.ok(all.nodes.some((n) => n.kind === 'stop'), 'the stop stays on its own');
  const bucket = bucketWidth(1000 / 30_000);
  for (const r of all.runs) assert.equal(r.id, runKey('time', bucket, r.lane, r.row, Math.floor(r.u0 / bucket)));
  // The end of the trace, zoomed in: the last events on their own.
  const end = graphWindow(s, request({ from: 29_950, to: 30_000, scale: 20 }));
  assert.ok(end.nodes.some((n) => n.index === 29_999));
  assert.ok(end.nodes.every((n) => n.tx >= 29_950 - bucketWidth(20)));
});

test('a panned window keeps the keys of what both windows show', () => {
  const s = big30k;
  const a = graphWindow(s, request({ from: 1000, to: 3000, scale: 0.5 }));
  const b = graphWindow(s, request({ from: 1500, to: 3500, scale: 0.5 }));
  const keys = (w: typeof a) => new Set([...w.nodes.map((n) => n.id), ...w.runs.map((r) => r.id)]);
  const ka = keys(a);
  const kb = keys(b);
  const shared = [...ka].filter((k) => kb.has(k));
  assert.ok(shared.length > 0);
  // Runs in both have the same content (whole buckets).
  const runsB = new Map(b.runs.map((r) => [r.id, r]));
  for (const r of a.runs) if (runsB.has(r.id) && r.u0 >= 1600 && r.u1 <= 2900) assert.deepEqual(runsB.get(r.id), r);
});

test('kept events are drawn on their own whatever the level of detail', () => {
  const s = big30k;
  const plain = graphWindow(s, request({ scale: 0.01 }));
  assert.ok(!plain.nodes.some((n) => n.index === 12_345), 'a plain event is in a run when zoomed out');
  const kept = graphWindow(s, request({ scale: 0.01, keep: [12_345] }));
  assert.ok(kept.nodes.some((n) => n.index === 12_345));
});

/** An orchestrator spawning three workers, then each worker busy with tool calls, and rewards for some returns. */
function spawned(rounds: number) {
  const lines: string[] = [];
  let t = 0;
  const add = (e: Record<string, unknown>) => lines.push(JSON.stringify({ id: `e${lines.length}`, t: (t += 1), ...e }));
  for (const w of ['w0', 'w1', 'w2']) add({ type: 'spawn', agent: 'orch', to: w });
  for (let r = 0; r < rounds; r++) {
    const w = `w${r % 3}`;
    add({ type: 'delegate', agent: 'orch', to: w });
    for (let k = 0; k < 4; k++) add({ type: 'tool_call', agent: w, tool: 'search', content: `q ${r}.${k}` });
    add({ type: 'return', agent: w, to: 'orch' });
    if (r % 50 === 0) add({ type: 'reward', agent: 'judge', value: r % 100 === 0 ? 1 : -1, target: `e${lines.length - 1}` });
  }
  return makeSnapshot('spawned', 1, 'spawned.otrace.jsonl', readTraceJsonl(`${lines.join('\n')}\n`));
}

test('zoomed out, the first spawn into each lane stays on its own with its arrow; run bars carry their most credited event\'s credit', () => {
  const s = spawned(2000);
  const o = graphOverview(s, 'spawned');
  const w = graphWindow(s, request({ scale: 600 / o.axis.span }));
  assert.ok(w.runs.length > 0, 'zoomed out: run bars');
  const spawns = w.nodes.filter((n) => n.kind === 'spawn');
  assert.equal(spawns.length, 3, 'one spawn per worker lane, although they share a bucket');
  for (const n of spawns) assert.ok(w.edges.some((e) => e.source === n.id && e.type === 'spawn'), `the spawn ${n.id} has its arrow`);
  // Each credited run bar shows the largest-magnitude credit of the events it holds.
  const model = buildGraph(s.loaded, '', Infinity, s.analysis, { details: false });
  const alone = new Set(w.nodes.map((n) => n.index));
  const bucket = w.bucket;
  const credited = w.runs.filter((r) => r.credit !== undefined);
  assert.ok(credited.length > 0, 'some run bars hold credited events');
  for (const r of w.runs) {
    const members = model.nodes.filter((n) => !n.bar && !alone.has(n.index) && n.lane === r.lane && runKey('time', bucket, n.lane, n.row, Math.floor(n.tx / bucket)) === r.id);
    assert.equal(members.length, r.count, `run ${r.id} holds its events`);
    const best = members.reduce((m, n) => (n.credit !== undefined && Math.abs(n.credit) > Math.abs(m) ? n.credit : m), 0);
    assert.equal(r.credit ?? 0, best, `run ${r.id} carries its most credited event's credit`);
  }
});

test('one event with its text and fields; find searches the whole trace', () => {
  const s = big30k;
  const node = graphEvent(s, 19_001)!;
  assert.equal(node.eventId, 'e19001');
  assert.equal(node.text, 'query 19001');
  assert.ok(node.fields.some(([k]) => k === 'tool'));
  assert.deepEqual(findEvents(s, 'QUERY 1999'), [1999, ...Array.from({ length: 10 }, (_, i) => 19_990 + i).filter((i) => i % 10 !== 0)]);
});

test('the engine answers for the latest snapshot of a session only', async () => {
  const engine = new InProcessEngine();
  await engine.load({ key: 'k', version: 1, path: 'demo.otrace.jsonl', text: demoText });
  const o = (await engine.graphOverview('k', 'demo'))!;
  assert.ok(await engine.graphWindow('k', request({ stamp: o.stamp })));
  await engine.load({ key: 'k', version: 2, path: 'demo.otrace.jsonl', text: demoText });
  assert.equal(await engine.graphWindow('k', request({ stamp: o.stamp })), undefined, 'a window of an older version is not answered');
  engine.release('k');
  assert.equal(await engine.graphOverview('k', 'demo'), undefined);
});

test('the overview as bytes (JSON without the columns and findings\' events, those packed) reads back to the overview', () => {
  for (const s of [demo, big30k, big(0), big(1)]) {
    const { json, columns, overview } = graphOverviewBytes(s, 'a "title" · ünïcode ✓');
    const want = graphOverview(s, 'a "title" · ünïcode ✓');
    const { columns: wantColumns, ...rest } = want;
    const findingEvents = rest.findings.reduce((sum, f) => sum + f.events.length, 0);
    assert.equal(Buffer.from(json).toString('utf8'), JSON.stringify({ ...rest, findings: rest.findings.map((f) => ({ ...f, events: f.events.length })) }), 'the JSON holds everything but the columns and the findings\' events');
    const back = unpackOverview(json, columns);
    assert.deepEqual({ ...back, columns: { ...back.columns, lane: Int32Array.from(back.columns.lane) } }, want, 'the same values (lanes read back in the integers they were packed in)');
    const n = wantColumns.tx.length;
    const inFileOrder = wantColumns.byTime.every((i, rank) => i === rank);
    assert.equal(columns.byteLength, 16 + (inFileOrder ? 15 : 19) * n + 4 * findingEvents, 'fewer than 256 lanes: one byte per lane');
    assert.deepEqual(overview.axis, rest.axis);
  }
});

test('the details of an event offer Open Source Prompt exactly when Go to Source Prompt finds one (a Claude Code turn: its user prompt)', async () => {
  const { loadTraceFile } = await import('../../../src/trace/load-file');
  const { nodeFileAccess } = await import('../../../src/trace/node-files');
  await import('../../../src/trace/importers');
  const { sourcePromptOf } = await import('../../../src/engine/source-prompt');
  const file = path.join(__dirname, '..', '..', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
  const s = makeSnapshot('cc', 1, file, loadTraceFile(file, nodeFileAccess));
  const events = s.loaded.trace.events;
  const withPrompt = events.map((_, i) => i).filter((i) => graphEvent(s, i)!.hasSource);
  assert.deepEqual(withPrompt, events.map((_, i) => i).filter((i) => sourcePromptOf(s, i) !== undefined));
  const mainToolCall = events.findIndex((e) => e.agent === 'main' && e.type === 'tool_call');
  assert.ok(withPrompt.includes(mainToolCall), 'a tool call of the main agent: its turn\'s user prompt');
  assert.ok(withPrompt.some((i) => events[i].agent !== 'main'), 'a sub-agent\'s event: its task');
});

test('a finding\'s tokens in the graph are the waste its message states, never another sum over its events', async () => {
  const { loadTraceFile } = await import('../../../src/trace/load-file');
  const { nodeFileAccess } = await import('../../../src/trace/node-files');
  await import('../../../src/trace/importers');
  // a real ChatDev run (MAST) whose agents repeat themselves
  const file = path.join(__dirname, '..', '..', 'fixtures', 'mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json');
  const s = makeSnapshot('cc', 1, file, loadTraceFile(file, nodeFileAccess));
  const findings = graphOverview(s, 'cc').findings;
  const counted = findings.filter((f) => f.tokens !== undefined);
  assert.ok(counted.length >= 2, `findings with tokens: ${counted.length}`);
  for (const f of counted) assert.ok(f.message.includes(`${f.tokens!.toLocaleString('en-US')} tokens`), `"${f.message}" states the ${f.tokens} tokens the graph sums`);
});

test('windows made from the buckets planned for earlier windows equal those of a new index: steps keeping one event, pans, both modes', () => {
  const n = 30_000;
  const warm = big(n);
  const o = graphOverview(warm, 'x');
  for (const mode of ['time', 'order'] as const) {
    const length = mode === 'time' ? o.axis.span : n;
    const fit = { seq: 1, stamp: o.stamp, mode, from: 0, to: length, scale: 1000 / length };
    // The first window plans every bucket; each step keeps another event on its own (its bucket planned again, the others reused).
    const asks: WindowRequest[] = [fit, ...[17, 15_000, 15_001, 29_999, 4_321].map((i) => ({ ...fit, keep: [i] })), { ...fit, keep: [15_000, 15_003, 200] }];
    // Pans at one zoom: ranges that share buckets with the ones before.
    for (let k = 0; k < 6; k++) asks.push({ ...fit, from: (k * length) / 10, to: ((k + 3) * length) / 10, scale: 8000 / length, keep: k % 2 ? [Math.floor((k * n) / 8)] : [] });
    for (const ask of asks) {
      const cold = big(n); // a new snapshot: a new index, nothing planned
      assert.deepEqual(graphWindow(warm, ask), graphWindow(cold, { ...ask }), `${mode} ${JSON.stringify({ ...ask, scale: undefined })}`);
    }
    const stepped = graphWindow(warm, { ...fit, keep: [15_000] });
    assert.ok(stepped.nodes.some((node) => node.index === 15_000 || node.endIndex === 15_000), 'the kept event is drawn on its own');
    assert.ok(!graphWindow(warm, fit).nodes.some((node) => node.index === 15_000), 'and without keep it is in a run bar again (the plan kept is the one without keep)');
  }
});

test('a lane written out of time order is drawn in time order in a window, in both modes', () => {
  const lines = [
    { id: 'a1', t: 0, type: 'message', agent: 'a', to: 'b' },
    { id: 'b3', t: 3, type: 'message', agent: 'b' },
    { id: 'b1', t: 1, type: 'message', agent: 'b' },
    { id: 'b2', t: 2, type: 'message', agent: 'b' },
  ];
  const s = makeSnapshot('shuffled', 1, 'shuffled.otrace.jsonl', readTraceJsonl(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`));
  for (const mode of ['time', 'order'] as const) {
    const w = graphWindow(s, request({ mode, scale: 1000 }));
    const lane = w.nodes.filter((n) => n.agent === 'b');
    assert.deepEqual(lane.map((n) => n.eventId).sort(), ['b1', 'b2', 'b3']);
    const byStart = [...lane].sort((x, y) => (mode === 'time' ? x.tx - y.tx : x.order - y.order));
    assert.deepEqual(byStart.map((n) => n.eventId), ['b1', 'b2', 'b3'], mode);
  }
});

test('the graph index of a trace written in time order keeps each lane row once: its time and order lists are one view of one column, no copies', () => {
  const { tracks } = graphIndex(big30k);
  assert.ok(tracks.length > 1);
  const column = tracks[0].time.buffer;
  for (const t of tracks) {
    assert.equal(t.order, t.time, `lane ${t.lane} row ${t.row}: one list for both axes`);
    assert.equal(t.time.buffer, column, 'every track a view of the same column');
  }
  // out of time order, each axis keeps its own sorted list (the order above still drawn right: the test before)
  const lines = [
    { id: 'b3', t: 3, type: 'message', agent: 'b' },
    { id: 'b1', t: 1, type: 'message', agent: 'b' },
  ];
  const s = makeSnapshot('shuffled', 1, 'shuffled.otrace.jsonl', readTraceJsonl(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`));
  const [track] = graphIndex(s).tracks;
  assert.deepEqual([...track.time], [1, 0]);
  assert.deepEqual([...track.order], [1, 0]);
});

test('a run bar is named by its most common kind; of kinds as common, by the one met first in the bucket', () => {
  // one lane, one row (messages, decisions and aggregates are all at the call level), one bucket of 1,000 s
  const kinds = (...types: string[]) => {
    // the run ends with a stop (on its own, as the run's end)
    const lines = [...types.map((type, i) => JSON.stringify({ id: `e${i}`, t: i, type, agent: 'a', content: 'x' })), JSON.stringify({ id: 'end', t: types.length, type: 'stop', agent: 'a', reason: 'task_complete' })];
    const s = makeSnapshot('runs', 1, 'runs.otrace.jsonl', readTraceJsonl(`${lines.join('\n')}\n`));
    const w = graphWindow(s, request({ scale: 0.001 }));
    assert.equal(w.runs.length, 1);
    assert.equal(w.runs[0].count, types.length);
    return w.runs[0].kind;
  };
  assert.equal(kinds('message', 'orchestrator_decision', 'orchestrator_decision', 'message', 'orchestrator_decision'), 'orchestrator_decision');
  assert.equal(kinds('orchestrator_decision', 'message', 'message', 'orchestrator_decision'), 'orchestrator_decision');
  assert.equal(kinds('message', 'orchestrator_decision', 'orchestrator_decision', 'message'), 'message');
  assert.equal(kinds('message', 'communicate', 'orchestrator_decision', 'orchestrator_decision'), 'message', 'an alias counts as its type');
});
