/** The timeline layout: compressed idle gaps, the spawn tree of lanes, tool calls paired with their results. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byTimeOrder, laneTree, pairToolCalls } from '../../../src/engine/lanes';
import { axisToTime, timeAxis, timeToAxis } from '../../../src/shared/axis';
import type { TraceEvent } from '../../../src/trace/schema';

const ev = (id: string, t: number, type: string, agent: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({ id, t, type, agent, ...extra }) as TraceEvent;

test('even steps keep their shape; a long idle gap is compressed and marked', () => {
  const even = timeAxis([0, 1, 2, 3, 4]);
  assert.deepEqual(even.gaps, []);
  assert.equal(even.span, 4);
  const times = [0, 1, 2, 3, 1000, 1001, 1002];
  const axis = timeAxis(times);
  assert.equal(axis.gaps.length, 1);
  const [gap] = axis.gaps;
  assert.deepEqual([gap.t0, gap.t1], [3, 1000]);
  assert.ok(axis.span < 100, `the 997 s gap is drawn short: span ${axis.span}`);
  // monotone, and invertible outside the gap
  for (let i = 1; i < times.length; i++) assert.ok(timeToAxis(axis, times[i]) > timeToAxis(axis, times[i - 1]));
  for (const t of times) assert.ok(Math.abs(axisToTime(axis, timeToAxis(axis, t)) - t) < 1e-9);
  assert.equal(timeToAxis(axis, 1001) - timeToAxis(axis, 1000), 1, 'time after the gap keeps its scale');
});

test('lanes form a spawn tree: sub-agents follow their spawner, depth first', () => {
  const lanes = laneTree([
    ev('a', 0, 'spawn', 'lead', { to: 'w2' }),
    ev('b', 1, 'message', 'other'),
    ev('c', 2, 'message', 'w2'),
    ev('d', 3, 'spawn', 'w2', { to: 'w3' }),
    ev('e', 4, 'message', 'w3'),
    ev('f', 5, 'delegate', 'lead', { to: 'w4' }),
    ev('g', 6, 'message', 'w4'),
  ]);
  assert.deepEqual(lanes.map((l) => `${'  '.repeat(l.depth)}${l.name}<${l.parent ?? ''}`), ['lead<', '  w2<lead', '    w3<w2', '  w4<lead', 'other<']);
});

test('a spawn cycle does not hide lanes', () => {
  const lanes = laneTree([ev('a', 0, 'spawn', 'x', { to: 'y' }), ev('b', 1, 'spawn', 'y', { to: 'x' })]);
  assert.deepEqual(lanes.map((l) => l.name).sort(), ['x', 'y']);
});

test('tool calls pair with their results: edge, parent, else the next result of that tool in the lane', () => {
  const events = [
    ev('c1', 0, 'tool_call', 'a', { tool: 'Read' }),
    ev('c2', 1, 'tool_call', 'a', { tool: 'Bash' }),
    ev('r2', 2, 'tool_result', 'a', { tool: 'Bash' }),
    ev('r1', 3, 'tool_result', 'a', { tool: 'Read', parent: 'c1' }),
    ev('c3', 4, 'tool_use', 'b', { tool: 'x' }),
    ev('r3', 5, 'tool_result', 'b', { tool: 'x' }),
    ev('c4', 6, 'tool_call', 'b', { tool: 'y' }),
    ev('r4', 7, 'tool_result', 'b'),
  ];
  const pairs = pairToolCalls(events, [{ src: 'c4', dst: 'r4', type: 'tool_dependency' }]);
  assert.deepEqual([...pairs].sort((a, b) => a[0] - b[0]), [
    [0, 3],
    [1, 2],
    [4, 5],
    [6, 7],
  ]);
});

test('byTimeOrder: file order when the times never decrease, else sorted by time with ties in file order', () => {
  const at = (ts: number[]) => ts.map((t, k) => ({ id: `e${k}`, type: 'message', agent: 'a', t }) as TraceEvent);
  assert.deepEqual(Array.from(byTimeOrder(at([0, 1, 1, 5]))), [0, 1, 2, 3]);
  assert.deepEqual(Array.from(byTimeOrder(at([3, 1, 1, 0, 2]))), [3, 1, 2, 4, 0]);
  assert.deepEqual(Array.from(byTimeOrder(at([]))), []);
  // a time that is not a number is not taken for the file order
  const odd = at([1, 2, 3]);
  (odd[1] as { t: unknown }).t = '0';
  assert.deepEqual(Array.from(byTimeOrder(odd)), [1, 0, 2]);
});
