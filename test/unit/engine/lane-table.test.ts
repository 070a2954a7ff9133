/**
 * The lanes of a trace in columns (issue #30 "Any shape, bounded"): a trace of 100k events each its
 * own agent keeps no lane object or lane-key Map entry per agent in its graph's structure, and the
 * columns give the lanes the string-keyed version gave (checked against it on random traces:
 * spawns, delegations, spawn edges, cycles, several traces, tool calls).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { LaneTable, laneGroups, laneTree, toolCallPairs, type LaneOrder } from '../../../src/engine/lanes';
import { agentColumn } from '../../../src/engine/agent-column';
import { foldLanes } from '../../../src/engine/lane-folds';
import { layoutStructure } from '../../../src/engine/graph-structure';
import { readTraceJsonl } from '../../../src/trace/read';
import { canonicalType, type TraceEdge, type TraceEvent } from '../../../src/trace/schema';

/** The spawn tree as it was computed before its columns (string Maps, one object per lane): the oracle. */
function laneTreeByName(events: readonly TraceEvent[], edges: readonly TraceEdge[] = []): LaneOrder[] {
  const first = new Map<string, number>();
  events.forEach((e, i) => {
    if (!first.has(e.agent)) first.set(e.agent, i);
  });
  const parent = new Map<string, string>();
  const parents = new Set<string>();
  const isAncestor = (a: string, b: string) => {
    for (let x: string | undefined = b, n = 0; x !== undefined && n < 10_000; x = parent.get(x), n++) if (x === a) return true;
    return false;
  };
  const claim = (child: string | undefined, by: string) => {
    if (!child || child === by || !first.has(child) || parent.has(child)) return;
    if (parents.has(child) && isAncestor(child, by)) return;
    parent.set(child, by);
    parents.add(by);
  };
  for (const e of events) if (canonicalType(e.type) === 'spawn') claim(e.to, e.agent);
  const byId = new Map<string, TraceEvent>();
  for (const e of events) if (!byId.has(e.id)) byId.set(e.id, e);
  for (const edge of edges) {
    if (edge.type !== 'spawn') continue;
    const src = byId.get(edge.src);
    const dst = byId.get(edge.dst);
    if (src && dst) claim(dst.agent, src.agent);
  }
  for (const e of events) if (canonicalType(e.type) === 'delegate') claim(e.to, e.agent);
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const name of first.keys()) {
    const p = parent.get(name);
    if (p === undefined) roots.push(name);
    else children.set(p, [...(children.get(p) ?? []), name]);
  }
  const out: LaneOrder[] = [];
  const stack: [string, number][] = roots.map((r) => [r, 0] as [string, number]).reverse();
  while (stack.length) {
    const [name, depth] = stack.pop()!;
    out.push({ name, parent: parent.get(name), depth });
    for (const c of [...(children.get(name) ?? [])].reverse()) stack.push([c, depth + 1]);
  }
  return out;
}

/** Random traces: a few agents (some named only in `to`), spawns, delegations, messages, tool calls and results, spawn edges, one or two traces. */
const traces = fc
  .record({
    events: fc.array(
      fc.record({
        agent: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'a#1', 'a#2'),
        type: fc.constantFrom('spawn', 'delegate', 'message', 'tool_call', 'tool_result', 'tool_use', 'return'),
        to: fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'ghost', ''), { nil: undefined }),
        tool: fc.option(fc.constantFrom('search', 'bash', ''), { nil: undefined }),
        t: fc.nat(20),
        trace: fc.option(fc.constantFrom('T1', 'T2'), { nil: undefined }),
      }),
      { maxLength: 40 },
    ),
    edges: fc.array(fc.tuple(fc.nat(40), fc.nat(40), fc.constantFrom('spawn', 'tool_dependency', 'message')), { maxLength: 6 }),
  })
  .map(({ events, edges }) => {
    const evs = events.map((e, i) => ({ id: `e${i}`, t: e.t, type: e.type, agent: e.agent, ...(e.to === undefined ? {} : { to: e.to }), ...(e.tool === undefined ? {} : { tool: e.tool }), ...(e.trace === undefined ? {} : { trace_id: e.trace }) }) as TraceEvent);
    return { events: evs, edges: edges.map(([s, d, type]) => ({ src: `e${s}`, dst: `e${d}`, type }) as TraceEdge) };
  });

test('the spawn tree in columns equals the one made by name, on random traces (cycles, spawn edges, delegations)', () => {
  fc.assert(
    fc.property(traces, ({ events, edges }) => {
      assert.deepEqual(laneTree(events, edges), laneTreeByName(events, edges));
    }),
    { seed: 30, numRuns: 500 },
  );
});

test('a LaneTable gives laneGroups\' lanes, each event\'s lane, lane keys, spawners and folds, with one trace or several', () => {
  fc.assert(
    fc.property(traces, ({ events, edges }) => {
      const groups = laneGroups(events, edges);
      const table = new LaneTable(events, edges);
      assert.equal(table.length, groups.lanes.length);
      assert.deepEqual(table.traces, groups.traces);
      assert.deepEqual(table.all(), groups.lanes);
      const index = new Map(groups.lanes.map((l, k) => [l.key, k]));
      events.forEach((e, i) => {
        assert.equal(table.keyOf(e), groups.keyOf(e));
        assert.equal(table.laneOfEvent[i], index.get(groups.keyOf(e)) ?? 0);
        if (e.to !== undefined) assert.equal(table.indexOf(table.keyOfAgent(e, e.to)), index.get(groups.keyOf({ ...e, agent: e.to })));
      });
      groups.lanes.forEach((l, k) => {
        assert.deepEqual(table.at(k), l);
        assert.equal(table.agent(k), l.agent);
        assert.equal(table.trace(k), l.trace);
        assert.equal(table.depth(k), l.depth);
        const parent = l.parent === undefined ? -1 : groups.lanes.findIndex((p) => p.name === l.parent && p.trace === l.trace);
        assert.equal(table.parentLane(k), parent);
      });
      assert.equal(table.indexOf('no such lane'), undefined);
    }),
    { seed: 30, numRuns: 500 },
  );
});

