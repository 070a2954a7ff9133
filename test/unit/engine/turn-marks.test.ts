/**
 * No pile of stop octagons (issue 26): a session of many short turns drew every turn end on its
 * own, 33 overlapping octagons in one row. Turn ends before the lane's last stop are small marks,
 * on their own unless two more stops of the lane are within a bucket (a pile); those join the
 * bucket's run bar (a count); the lane's last stop and stops with a problem stay on their own;
 * every turn end is still drawn on its own when kept (the current event, a framed finding).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketWidth } from '../../../src/shared/axis';
import { graphOverview, graphWindow } from '../../../src/engine/graph-window';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { readTraceJsonl } from '../../../src/trace/read';
import type { WindowRequest } from '../../../src/shared/protocol';

/** One agent, 10 turns spread over 1,000 s, then 33 turns in 10 s, then one last turn at 2,000 s and a last prompt. */
function manyTurns() {
  const lines: object[] = [];
  let n = 0;
  const turn = (t: number, step: number) => {
    lines.push({ id: `u${n}`, t, type: 'message', agent: 'dev', from: 'user', content: `do step ${n}` });
    lines.push({ id: `m${n}`, t: t + step, type: 'message', agent: 'dev', from: 'dev', content: 'on it' });
    lines.push({ id: `c${n}`, t: t + 2 * step, type: 'tool_call', agent: 'dev', tool: 'bash', content: 'make' });
    lines.push({ id: `r${n}`, t: t + 3 * step, type: 'tool_result', agent: 'dev', tool: 'bash', parent: `c${n}`, content: 'ok' });
    lines.push({ id: `s${n}`, t: t + 4 * step, type: 'stop', agent: 'dev', reason: 'task_complete' });
    n++;
  };
  for (let k = 0; k < 10; k++) turn(k * 100, 5);
  for (let k = 0; k < 33; k++) turn(1000 + k * 0.3, 0.05);
  turn(2000, 5);
  lines.push({ id: 'u-last', t: 2100, type: 'message', agent: 'dev', from: 'user', content: 'thanks' }); // the last stop is a turn end too
  return makeSnapshot('turns', 1, 'turns.otrace.jsonl', readTraceJsonl(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`));
}

const snapshot = manyTurns();
const overview = graphOverview(snapshot, 'turns');
const events = snapshot.loaded.trace.events;
const stops = events.flatMap((e, i) => (e.type === 'stop' ? [i] : []));
/** Fit on a graph 1,000 px wide. */
const scale = 1000 / overview.axis.span;
const request = (over: Partial<WindowRequest> = {}): WindowRequest => ({ seq: 1, stamp: overview.stamp, mode: 'time', from: 0, to: overview.axis.span, scale, ...over });

test('44 stops: the analysis sees them as turn ends, the last one ends its lane (no verdict: a turn or phase end) and is marked its last stop', () => {
  assert.equal(stops.length, 44);
  const w = graphWindow(snapshot, request({ scale: 1000 })); // zoomed far in: every event on its own
  const marks = new Map(w.nodes.map((nd) => [nd.index, nd.marks]));
  for (const i of stops.slice(0, -1)) assert.deepEqual(marks.get(i), ['turn-end'], events[i].id);
  const last = marks.get(stops[stops.length - 1]) ?? [];
  assert.ok(last.includes('last-stop') && (last.includes('turn-end') || last.includes('phase-end')), `the last stop: ${last.join(' ')}`);
});

test('at Fit, no two stops drawn on their own are within a bucket (16 px) of each other; the crowded turn ends are counted in run bars', () => {
  const w = graphWindow(snapshot, request());
  const own = w.nodes.filter((nd) => nd.kind === 'stop').sort((a, b) => a.tx - b.tx);
  assert.ok(own.length >= 11, `the spread turn ends and the last stop stay on their own: ${own.length}`);
  for (let k = 1; k < own.length; k++) assert.ok((own[k].tx - own[k - 1].tx) * scale >= 16, `stops ${own[k - 1].eventId} and ${own[k].eventId} are ${((own[k].tx - own[k - 1].tx) * scale).toFixed(1)} px apart`);
  const last = own[own.length - 1];
  assert.equal(last.index, stops[stops.length - 1], 'the last stop is drawn on its own');
  // every stop is on its own or counted in a run bar of the turn row
  const bucket = bucketWidth(scale);
  const inRuns = stops.filter((i) => !own.some((nd) => nd.index === i));
  for (const i of inRuns) {
    const tx = overview.columns.tx[i];
    const run = w.runs.find((r) => r.lane === 0 && r.row === overview.columns.row[i] && Math.floor(r.u0 / bucket) === Math.floor(tx / bucket));
    assert.ok(run, `stop ${events[i].id} is in a run bar`);
  }
  assert.ok(inRuns.length >= 30, `${inRuns.length} crowded turn ends counted in run bars`);
});

test('a crowded turn end that is kept (the current event) is drawn on its own', () => {
  const crowded = stops[25];
  const w = graphWindow(snapshot, request({ keep: [crowded] }));
  assert.ok(w.nodes.some((nd) => nd.index === crowded), 'kept: on its own');
  assert.ok(!graphWindow(snapshot, request()).nodes.some((nd) => nd.index === crowded), 'not kept: in a run bar');
});
