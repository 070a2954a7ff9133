/**
 * Rows inside a lane (issue 26, "lanes that use the space"): a one-agent session's lane grows rows
 * for its turns, its messages and its tool calls; span nesting in OTel-like exports goes one row
 * down; a flat log stays one row. Checked on the overview the engine sends (lanes' `rows`, the
 * events' `row` column) for real fixtures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { graphOverview } from '../../../src/engine/graph-window';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTraceFile } from '../../../src/trace/load-file';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { readTraceJsonl } from '../../../src/trace/read';
import type { GraphOverview } from '../../../src/shared/protocol';
import '../../../src/trace/importers';
import { fixturePath } from '../helpers';

function overviewOf(rel: string) {
  const file = fixturePath(rel);
  const snapshot = makeSnapshot(file, -1, file, loadTraceFile(file, nodeFileAccess));
  return { events: snapshot.loaded.trace.events, overview: graphOverview(snapshot, rel) };
}

function overviewOfText(lines: object[]) {
  const snapshot = makeSnapshot('t', 1, 't.otrace.jsonl', readTraceJsonl(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`));
  return { events: snapshot.loaded.trace.events, overview: graphOverview(snapshot, 't') };
}

/** The rows a lane's events of each kind sit on: kind -> sorted distinct rows. */
function rowsByKind(o: GraphOverview, lane: number, only?: (i: number) => boolean): Record<string, number[]> {
  const out: Record<string, Set<number>> = {};
  for (let i = 0; i < o.columns.row.length; i++) {
    if (o.columns.lane[i] !== lane || (only && !only(i))) continue;
    (out[o.kinds[o.columns.kind[i]]] ??= new Set()).add(o.columns.row[i]);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

test('Codex rollout: one lane of three rows: turns (prompts, turn ends), the messages, the tool calls below the message that made them', () => {
  const { events, overview: o } = overviewOf('codex/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
  assert.deepEqual(o.lanes.map((l) => [l.name, l.rows]), [['codex', 3]]);
  const row = o.columns.row;
  const prompts = events.flatMap((e, i) => (e.type === 'message' && e.from === 'user' ? [i] : []));
  const said = events.flatMap((e, i) => (e.type === 'message' && e.from === e.agent ? [i] : []));
  assert.equal(prompts.length, 5, 'five user prompts');
  assert.ok(said.length > 40, 'the agent says things between its calls');
  for (const i of prompts) assert.equal(row[i], 0, `prompt ${events[i].id} on the turn row`);
  for (const i of said) assert.equal(row[i], 1, `message ${events[i].id} on the message row`);
  assert.deepEqual(rowsByKind(o, 0, (i) => events[i].type === 'stop'), { stop: [0] }, 'the turn ends on the turn row');
  assert.deepEqual(rowsByKind(o, 0, (i) => events[i].type.startsWith('tool')), { tool_call: [2], tool_result: [2] }, 'tool calls and results on the tool row');
  // each tool call is below the message before it (the one that made it)
  let lastSaid = -1;
  for (let i = 0; i < events.length; i++) {
    if (said.includes(i)) lastSaid = i;
    if (events[i].type === 'tool_call' && lastSaid >= 0) assert.ok(row[i] > row[lastSaid], `call ${events[i].id} below message ${events[lastSaid].id}`);
  }
});

test('Claude Code session: main and each sub-agent lane have a turn, a message and a tool row; the compaction two', () => {
  const { events, overview: o } = overviewOf('claude-code-session/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
  assert.deepEqual(
    o.lanes.map((l) => [l.name, l.rows]),
    [
      ['main', 3],
      ['Explore:a93ccab', 3],
      ['Explore:aa84377', 3],
      ['compact:acompact-70d8e7', 2],
    ],
  );
  const main = rowsByKind(o, 0);
  assert.deepEqual(main.tool_call, [2]);
  assert.deepEqual(main.stop, [0]);
  assert.deepEqual(main.spawn, [1], 'the Task call that spawns a sub-agent is what main does: the message row');
  const first = events.findIndex((e) => e.agent === 'main');
  assert.equal(o.columns.row[first], 0, 'the user prompt "Work on bead…" on the turn row');
  // A sub-agent's lane: the task it was given on its turn row, its own words below, its tools below those.
  const explore = 1;
  const task = events.findIndex((e) => e.agent === o.lanes[explore].name);
  assert.equal(events[task].from, 'main');
  assert.equal(o.columns.row[task], 0, "the sub-agent's task on its turn row");
  assert.deepEqual(rowsByKind(o, explore, (i) => i !== task), { message: [1], return: [1], tool_call: [2], tool_result: [2], stop: [0] });
});

test('span nesting (Phoenix spans): a span inside another span of the same lane is one row below it', () => {
  const { events, overview: o } = overviewOf('phoenix/spans.phoenix.jsonl');
  const agent = o.lanes.findIndex((l) => l.name === 'agent');
  assert.equal(o.lanes[agent].rows, 2);
  const kickoff = events.findIndex((e) => e.id === 'c1');
  assert.equal(o.columns.row[kickoff], 0, 'Crew.kickoff, the root span');
  for (const id of ['c2', 'c4']) {
    const i = events.findIndex((e) => e.id === id);
    assert.equal(events[i].parent, 'c1');
    assert.equal(o.columns.row[i], 1, `${id}, a delegation inside Crew.kickoff's span, one row below`);
  }
  const solver = o.lanes.findIndex((l) => l.name === 'solver');
  assert.deepEqual(rowsByKind(o, solver), { tool_call: [1], tool_result: [1], message: [0], return: [0], stop: [0] });
});

test('span nesting deeper than four rows folds into the last row; a parent that does not hold the child in time nests nothing', () => {
  const { events, overview: o } = overviewOfText([
    { id: 'u', t: 0, type: 'message', agent: 'a', from: 'user', content: 'go' },
    { id: 'm', t: 1, type: 'message', agent: 'a', from: 'a', duration_s: 10 },
    { id: 'c1', t: 2, type: 'tool_call', agent: 'a', tool: 'outer', parent: 'm', duration_s: 8 },
    { id: 'c2', t: 3, type: 'tool_call', agent: 'a', tool: 'inner', parent: 'c1', duration_s: 5 },
    { id: 'c3', t: 4, type: 'tool_call', agent: 'a', tool: 'innermost', parent: 'c2', duration_s: 1 },
    { id: 'late', t: 20, type: 'tool_call', agent: 'a', tool: 'after', parent: 'c3' },
    { id: 'loop1', t: 21, type: 'tool_call', agent: 'a', tool: 'x', parent: 'loop2', duration_s: 5 },
    { id: 'loop2', t: 22, type: 'tool_call', agent: 'a', tool: 'y', parent: 'loop1', duration_s: 5 },
    { id: 's', t: 30, type: 'stop', agent: 'a', reason: 'task_complete' },
  ]);
  assert.equal(o.lanes[0].rows, 4, 'turn, message, tool and the deeper calls folded into the fourth row');
  const rowOf = (id: string) => o.columns.row[events.findIndex((e) => e.id === id)];
  assert.deepEqual(['u', 'm', 'c1', 'c2', 'c3', 's'].map(rowOf), [0, 1, 2, 3, 3, 0]);
  assert.equal(rowOf('late'), 2, 'starts after its parent ended: not nested, the tool row');
  assert.ok(rowOf('loop1') >= 2 && rowOf('loop2') >= 2, 'a cycle of parents ends');
});

test('a flat log (Who&When): every lane is one row; a lane with code runs has them on a row below its messages', () => {
  for (const file of ['who-and-when/Hand-Crafted/12.json', 'who-and-when/Hand-Crafted/9.json']) {
    const { overview: o } = overviewOf(file);
    assert.ok(o.lanes.length >= 4);
    for (const l of o.lanes) assert.equal(l.rows, 1, `${file}: lane ${l.name}`);
    assert.ok(o.columns.row.every((r) => r === 0));
  }
  const { overview: o } = overviewOf('who-and-when/Algorithm-Generated/96.json');
  assert.deepEqual(o.lanes.map((l) => [l.name, l.rows]), [['PopulationData_Expert', 2], ['Data_Retrieval_Expert', 2], ['Computer_terminal', 1]]);
  assert.deepEqual(rowsByKind(o, 0), { message: [0], tool_call: [1] });
});