test('tool calls pair alike with the agents numbered or named', () => {
  fc.assert(
    fc.property(traces, ({ events, edges }) => {
      const named = toolCallPairs(events, edges);
      const numbered = toolCallPairs(events, edges, { agents: agentColumn(events) });
      // the calls left open are keyed by name or by number (in key order): the same calls
      const calls = (open: Map<unknown, number>) => [...open.values()].sort((a, b) => a - b);
      assert.deepEqual({ end: numbered.end, found: numbered.found, open: calls(numbered.open) }, { end: named.end, found: named.found, open: calls(named.open) });
    }),
    { seed: 30, numRuns: 500 },
  );
});

test('lanes fold alike from a LaneTable and from its lanes as objects (1,200 agents: some spawned, prefixes, several traces)', () => {
  for (const traceIds of [[undefined], ['T1', 'T2']]) {
    const events: TraceEvent[] = [];
    for (let i = 0; i < 1_200; i++) {
      const trace = traceIds[i % traceIds.length];
      const agent = i < 50 ? `boss_${i % 5}` : `worker_${i % 9}#e${i}`;
      events.push({ id: `e${i}`, t: i, type: i < 50 ? 'spawn' : 'message', agent, to: i < 50 ? `worker_${(i + 50) % 9}#e${i + 50}` : undefined, ...(trace ? { trace_id: trace } : {}) } as TraceEvent);
    }
    const table = new LaneTable(events);
    const counts = new Int32Array(table.length);
    for (const l of table.laneOfEvent) counts[l]++;
    const fromTable = foldLanes(table, counts);
    assert.ok(fromTable, 'above the fold limit');
    assert.deepEqual(fromTable, foldLanes(table.all(), counts));
  }
});

test('agents are numbered in order of first appearance, as a Map numbers them, with a few agents and with thousands', () => {
  for (const agents of [3, 10_000]) {
    const events: TraceEvent[] = [];
    // runs of one agent, agents coming back, names that share prefixes and hashes' neighbours
    for (let i = 0; i < 30_000; i++) events.push({ id: `e${i}`, t: i, type: 'message', agent: `a${(i * 7919) % agents}` } as TraceEvent);
    events.push({ id: 'x', t: 0, type: 'message', agent: '__proto__' } as TraceEvent);
    const column = agentColumn(events);
    const numbers = new Map<string, number>();
    events.forEach((e, i) => {
      if (!numbers.has(e.agent)) numbers.set(e.agent, numbers.size);
      assert.equal(column.of[i], numbers.get(e.agent));
    });
    assert.equal(column.count, numbers.size);
    // asked twice (the answers for the names asked first are kept), names of no agent too
    for (const pass of [1, 2]) {
      for (const [name, a] of numbers) {
        assert.equal(column.numberOf(name), a, `${name}, pass ${pass}`);
        assert.equal(column.name(a), name);
        assert.equal(events[column.first[a]].agent, name);
      }
      assert.equal(column.numberOf('nobody'), undefined);
      assert.equal(column.numberOf(`a${agents}`), undefined);
    }
    assert.equal(agentColumn(events), column, 'made once per events array');
  }
});

/** Heap bytes a layout structure of the first 100,000 of these events keeps (its typed arrays are outside the heap). */
function structureHeap(agentPerEvent: boolean): number {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const lines: string[] = [];
  for (let i = 0; i <= 100_000; i++) lines.push(JSON.stringify({ id: `e${i}`, t: i, type: i % 2 ? 'tool_result' : 'tool_call', agent: agentPerEvent ? `worker_${i % 7}#e${i}` : `worker_${i % 7}`, tool: 'search' }));
  const loaded = readTraceJsonl(`${lines.join('\n')}\n`);
  // fewer events than the trace's: a structure not kept with the trace, let go below
  let structure: ReturnType<typeof layoutStructure> | undefined = layoutStructure(loaded, 100_000);
  assert.equal(structure.laneCount, 7, 'folded into a group lane per worker');
  gc();
  gc();
  const held = process.memoryUsage().heapUsed;
  structure = undefined;
  gc();
  gc();
  return held - process.memoryUsage().heapUsed;
}

test('the graph structure of 100k agents keeps no lane object or lane-key entry per agent: under 60 heap bytes per agent', () => {
  // before: a lane object and a lane-key Map entry per agent, about 135 bytes; now the agents' numbering (one Map entry and a name each)
  structureHeap(true); // once first: what the first structure leaves (compiled code, lazily made tables) is not the agents'
  const runs = [0, 1].map(() => (structureHeap(true) - structureHeap(false)) / 100_000);
  const perAgent = Math.min(...runs);
  process.stdout.write(`# heap bytes per agent: ${runs.map((r) => r.toFixed(0)).join(', ')}\n`);
  assert.ok(perAgent < 60, `${perAgent.toFixed(0)} heap bytes per agent`);
});
