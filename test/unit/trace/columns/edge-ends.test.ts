/**
 * The ends of edges in the column reader (src/trace/columns/edge-columns.ts), found as each edge is
 * read when the events it names were read before it: each end is the first event carrying its id
 * (in any trace of the file), as the object reader's edge names it; an id carried by several
 * events, an id only a later line carries, a missing id, and edges read once events name traces.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UNRESOLVED } from '../../../../src/trace/columns/event-columns';
import { readTraceColumns } from '../../../../src/trace/columns/read-columns';

/** The trace read into columns from `lines` (one JSON value each). */
function columnsOf(lines: unknown[]) {
  const buf = Buffer.from(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, 'utf8');
  return readTraceColumns(
    (b, offset, length, position) => buf.copy(b, offset, position, Math.min(buf.length, position + length)),
    (offset, bytes) => buf.toString('utf8', offset, offset + bytes),
    undefined,
    buf.length,
  ).columns;
}

const ev = (id: string, extra: Record<string, unknown> = {}) => ({ id, t: 0, type: 'message', agent: 'a', ...extra });
const edge = (src: string, dst: string) => ({ edge: { src, dst, type: 'causal' } });

test('an edge end is the first event carrying its id: repeated ids, ids of later lines, missing ids', () => {
  const c = columnsOf([
    ev('x'), // 0
    ev('y'), // 1
    ev('x'), // 2: x again
    edge('x', 'y'), // x names event 0 (the first), though event 2 is the latest
    edge('y', 'z'), // z comes later: event 4
    ev('z'), // 3
    ev('z'), // 4
    edge('z', 'nowhere'),
    ev('w'), // 5
    ev('v'), // 6
    edge('w', 'v'),
  ]);
  assert.deepStrictEqual([...c.edges.src], [0, 1, 3, 5]);
  assert.deepStrictEqual([...c.edges.dst], [1, 3, UNRESOLVED, 6]);
  assert.equal(c.edges.end(2, 'dst'), 'nowhere');
  assert.deepStrictEqual([0, 1, 2, 3].map((i) => [c.edges.end(i, 'src'), c.edges.end(i, 'dst')]), [['x', 'y'], ['y', 'z'], ['z', 'nowhere'], ['w', 'v']]);
});

test('an edge end found while reading stays the first carrier when a repeated id comes after the edge', () => {
  const c = columnsOf([ev('p'), ev('q'), edge('q', 'p'), ev('q'), ev('p'), edge('q', 'p')]);
  assert.deepStrictEqual([...c.edges.src], [1, 1]);
  assert.deepStrictEqual([...c.edges.dst], [0, 0]);
});

test('edge ends once events name traces: the first event carrying the id in any trace of the file', () => {
  const c = columnsOf([
    { trace_id: 't1' },
    ev('a'), // 0, t1
    ev('b', { trace_id: 't2' }), // 1
    edge('a', 'b'),
    { trace_id: 't2' },
    ev('a'), // 2, t2
    edge('a', 'b'), // a: event 0 (first in the file, in trace t1)
    ev('c', { trace_id: 't1' }), // 3
    edge('c', 'a'),
  ]);
  assert.deepStrictEqual([...c.edges.src], [0, 0, 3]);
  assert.deepStrictEqual([...c.edges.dst], [1, 1, 0]);
});
