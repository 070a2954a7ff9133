/**
 * Any shape, bounded (issue #30): a trace with more agents than a graph can show as lanes folds
 * them into named group lanes in the engine, says what it folded, and what crosses to the host
 * and the webview (the overview, the run summary's agents) stays small whatever the number of agents.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FOLD_ABOVE, MAX_GROUPS, OWN_LANES, namePrefix } from '../../../src/engine/lane-folds';
import { graphOverview, graphOverviewBytes, graphWindow } from '../../../src/engine/graph-window';
import { laneTree } from '../../../src/engine/lanes';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { analyzeTrace } from '../../../src/analysis';
import { MAX_AGENTS, runSummary } from '../../../src/analysis/run-summary';
import { readTraceJsonl } from '../../../src/trace/read';
import { outline } from '../../../src/engine/queries';
import type { TraceEvent } from '../../../src/trace/schema';

/** Lanes a folded graph shows at most per trace: the busiest, a group per spawner and per name prefix, and "other agents". */
const MAX_SHOWN = OWN_LANES + 2 * MAX_GROUPS + 1;

const snapshotOf = (lines: object[]) => makeSnapshot('k', 1, 'x.otrace.jsonl', readTraceJsonl(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`));

/**
 * 100,000 events, each its own agent (`worker_<k>#e<i>`, k of 7 kinds) after a busy orchestrator
 * of 200 events; a tool call answered by the next event (another agent).
 */
const everyEventItsOwnAgent = (() => {
  const lines: object[] = [];
  for (let i = 0; i < 200; i++) lines.push({ id: `o${i}`, t: i, type: 'message', agent: 'orchestrator', to: `worker_${i % 7}`, content: `task ${i}` });
  for (let i = 0; i < 100_000; i++) lines.push({ id: `e${i}`, t: 200 + i, type: i % 2 ? 'tool_result' : 'tool_call', agent: `worker_${i % 7}#e${i}`, tool: 'search', content: `q ${i}` });
  lines.push({ id: 'stop', t: 100_300, type: 'stop', agent: 'orchestrator', reason: 'task_complete' });
  return snapshotOf(lines);
})();

test('the overview of a trace with 100k agents is bounded: a few dozen lanes, a few KB, and it names what it folded', () => {
  const o = graphOverview(everyEventItsOwnAgent, 'x');
  assert.ok(o.lanes.length <= MAX_SHOWN, `${o.lanes.length} lanes`);
  assert.equal(o.lanes[0].name, 'orchestrator', 'the busiest agent keeps its own lane');
  assert.equal(o.lanes[0].folded, undefined);
  const groups = o.lanes.filter((l) => l.folded);
  assert.equal(groups.length, 7, 'one group per name prefix worker_<k>#');
  for (const g of groups) {
    assert.match(g.name, /^worker_\d#\* \(folded\)$/);
    assert.match(g.label!, /^worker_\d#\* · 14,28\d agents$/);
    assert.match(g.tip!, /^14,28\d agents folded into one lane \(named worker_\d#…\), e\.g\. worker_\d#e\d+, /);
    assert.equal(g.folded!.by, 'prefix');
    assert.equal(g.count, g.folded!.agents, 'each folded agent has one event');
  }
  assert.equal(o.folded?.agents, 100_001);
  assert.equal(o.folded?.folded, 100_000);
  assert.equal(o.folded?.text, '100,000 of 100,001 agents folded into 7 group lanes by name prefix; the busiest agent keeps its own lane');
  // every event is in a lane shown, and the lanes' counts add up to the events
  assert.ok(o.columns.lane.every((l) => l >= 0 && l < o.lanes.length));
  assert.equal(o.lanes.reduce((sum, l) => sum + l.count, 0), o.totalEvents);
  const bytes = graphOverviewBytes(everyEventItsOwnAgent, 'x');
  assert.ok(bytes.json.length < 32 * 1024, `overview JSON ${bytes.json.length} bytes`);
  assert.ok(o.run && o.run.agents.length <= MAX_AGENTS && o.run.agentCount === 100_001, 'the run brief lists the busiest agents and counts them all');
});

test('a window of a folded trace draws its events in the group lanes', () => {
  const o = graphOverview(everyEventItsOwnAgent, 'x');
  const w = graphWindow(everyEventItsOwnAgent, { seq: 1, stamp: o.stamp, mode: 'time', from: 50_000, to: 50_020, scale: 10 });
  assert.ok(w.nodes.length > 0);
  for (const n of w.nodes) {
    assert.ok(n.lane < o.lanes.length);
    assert.equal(o.lanes[n.lane].name, `${namePrefix(n.agent)}* (folded)`, `${n.agent} drawn in its group`);
  }
});

test('agents spawned by a kept agent fold under it, by the agent that spawned them', () => {
  const lines: object[] = [];
  for (let i = 0; i < 2_000; i++) lines.push({ id: `s${i}`, t: i, type: 'spawn', agent: 'orchestrator', to: `sub${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26) % 26)}${String.fromCharCode(97 + Math.floor(i / 676))}` });
  for (let i = 0; i < 2_000; i++) lines.push({ id: `m${i}`, t: 3_000 + i, type: 'message', agent: (lines[i] as TraceEvent).to });
  const o = graphOverview(snapshotOf(lines), 'x');
  assert.deepEqual(
    o.lanes.map((l) => [l.name, l.parent, l.depth, l.folded?.agents]),
    [
      ['orchestrator', undefined, 0, undefined],
      ['sub-agents of orchestrator (folded)', 'orchestrator', 1, 2_000],
    ],
  );
  assert.equal(o.folded?.text, '2,000 of 2,001 agents folded into 1 group lane by the agent that spawned them; the busiest agent keeps its own lane');
});

test('agents with no spawner and no shared name prefix fold into "other agents"', () => {
  const name = (i: number) => `${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26) % 26)}${String.fromCharCode(97 + Math.floor(i / 676))}`;
  const lines = Array.from({ length: 1_500 }, (_, i) => ({ id: `e${i}`, t: i, type: 'message', agent: name(i) }));
  const o = graphOverview(snapshotOf(lines), 'x');
  assert.deepEqual(
    o.lanes.map((l) => [l.name, l.folded]),
    [['other agents (folded)', { agents: 1_500, by: 'other' }]],
  );
  assert.equal(o.folded?.text, '1,500 of 1,500 agents folded into 1 group lane ("other agents")');
});

test(`up to ${FOLD_ABOVE} agents nothing folds: a lane per agent`, () => {
  const lines = Array.from({ length: FOLD_ABOVE }, (_, i) => ({ id: `e${i}`, t: i, type: 'message', agent: `worker_${i}` }));
  const o = graphOverview(snapshotOf(lines), 'x');
  assert.equal(o.lanes.length, FOLD_ABOVE);
  assert.equal(o.folded, undefined);
  assert.ok(o.lanes.every((l) => l.folded === undefined));
});

test('namePrefix: the name without its trailing id, or without every trailing id', () => {
  assert.equal(namePrefix('worker_3#e123'), 'worker_3#');
  assert.equal(namePrefix('worker_3#e123', true), 'worker_');
  assert.equal(namePrefix('Explore:a93ccab'), 'Explore:');
  assert.equal(namePrefix('a93ccab'), '');
  assert.equal(namePrefix('orchestrator'), 'orchestrator');
  assert.equal(namePrefix('team/agent-7'), 'team/agent-');
  assert.equal(namePrefix('team/agent-7', true), 'team/agent-');
});

test('lanes of a spawn chain 100,000 agents deep, and of one agent spawning 100,000: no recursion, no quadratic lists', { timeout: 30_000 }, () => {
  const chain: TraceEvent[] = Array.from({ length: 100_000 }, (_, i) => ({ id: `e${i}`, t: i, type: 'spawn', agent: `a${i}`, to: `a${i + 1}` }) as TraceEvent);
  const deep = laneTree(chain);
  assert.equal(deep.length, 100_000);
  assert.deepEqual(deep[99_999], { name: 'a99999', parent: 'a99998', depth: 99_999 });
  const fan: TraceEvent[] = [
    ...Array.from({ length: 100_000 }, (_, i) => ({ id: `s${i}`, t: i, type: 'spawn', agent: 'root', to: `c${i}` }) as TraceEvent),
    ...Array.from({ length: 100_000 }, (_, i) => ({ id: `c${i}`, t: 100_000 + i, type: 'message', agent: `c${i}` }) as TraceEvent),
  ];
  const wide = laneTree(fan);
  assert.equal(wide.length, 100_001);
  assert.deepEqual(wide[100_000], { name: 'c99999', parent: 'root', depth: 1 });
});

test('the run summary of 100k agents lists the busiest 50 in order of first event and counts them all', () => {
  const loaded = everyEventItsOwnAgent.loaded;
  const s = runSummary(loaded, analyzeTrace(loaded));
  assert.equal(s.agent_count, 100_001);
  assert.equal(s.agents.length, MAX_AGENTS);
  assert.equal(s.agents[0].name, 'orchestrator');
  assert.equal(s.agents[0].events, 201);
  assert.equal(s.agents[1].name, 'worker_0#e0', 'then ties by first event');
  assert.ok(JSON.stringify(s).length < 32 * 1024);
});

test('the Outline of a file of 100k agents folds as the graph does: a few dozen symbols holding every event in file order', () => {
  const lanes = outline(everyEventItsOwnAgent, '');
  assert.ok(lanes.length <= MAX_SHOWN, `${lanes.length} symbols`);
  assert.equal(lanes[0].agent, 'orchestrator');
  assert.equal(lanes[0].agents, undefined);
  const group = lanes.find((l) => l.agent === 'worker_3#* (folded)');
  assert.ok(group && group.agents !== undefined && group.agents > 14_000, 'a group symbol per name prefix, counting its agents');
  assert.equal(group.events.length, group.agents);
  assert.ok(group.events.every((e, k) => k === 0 || e.range.start.line > group.events[k - 1].range.start.line), 'its events in file order');
  assert.equal(lanes.reduce((sum, l) => sum + l.events.length, 0), everyEventItsOwnAgent.loaded.trace.events.length, 'every event is in the Outline');
  assert.equal(group.count, group.agents, 'a group counts its events');
  const capped = outline(everyEventItsOwnAgent, '', 1000);
  assert.deepEqual(capped.map((l) => [l.agent, l.count, l.first]), lanes.map((l) => [l.agent, l.count, l.first]), 'capped, the same symbols and counts');
  assert.equal(capped.reduce((sum, l) => sum + l.events.length, 0), 1000);
});
