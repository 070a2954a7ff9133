/**
 * Agent names are trace text: "__proto__", "constructor" or "toString" are names like any other.
 * Once, an agent named "__proto__" made the per-agent costs write into Object.prototype, and every
 * trace analysed after it in the same process (the engine's worker included) came out wrong.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { readTraceJsonl } from '../../../src/trace/read';

const DEMO = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8');

function hostile(): string {
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
  const lines = names.flatMap((agent, k) => [
    { id: `m${k}`, t: k, type: 'message', agent, to: names[(k + 1) % names.length], content: `hand-off ${k}` },
    { id: `c${k}`, t: k + 0.5, type: 'tool_call', agent, tool: 'bash', content: 'make', tokens: 10 },
  ]);
  return [...lines, { id: 'end', t: 9, type: 'stop', agent: 'constructor', reason: 'task_complete' }].map((l) => JSON.stringify(l)).join('\n');
}

test('agents named "__proto__" or "constructor" are counted as agents and leave later traces alone', () => {
  const before = JSON.stringify(analyzeTrace(readTraceJsonl(DEMO)).metrics);
  const a = analyzeTrace(readTraceJsonl(hostile()));
  assert.equal(({} as Record<string, unknown>).events, undefined, 'Object.prototype untouched');
  const perAgent = a.metrics.per_agent as Record<string, { events: number }>;
  assert.ok(Object.prototype.hasOwnProperty.call(perAgent, '__proto__'), 'an own entry for "__proto__"');
  assert.equal(perAgent['__proto__'].events, 2);
  assert.equal(perAgent['constructor'].events, 3);
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
    assert.equal(typeof Object.getOwnPropertyDescriptor(a.credit.agents, name)?.value, 'number', `credit of ${name} is a number`);
  assert.equal(JSON.stringify(analyzeTrace(readTraceJsonl(DEMO)).metrics), before, 'the next trace is analysed as before');
});

test('mapped record types and the agents of a file of several traces named "__proto__" or "constructor" are counted like any other text', async () => {
  const { parseMapping, readWithMapping } = await import('../../../src/trace/mapping');
  const fixtures = path.join(__dirname, '..', '..', 'fixtures', 'mapping');
  const { mapping } = parseMapping(fs.readFileSync(path.join(fixtures, 'crew.otrace-map.json'), 'utf8'), 'crew.otrace-map.json');
  const odd = ['__proto__', 'constructor', 'constructor'].map((ev, k) => JSON.stringify({ ev_id: `x${k}`, ts: 1767258000000 + k, who: 'planner', ev }));
  const loaded = readWithMapping([fs.readFileSync(path.join(fixtures, 'crew.runlog.jsonl'), 'utf8').trimEnd(), ...odd].join('\n'), 'crew.runlog.jsonl', mapping!);
  const skipped = (loaded.trace.metadata as { skipped_records: Record<string, number> }).skipped_records;
  assert.equal(Object.getOwnPropertyDescriptor(skipped, '__proto__')?.value, 1);
  assert.equal(Object.getOwnPropertyDescriptor(skipped, 'constructor')?.value, 2);
  assert.ok(loaded.problems.some((p) => /__proto__ 1, constructor 2/.test(p.message)), loaded.problems.map((p) => p.message).join('\n'));
  // a file of several traces sums credit per agent over its traces
  const twoTraces = ['t1', 't2'].flatMap((trace_id, k) => [
    { trace_id },
    { id: `a${k}`, t: k, type: 'message', agent: '__proto__', content: 'draft' },
    { id: `b${k}`, t: k + 0.5, type: 'stop', agent: 'constructor', reason: 'task_complete' },
  ]);
  const a = analyzeTrace(readTraceJsonl(twoTraces.map((l) => JSON.stringify(l)).join('\n')));
  assert.equal(a.traces?.length, 2);
  assert.equal(typeof Object.getOwnPropertyDescriptor(a.credit.agents, '__proto__')?.value, 'number', 'summed over the traces, as an own field');
  assert.equal(typeof Object.getOwnPropertyDescriptor(a.credit.agents, 'constructor')?.value, 'number');
  assert.equal(({} as Record<string, unknown>).events, undefined, 'Object.prototype untouched');
});
