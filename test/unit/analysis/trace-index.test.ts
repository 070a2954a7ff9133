/**
 * TraceIndex columns kept narrow or not at all (docs/large-traces.md, Memory): file indices and
 * records read when asked, receivers in the narrowest column their lanes fit.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { traceOf } from './build';

test('file indices and records: the position itself in file order, the sorted order else', () => {
  const inOrder = new TraceIndex(traceOf([0, 1, 2].map((k) => ({ id: `e${k}`, type: 'message', agent: 'a', content: `m${k}` }))));
  assert.equal(inOrder.inFileOrder, true);
  assert.deepEqual([0, 1, 2].map((i) => inOrder.at(i)), [0, 1, 2]);
  assert.deepEqual(Array.from(inOrder.rawIndex), [0, 1, 2]);
  assert.deepEqual([0, 1, 2].map((i) => inOrder.record(i)), [0, 1, 2]);

  const shuffled = new TraceIndex(traceOf([2, 0, 1].map((t) => ({ id: `e${t}`, type: 'message', agent: 'a', t, content: `m${t}` }))));
  assert.equal(shuffled.inFileOrder, false);
  assert.deepEqual([0, 1, 2].map((i) => shuffled.id(i)), ['e0', 'e1', 'e2']);
  assert.deepEqual([0, 1, 2].map((i) => shuffled.at(i)), [1, 2, 0]);
  assert.deepEqual(Array.from(shuffled.rawIndex), [1, 2, 0]);
  assert.deepEqual([0, 1, 2].map((i) => shuffled.record(i)), [1, 2, 0], 'the record of the event at each position');
});

test('an event without a record reads -1', () => {
  const loaded = traceOf([{ id: 'a', type: 'message', agent: 'x', content: 'hi' }]);
  loaded.eventOrigins = { ...loaded.eventOrigins, length: 1, get: () => undefined, record: () => undefined } as unknown as typeof loaded.eventOrigins;
  assert.equal(new TraceIndex(loaded).record(0), -1);
});

for (const lanes of [3, 300]) {
  test(`receivers with ${lanes} lanes: the agent named by \`to\` when it has a lane, else none`, () => {
    const events = Array.from({ length: lanes }, (_, k) => ({ id: `e${k}`, type: 'message' as const, agent: `agent${k}`, to: `agent${(k + 1) % lanes}`, content: `hello ${k}` }));
    events.push({ id: 'x', type: 'message', agent: 'agent0', to: 'nobody', content: 'lost' });
    events.push({ id: 'y', type: 'message', agent: 'agent1', to: 'agent1', content: 'self' });
    const index = new TraceIndex(traceOf(events));
    for (let k = 0; k < lanes; k++) assert.equal(index.receiver(k), `agent${(k + 1) % lanes}`);
    assert.equal(index.receiver(lanes), undefined, 'a receiver without a lane');
    assert.equal(index.receiver(lanes + 1), undefined, 'an agent addressing itself');
    assert.equal(index.handoffsName, true);
  });
}

test('laneCountTo: how many of an agent\'s events lie at or before a position (its place after it); nextInLane the next one', () => {
  const agents = ['a', 'b', 'a', 'a', 'b', 'c'];
  const index = new TraceIndex(traceOf(agents.map((agent, k) => ({ id: `e${k}`, type: 'message' as const, agent, content: `m${k}` }))));
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => index.laneCountTo('a', i)), [1, 1, 2, 3, 3, 3]);
  assert.deepEqual([-1, 0, 3, 4, 5].map((i) => index.laneCountTo('b', i)), [0, 0, 1, 2, 2]);
  assert.equal(index.laneCountTo('nobody', 3), 0);
  assert.deepEqual([0, 2, 3].map((i) => index.nextInLane('a', i)), [2, 3, -1]);
});

test('resultOf and callOf: a tool call and its result name each other; any other event names none', () => {
  const index = new TraceIndex(
    traceOf([
      { id: 'c1', type: 'tool_call', agent: 'a', tool: 'search', content: 'q' },
      { id: 'm', type: 'message', agent: 'a', content: 'waiting' },
      { id: 'r1', type: 'tool_result', agent: 'a', tool: 'search', content: 'hits' },
      { id: 'c2', type: 'tool_call', agent: 'a', tool: 'fetch', content: 'url' },
    ]),
  );
  assert.deepEqual([0, 1, 2, 3].map((i) => index.resultOf(i)), [2, -1, -1, -1]);
  assert.deepEqual([0, 1, 2, 3].map((i) => index.callOf(i)), [-1, -1, 0, -1]);
});

test('fingerprints name the first event with the same content; firstSeen reads it, opaque events are their own', () => {
  const index = new TraceIndex(
    traceOf([
      { id: 'a', type: 'message', agent: 'x', content: 'hello there' },
      { id: 'b', type: 'message', agent: 'x', content: 'other words' },
      { id: 'c', type: 'message', agent: 'x', content: 'hello   there' },
      { id: 'd', type: 'message', agent: 'x' },
      { id: 'e', type: 'message', agent: 'y', content: 'hello there' },
    ]),
  );
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => index.firstSeen(i)), [0, 1, 0, 3, 4], 'c repeats a (same normalized content); e is another agent');
  assert.equal(index.fingerprints[2], index.fingerprints[0]);
  assert.notEqual(index.fingerprints[4], index.fingerprints[0]);
  assert.ok(index.fingerprints[3] < 0, 'an event without content has a unique negative fingerprint');
});

test('a call with several stated results (a background run: its launch, then its outcome) is answered by the last; a later call is never paired with them by guess', () => {
  const index = new TraceIndex(
    traceOf([
      { id: 'build', type: 'tool_call', agent: 'main', tool: 'Bash', content: 'npm run build' },
      { id: 'launch', type: 'tool_result', agent: 'main', tool: 'Bash', content: 'Command running in background', causes: ['build'] },
      { id: 'lint', type: 'tool_call', agent: 'main', tool: 'Bash', content: 'npm run lint' },
      { id: 'outcome', type: 'tool_result', agent: 'main', tool: 'Bash', content: 'failed with exit code 2', causes: ['build'], is_error: true },
    ]),
  );
  assert.equal(index.resultOf(0), 3, 'the build is answered by its outcome');
  assert.deepEqual([index.callOf(1), index.callOf(3)], [0, 0], 'both results name the build');
  assert.equal(index.resultOf(2), -1, 'the lint call got no result');
});

test('a result stated to answer a delegation (a sub-agent launched in the background) is never paired with a tool call by guess', () => {
  const index = new TraceIndex(
    traceOf([
      { id: 'read', type: 'tool_call', agent: 'main', tool: 'Read', content: 'a.ts' },
      { id: 'task', type: 'delegate', agent: 'main', to: 'worker', tool: 'Agent', content: 'audit' },
      { id: 'ack', type: 'tool_result', agent: 'main', tool: 'Agent', content: 'Async agent launched', causes: ['task'] },
    ]),
  );
  assert.equal(index.resultOf(0), -1);
  assert.equal(index.callOf(2), -1);
});

test("the index's list of types has one hidden class whether or not V8 has optimized the code that makes it (else every function reading it is deoptimized once that code is optimized)", () => {
  // in a child process with V8's natives syntax: the types list of the first index (interpreted
  // code) against that of the last after thousands (optimized code), with %HaveSameMap
  const script = `
    const { TraceIndex } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'src', 'analysis', 'trace-index.ts'))});
    const { traceOf } = require(${JSON.stringify(path.join(__dirname, 'build.ts'))});
    const loaded = traceOf(Array.from({ length: 60 }, (_, k) => ({ id: 'e' + k, type: k % 3 ? 'message' : 'tool_call', agent: 'a' + (k % 4), tool: 'search', content: 'step ' + (k % 7) })));
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
    const first = new TraceIndex(loaded).types;
    let last = first;
    for (let k = 0; k < 4000; k++) last = new TraceIndex(loaded).types;
    process.stdout.write(JSON.stringify({ same: sameMap(first, last), length: last.length }));
  `;
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { same: true, length: 60 });
});
