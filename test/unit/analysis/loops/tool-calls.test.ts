// Repeated tool calls (src/analysis/loops/tool-calls.ts), through findLoops.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../../src/analysis';
import { findLoops } from '../../../../src/analysis/loops';
import { TraceIndex } from '../../../../src/analysis/trace-index';
import { indicesOf, traceOf } from '../build';

test('repeated_tool_call: the same agent, tool, arguments and result again; another agent\'s call is no repeat', () => {
  const loaded = traceOf([
    { id: 'c1', type: 'tool_call', agent: 'a', tool: 'Bash', content: 'git status', tokens: 5 },
    { id: 'r1', type: 'tool_result', agent: 'a', tool: 'Bash', content: 'clean', tokens: 7, t: 2 },
    { id: 'c2', type: 'tool_call', agent: 'a', tool: 'Bash', content: 'git diff', tokens: 5, t: 3 },
    { id: 'r2', type: 'tool_result', agent: 'a', tool: 'Bash', content: 'nothing', t: 4 },
    { id: 'c3', type: 'tool_call', agent: 'b', tool: 'Bash', content: 'git status', tokens: 5, t: 10 },
    { id: 'r3', type: 'tool_result', agent: 'b', tool: 'Bash', content: 'clean', tokens: 7, t: 12 },
    { id: 'c4', type: 'tool_call', agent: 'a', tool: 'Bash', content: 'git status', tokens: 5, t: 20 },
    { id: 'r4', type: 'tool_result', agent: 'a', tool: 'Bash', content: ' clean\n', tokens: 7, t: 21.5 },
    { id: 'c5', type: 'tool_call', agent: 'a', tool: 'Read', content: 'git status', t: 30 },
    { id: 'c6', type: 'tool_call', agent: 'a', tool: 'Bash', content: 'Git Status', t: 31 },
  ]);
  const loops = findLoops(new TraceIndex(loaded));
  const calls = loops.filter((l) => l.kind === 'repeated_tool_call');
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0], {
    kind: 'repeated_tool_call',
    events: ['c1', 'r1', 'c4', 'r4'],
    indices: indicesOf(loaded, ['c1', 'r1', 'c4', 'r4']),
    period: 2,
    repetitions: 2,
    tokens: 12,
    seconds: 1.5,
    unresolved: false,
    agents: ['a'],
    message: 'Bash "git status" called 2 times by a with the same arguments and the same result, 12 tokens',
  });
});

for (const [name, agents] of [['one agent', ['dev', 'dev', 'dev']], ['renamed agent', ['coder_7', 'coder_7', 'coder_7']]] as const) {
  test(`repeated_tool_call (${name}): a re-run whose result changed (tests after edits, a push after a commit) is no loop`, () => {
    const [x, y, z] = agents;
    const loaded = traceOf([
      { id: 't1', type: 'tool_call', agent: x, tool: 'Bash', content: 'mix test 2>&1', t: 0 },
      { id: 'u1', type: 'tool_result', agent: x, tool: 'Bash', content: '3 tests, 2 failures', t: 1 },
      { id: 'e1', type: 'tool_call', agent: y, tool: 'Edit', content: '{"file_path":"lib/a.ex"}', t: 2 },
      { id: 'f1', type: 'tool_result', agent: y, tool: 'Edit', content: 'ok', t: 3 },
      { id: 't2', type: 'tool_call', agent: z, tool: 'Bash', content: 'mix test 2>&1', t: 4 },
      { id: 'u2', type: 'tool_result', agent: z, tool: 'Bash', content: '3 tests, 0 failures', t: 5 },
      { id: 'p1', type: 'tool_call', agent: x, tool: 'Bash', content: 'git push', t: 6 },
      { id: 'q1', type: 'tool_result', agent: x, tool: 'Bash', content: 'fatal: no upstream branch', t: 7 },
      { id: 'p2', type: 'tool_call', agent: x, tool: 'Bash', content: 'git push', t: 8 },
      { id: 'q2', type: 'tool_result', agent: x, tool: 'Bash', content: 'main -> main', t: 9 },
    ]);
    assert.deepEqual(findLoops(new TraceIndex(loaded)).filter((l) => l.kind === 'repeated_tool_call'), []);
  });
}

test('repeated_tool_call: a file read by a sub-agent and read again by the main agent is no loop; read twice by one agent, it is', () => {
  const read = (id: string, agent: string, t: number) => [
    { id, type: 'tool_call' as const, agent, tool: 'Read', content: '{"file_path":"/repo/lib/app.ex"}', t },
    { id: `${id}r`, type: 'tool_result' as const, agent, tool: 'Read', content: 'defmodule App do end', t: t + 0.5 },
  ];
  const loaded = traceOf([...read('x1', 'Explore:a93c', 0), ...read('m1', 'main', 5), ...read('m2', 'main', 9)]);
  const calls = findLoops(new TraceIndex(loaded)).filter((l) => l.kind === 'repeated_tool_call');
  assert.deepEqual(calls.map((l) => l.events), [['m1', 'm1r', 'm2', 'm2r']]);
});

