// Repeated sequences in a lane (src/analysis/loops/sequences.ts), through findLoops.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../../src/analysis';
import { findLoops } from '../../../../src/analysis/loops';
import { TraceIndex } from '../../../../src/analysis/trace-index';
import { indicesOf, traceOf } from '../build';

test('repeated_sequence: a tandem repeat in one lane, period 2, and the trace ends inside it', () => {
  const events = [{ id: 'u', type: 'message' as const, agent: 'user', content: 'make it pass' }];
  for (let k = 0; k < 3; k++) {
    events.push({ id: `p${k}`, type: 'message' as const, agent: 'coder', content: 'I will rerun the build', tokens: 4 } as never);
    events.push({ id: `q${k}`, type: 'orchestrator_decision' as const, agent: 'coder', content: 'build failed, retry', tokens: 6 } as never);
  }
  const loaded = traceOf(events);
  const loops = findLoops(new TraceIndex(loaded));
  assert.equal(loops.length, 1);
  assert.deepEqual(loops[0], {
    kind: 'repeated_sequence',
    events: ['p0', 'q0', 'p1', 'q1', 'p2', 'q2'],
    indices: indicesOf(loaded, ['p0', 'q0', 'p1', 'q1', 'p2', 'q2']),
    period: 2,
    repetitions: 3,
    tokens: 20,
    seconds: 3,
    unresolved: true,
    agents: ['coder'],
    message: 'coder repeated the same 2-event sequence 3 times, 20 tokens; the trace ended inside it',
  });
});

test('repeated_sequence needs a single event 3 times in a row, a longer block twice', () => {
  const twice = traceOf([
    { id: 'a', type: 'message', agent: 'proxy', content: 'continue' },
    { id: 'b', type: 'message', agent: 'proxy', content: 'continue' },
    { id: 'c', type: 'message', agent: 'proxy', content: 'something else' },
  ]);
  assert.deepEqual(findLoops(new TraceIndex(twice)), []);
  const thrice = traceOf([
    { id: 'a', type: 'message', agent: 'proxy', content: 'continue' },
    { id: 'b', type: 'message', agent: 'proxy', content: 'Continue ' },
    { id: 'c', type: 'message', agent: 'proxy', content: 'continue' },
  ]);
  const loops = findLoops(new TraceIndex(thrice));
  assert.deepEqual(
    loops.map((l) => [l.kind, l.period, l.repetitions, l.events]),
    [['repeated_sequence', 1, 3, ['a', 'b', 'c']]],
  );
});

test('events without content never repeat', () => {
  const loaded = traceOf([
    { id: 'a', type: 'tool_result', agent: 't' },
    { id: 'b', type: 'tool_result', agent: 't' },
    { id: 'c', type: 'tool_result', agent: 't' },
    { id: 'd', type: 'tool_result', agent: 't' },
  ]);
  assert.deepEqual(analyzeTrace(loaded).loops, []);
});
