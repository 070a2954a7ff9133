import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { traceOf } from './build';
import { computeMetrics } from '../../../src/analysis/metrics';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { generateTrace } from '../../../bench/_generate';

test('the critical path is named by its events\' ids when read, in time order, though the file lists them in another order (and JSON holds them)', () => {
  const events = [
    { id: 'g', type: 'aggregate', agent: 'orch', t: 4, duration_s: 1, content: 'a' },
    { id: 'c1', type: 'tool_call', agent: 'w1', tool: 'search', t: 1, duration_s: 2 },
    { id: 's1', type: 'spawn', agent: 'orch', to: 'w1', t: 0 },
    { id: 'r1', type: 'return', agent: 'w1', to: 'orch', t: 3, content: 'found a' },
  ] as const;
  const a = analyzeTrace(traceOf([...events], [['r1', 'g', 'aggregate']]));
  assert.deepEqual(a.metrics.critical_path_events, ['s1', 'c1', 'r1', 'g']);
  assert.deepEqual((JSON.parse(JSON.stringify(a.metrics)) as { critical_path_events: string[] }).critical_path_events, ['s1', 'c1', 'r1', 'g']);
  // a caller may set it (e.g. a copy made for a view)
  a.metrics.critical_path_events = ['x'];
  assert.deepEqual(a.metrics.critical_path_events, ['x']);
});

test('parallelism = total work / critical path, with spawn fan-out, depth and a centralized topology', () => {
  const a = analyzeTrace(
    traceOf(
      [
        { id: 's1', type: 'spawn', agent: 'orch', to: 'w1', t: 0 },
        { id: 's2', type: 'spawn', agent: 'orch', to: 'w2', t: 0 },
        { id: 'c1', type: 'tool_call', agent: 'w1', tool: 'search', t: 1, duration_s: 2, tokens: 30, cost: 0.01 },
        { id: 'c2', type: 'tool_call', agent: 'w2', tool: 'search', t: 1, duration_s: 2, tokens: 30, cost: 0.02 },
        { id: 'r1', type: 'return', agent: 'w1', to: 'orch', t: 3, tokens: 20, content: 'found a' },
        { id: 'r2', type: 'return', agent: 'w2', to: 'orch', t: 3, tokens: 20, content: 'found b' },
        { id: 'g', type: 'aggregate', agent: 'orch', t: 4, duration_s: 1, tokens: 100, content: 'a and b' },
      ],
      [
        ['r1', 'g', 'aggregate'],
        ['r2', 'g', 'aggregate'],
      ],
    ),
  );
  const m = a.metrics;
  assert.equal(m.work_basis, 'seconds');
  // work: each search 1 s of latency (spawned at 0, started at 1) + 2 s; the aggregate 1 s of latency + 1 s
  assert.equal(m.total_work, 8);
  // the path from the first event to the end of the run, waits included: 1 + 2 + 1 + 1 s
  assert.equal(m.critical_path, 5);
  assert.equal(m.parallelism, 1.6);
  assert.deepEqual(m.critical_path_events, ['s1', 'c1', 'r1', 'g']);
  assert.equal(m.spawns, 2);
  assert.equal(m.max_fan_out, 2);
  assert.equal(m.spawn_depth, 1);
  // hand-offs between agents: the two returns (spawns carry no tokens) = 40 of 200 tokens
  assert.equal(m.protocol_overhead, 0.2);
  assert.equal(m.overhead_basis, 'tokens');
  assert.deepEqual(m.per_agent.w2, { events: 2, tokens: 50, cost: 0.02, seconds: 2 });
  assert.deepEqual(m.per_agent.orch, { events: 3, tokens: 100, cost: 0, seconds: 1 });
  assert.equal(a.topology.guess, 'centralized');
  assert.equal(a.topology.declared, undefined);
});

test('topology: spawn depth 2 is hierarchical; one agent with tools is a harness', () => {
  const h = analyzeTrace(
    traceOf([
      { id: 's1', type: 'spawn', agent: 'root', to: 'mid' },
      { id: 's2', type: 'spawn', agent: 'mid', to: 'leaf' },
      { id: 'x', type: 'message', agent: 'leaf', to: 'mid', content: 'done' },
    ]),
  );
  assert.equal(h.metrics.spawn_depth, 2);
  assert.equal(h.topology.guess, 'hierarchical');

  const harness = analyzeTrace(
    traceOf(
      [
        { id: 'u', type: 'message', agent: 'user', content: 'run it' },
        { id: 'c', type: 'tool_call', agent: 'codex', tool: 'exec_command', content: 'ls' },
        { id: 'r', type: 'tool_result', agent: 'codex', tool: 'exec_command', content: 'a b' },
      ],
      [],
      { topology: 'harness' },
    ),
  );
  assert.equal(harness.topology.guess, 'harness');
  assert.equal(harness.topology.declared, 'harness');
  // the call's work: 1 s of latency after the prompt, then 1 s until its result; all of it on the critical path
  assert.equal(harness.metrics.work_basis, 'seconds');
  assert.equal(harness.metrics.total_work, 2);
  assert.equal(harness.metrics.parallelism, 1);
});