test('a repeated call is named by what it ran: a JSON arguments object by its command or file, not as escaped JSON', () => {
  const args = JSON.stringify({ command: 'npm test -- --grep parser', description: 'Run the parser tests' });
  const loaded = traceOf([0, 1, 2].flatMap((k) => [
    { id: `c${k}`, type: 'tool_call' as const, agent: 'dev', tool: 'Bash', content: args, t: 2 * k },
    { id: `r${k}`, type: 'tool_result' as const, agent: 'dev', tool: 'Bash', content: '3 failing', t: 2 * k + 1 },
  ]));
  const loop = findLoops(new TraceIndex(loaded)).find((l) => l.kind === 'repeated_tool_call')!;
  assert.match(loop.message, /^Bash "npm test -- --grep parser" called 3 times by dev with the same arguments and the same result/);
  const mark = analyzeTrace(loaded).findings.find((f) => f.kind === 'loop')!;
  assert.equal(mark.inline, 'loop ×3', 'one call repeated: no "(2 steps)" for the call and its result');
});

for (const [name, agent, noise] of [['plain', 'main', 0], ['renamed, with noise between', 'builder_3', 2]] as const) {
  test(`repeated_tool_call (${name}): a compile after an edit is no loop even when it prints the same; after only reads it is`, () => {
    const filler = (k: number) => Array.from({ length: noise }, (_, j) => ({ id: `n${k}-${j}`, type: 'message' as const, agent: 'observer', content: `note ${k} ${j}` }));
    const compile = (id: string) => [
      { id, type: 'tool_call' as const, agent, tool: 'Bash', content: '{"command":"mix compile 2>&1"}' },
      { id: `${id}r`, type: 'tool_result' as const, agent, tool: 'Bash', content: 'Compiling 1 file (.ex)' },
    ];
    const edited = traceOf([
      ...compile('k1'), ...filler(1),
      { id: 'ed', type: 'tool_call' as const, agent, tool: 'Edit', content: '{"file_path":"lib/a.ex","old_string":"x","new_string":"y"}' },
      ...filler(2), ...compile('k2'),
    ].map((e, t) => ({ ...e, t })));
    assert.deepEqual(findLoops(new TraceIndex(edited)).filter((l) => l.kind === 'repeated_tool_call'), []);
    const reread = traceOf([
      ...compile('k1'), ...filler(1),
      { id: 'rd', type: 'tool_call' as const, agent, tool: 'Read', content: '{"file_path":"lib/a.ex"}' },
      ...filler(2), ...compile('k2'),
    ].map((e, t) => ({ ...e, t })));
    assert.deepEqual(findLoops(new TraceIndex(reread)).filter((l) => l.kind === 'repeated_tool_call').map((l) => l.events), [['k1', 'k1r', 'k2', 'k2r']]);
  });
}

test('a repeated read of a long path is named by its file: the front of the path is cut, never the file name', () => {
  const dir = '/home/USER/projects/spotter-worktrees/spotter-a0y/lib/spotter';
  const reads = ['scanner.ex', 'watcher.ex'].flatMap((name, k) => [0, 1].flatMap((n) => [
    { id: `c${k}${n}`, type: 'tool_call' as const, agent: 'main', tool: 'Read', content: JSON.stringify({ file_path: `${dir}/${name}` }), t: 10 * k + 2 * n },
    { id: `r${k}${n}`, type: 'tool_result' as const, agent: 'main', tool: 'Read', content: `defmodule ${name}`, t: 10 * k + 2 * n + 1 },
  ]));
  const messages = findLoops(new TraceIndex(traceOf(reads))).filter((l) => l.kind === 'repeated_tool_call').map((l) => l.message);
  assert.equal(messages.length, 2);
  assert.match(messages[0], /^Read "…\/.*\/lib\/spotter\/scanner\.ex" called 2 times/);
  assert.match(messages[1], /^Read "…\/.*\/lib\/spotter\/watcher\.ex" called 2 times/);
});

test('one loop, one finding: a repeated call with the same words around each call is the call\'s loop, not also a repeated sequence', () => {
  const events: Parameters<typeof traceOf>[0] = [{ id: 'u', type: 'message', agent: 'user', from: 'user', content: 'build the project' }];
  for (let k = 0; k < 4; k++) {
    events.push({ id: `c${k}`, type: 'tool_call', agent: 'main', tool: 'bash', content: 'npm run build', tokens: 15 });
    events.push({ id: `r${k}`, type: 'tool_result', agent: 'main', tool: 'bash', content: "error TS2304: Cannot find name 'foo'. exit 2", is_error: true } as (typeof events)[number]);
    events.push({ id: `m${k}`, type: 'message', agent: 'main', content: 'Let me try building again.', tokens: 8 });
  }
  const loops = analyzeTrace(traceOf(events)).loops;
  assert.deepEqual(loops.map((l) => [l.kind, l.events[0], l.repetitions]), [['repeated_tool_call', 'c0', 4]]);
});
