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