test('topology: planner, executor and critic roles; debate roles', () => {
  const pec = analyzeTrace(
    traceOf([
      { id: 'a', type: 'message', agent: 'planner', to: 'executor', content: 'plan' },
      { id: 'b', type: 'message', agent: 'executor', to: 'critic', content: 'result' },
      { id: 'c', type: 'message', agent: 'critic', to: 'planner', content: 'looks wrong' },
    ]),
  );
  assert.equal(pec.topology.guess, 'planner_executor_critic');
  const debate = analyzeTrace(
    traceOf([
      { id: 'a', type: 'message', agent: 'debater_1', to: 'debater_2', content: 'yes' },
      { id: 'b', type: 'message', agent: 'debater_2', to: 'debater_1', content: 'no' },
      { id: 'c', type: 'message', agent: 'judge', content: 'yes wins' },
    ]),
  );
  assert.equal(debate.topology.guess, 'debate');
});

test('an empty trace gives empty results, no exception', () => {
  const a = analyzeTrace(traceOf([]));
  assert.deepEqual(a.stops, []);
  assert.deepEqual(a.loops, []);
  assert.equal(a.blame, null);
  assert.equal(a.best_stop, null);
  assert.equal(a.metrics.events, 0);
  assert.equal(a.metrics.parallelism, 1);
  assert.equal(a.topology.guess, 'unknown');
});

test('the metrics give the critical path\'s columns back before busy time takes its own: the arena\'s high-water mark grows by under 30 bytes per event', () => {
  const index = new TraceIndex(generateTrace(20_000));
  const before = index.arena.touched; // the index's columns and its build's scratch
  const m = computeMetrics(index);
  const grown = (index.arena.touched - before) / index.size;
  assert.ok(m.lane_time !== undefined && m.critical_path > 0, 'busy time and the critical path were computed');
  // own work and busy starts (8 + 8), then the larger of the critical path's (8 + 8 + 4) and busy time's scratch, not their sum (about 39)
  assert.ok(grown < 30, `the arena grew by ${grown.toFixed(1)} bytes per event`);
  index.free();
});

test('the critical path made in parts (65,536 events each) is the one chain through them: 150,000 events in one lane, each after the last', () => {
  const n = 150_000;
  const events = Array.from({ length: n }, (_, i) => ({ id: `e${i}`, type: 'message' as const, agent: i % 2 ? 'a' : 'b', t: i * 2, duration_s: 1, ...(i ? { parent: `e${i - 1}` } : {}), content: `step ${i}` }));
  const m = computeMetrics(new TraceIndex(traceOf(events)));
  assert.equal(m.critical_path_events.length, n, 'every event on the chain, across the parts');
  assert.equal(m.critical_path_events[65_536], 'e65536');
  // each event waits 1 s for the last one's end (latency) and works 1 s: the first has no latency
  assert.equal(m.total_work, 2 * n - 1);
  assert.equal(m.critical_path, 2 * n - 1);
  assert.equal(m.parallelism, 1);
});

test('a call issued while the one before it runs does not start the critical path anew: a one-lane run with calls side by side has a path as long as the run', () => {
  const m = analyzeTrace(
    traceOf([
      { id: 'u', type: 'message', agent: 'user', from: 'user', to: 'main', content: 'check both services', t: 0 },
      { id: 'm', type: 'message', agent: 'main', content: 'checking both', t: 1, duration_s: 1 },
      { id: 'c1', type: 'tool_call', agent: 'main', tool: 'curl', content: 'service a', t: 2 },
      { id: 'c2', type: 'tool_call', agent: 'main', tool: 'curl', content: 'service b', t: 2.01 },
      { id: 'r1', type: 'tool_result', agent: 'main', tool: 'curl', content: 'a up', t: 30 },
      { id: 'r2', type: 'tool_result', agent: 'main', tool: 'curl', content: 'b up', t: 31 },
      { id: 'a', type: 'message', agent: 'main', content: 'both are up', t: 40, duration_s: 2 },
    ]),
  ).metrics;
  assert.equal(m.wall_time, 42);
  assert.equal(m.critical_path, 42, `path ${m.critical_path_events.join(' → ')}`);
  assert.deepEqual(m.critical_path_events.slice(0, 3), ['u', 'm', 'c1']);
});
