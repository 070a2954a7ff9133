/**
 * Gemini CLI saved chats (session-*.jsonl, legacy session-*.json, `/chat save` checkpoints), read by
 * src/trace/importers/gemini-cli.ts and gemini-checkpoint.ts; the fixtures are written from the
 * writer's code (test/fixtures/gemini-cli/SOURCE.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectFormat, loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import type { LoadedTrace } from '../../../../src/trace/model';
import { traceStats } from '../../../../src/trace/stats';
import { traceSigns } from '../../../../src/trace/trace-sniff';
import { fixture } from '../../helpers';

const JSONL = ['gemini-cli', 'chats', 'session-2026-05-04T09-12-3c1f9a2e.jsonl'];
const LEGACY = ['gemini-cli', 'legacy', 'session-2025-10-01T14-11-3bacc8a0.json'];
const CHECKPOINT = ['gemini-cli', 'checkpoint-refactor.json'];
const load = (parts: string[], text = fixture(...parts)): LoadedTrace => loadTrace(text, `/home/dev/.gemini/tmp/proj/${parts.slice(1).join('/')}`);
const byId = (l: LoadedTrace, id: string) => l.trace.events.find((e) => e.id === id)!;
const line = (l: LoadedTrace, id: string) => l.eventOrigins.get(l.trace.events.findIndex((e) => e.id === id))!.range.start.line + 1;

test('Gemini CLI session JSONL: one lane, prompts, answers with thoughts and tokens by kind, the last version of a rewritten message', () => {
  const l = load(JSONL);
  assert.equal(l.format, 'gemini-cli');
  assert.equal(l.trace.trace_id, '3c1f9a2e-5b7d-4e21-9a0c-6f2d8b4e1a73');
  assert.deepEqual([...new Set(l.trace.events.map((e) => e.agent))], ['gemini']);
  assert.deepEqual(traceStats(l).by_type, { message: 9, tool_call: 3, tool_result: 3, stop: 3 });
  const first = byId(l, 'b2e1d8f3-1c2f-4d66-9a8b-2f3e4d5c6b02') as Record<string, unknown>;
  // written twice (tokens came after the tool call): the second line wins, one event
  assert.equal(line(l, 'b2e1d8f3-1c2f-4d66-9a8b-2f3e4d5c6b02'), 5);
  assert.deepEqual(first.usage, { input: 928, cache_read: 8192, output: 129, reasoning: 88 });
  assert.equal(first.tokens, 129);
  assert.deepEqual(first.thoughts, ["Running the tests: I will run the core package's tests to see the failure."]);
  assert.equal(first.model, 'gemini-2.5-pro');
  const prompts = l.trace.events.filter((e) => e.type === 'message' && e.from === 'user').map((e) => e.content);
  // the rewound prompt ("... rm -rf node_modules") is gone, as Gemini CLI's own loader drops it
  assert.deepEqual(prompts, ['Why does npm test fail in packages/core?', 'Fix it.', 'Go ahead, I approve the edit.']);
  assert.ok(l.problems.some((p) => p.severity === 'info' && /rewind/.test(p.message) && p.range.start.line === 10));
  assert.equal(l.trace.metadata?.gemini_cli && (l.trace.metadata.gemini_cli as Record<string, unknown>).summary, 'Fix failing paths test in packages/core');
});

test('Gemini CLI session JSONL: tool calls with results, a failure and a cancellation', () => {
  const l = load(JSONL);
  const run = byId(l, 'run_shell_command-1746349929480-1');
  assert.deepEqual([run.type, run.tool, run.content], ['tool_call', 'run_shell_command', '{"command":"npm test --workspace packages/core"}']);
  const ok = byId(l, 'run_shell_command-1746349929480-1:result');
  assert.match(ok.content ?? '', /^FAIL src\/utils\/paths\.test\.ts/);
  assert.equal((ok as Record<string, unknown>).error, undefined);
  assert.ok(l.trace.edges.some((e) => e.type === 'tool_dependency' && e.src === run.id && e.dst === ok.id));
  assert.equal(ok.t, 18.803); // its own timestamp: when the call finished
  const failed = byId(l, 'read_file-1746349944015-2:result') as Record<string, unknown>;
  assert.equal(failed.error, 'File not found: /home/dev/proj/packages/core/src/utils/path.ts');
  const cancelled = byId(l, 'replace-1746350006540-3:result') as Record<string, unknown>;
  assert.deepEqual([cancelled.cancelled, cancelled.error], [true, '[Operation Cancelled] Reason: User cancelled the operation.']);
});

test('Gemini CLI session JSONL: turn ends after an answer, a cancelled request (the user\'s) and an error, info and error as harness meta', () => {
  const l = load(JSONL);
  const stops = l.trace.events.filter((e) => e.type === 'stop').map((e) => [e.id, e.reason, (e as Record<string, unknown>).scope, e.decided_by]);
  assert.deepEqual(stops, [
    ['d4a3f0b5-3e4b-4f88-9cad-4b5a6f7e8d04:turn_end', 'task_complete', 'turn', 'gemini'],
    // "Request cancelled." (the user pressed Esc during the edit): the user ended that turn
    ['18e7d4f9-7c8f-4dcc-9ae1-8f9e0d1c2b08:turn_end', 'user_abort', 'turn', 'user'],
    // the quota error ends the last turn; a limit, not a failure of the agent
    ['3a09f6b1-9e0b-4fee-9c03-0b1a2f3e4d10:turn_end', 'budget_exhausted', 'turn', 'harness'],
  ]);
  // the error's stop says what the error was
  assert.equal(byId(l, '3a09f6b1-9e0b-4fee-9c03-0b1a2f3e4d10:turn_end').content, '[API Error: You have exhausted your daily quota on this model.]');
  const info = byId(l, '18e7d4f9-7c8f-4dcc-9ae1-8f9e0d1c2b08') as Record<string, unknown>;
  assert.deepEqual([info.kind, info.from, info.role, info.error], ['meta', 'harness', 'info', undefined]);
  const err = byId(l, '3a09f6b1-9e0b-4fee-9c03-0b1a2f3e4d10') as Record<string, unknown>;
  assert.deepEqual([err.kind, err.from, err.error], ['meta', 'harness', '[API Error: You have exhausted your daily quota on this model.]']);
  // every stop of a session is a turn's end
  assert.equal(l.trace.events.filter((e) => e.type === 'stop' && (e as Record<string, unknown>).scope !== 'turn').length, 0);
});

test('Gemini CLI legacy session JSON: messages positioned in the document, tokens by kind', () => {
  const l = load(LEGACY);
  assert.equal(l.format, 'gemini-cli');
  assert.equal(l.trace.trace_id, '3bacc8a0-24d6-4415-9b2e-a2635c02e54c');
  assert.deepEqual(traceStats(l).by_type, { message: 3, tool_call: 1, tool_result: 1, stop: 1 });
  assert.equal(line(l, '6151f4b5-c125-4243-9a2c-51f1e31e4ae6'), 7);
  assert.equal(line(l, '7c1e0a55-91d2-4f0b-a7e3-0d5b1c2e3f41'), 60);
  assert.deepEqual((byId(l, '7c1e0a55-91d2-4f0b-a7e3-0d5b1c2e3f41') as Record<string, unknown>).usage, { input: 190, cache_read: 7040, output: 16, reasoning: 0 });
  assert.equal(byId(l, 'list_directory-1759327867670-0:result').content, 'Directory listing for /home/dev/notes:\ntodo.md\nideas.md');
  assert.deepEqual(l.problems.filter((p) => p.severity !== 'info'), []);
});

test('Gemini CLI /chat save checkpoint: Content history, injected context as harness meta, calls joined to responses by id', () => {
  const l = load(CHECKPOINT);
  assert.equal(l.format, 'gemini-cli');
  assert.equal(l.trace.trace_id, 'checkpoint-refactor');
  const meta = l.trace.events.filter((e) => e.kind === 'meta').map((e) => [e.id, e.from]);
  assert.deepEqual(meta, [['h0', 'harness'], ['h1', 'harness']]);
  const prompts = l.trace.events.filter((e) => e.type === 'message' && e.from === 'user').map((e) => e.content);
  assert.deepEqual(prompts, ['Rename getTmp to getProjectTempDir in src/paths.ts']);
  assert.deepEqual((byId(l, 'h3') as Record<string, unknown>).thoughts, ['I need to read the file first.']);
  const res = byId(l, 'replace-1746350103000-1:result') as Record<string, unknown>;
  assert.equal(res.error, 'Failed to edit, 0 occurrences found for old_string in /home/dev/proj/src/paths.ts.');
  assert.ok(l.trace.edges.some((e) => e.type === 'tool_dependency' && e.src === 'read_file-1746350100000-0' && e.dst === 'read_file-1746350100000-0:result'));
  assert.equal(byId(l, 'read_file-1746350100000-0').call_status, undefined);
  const stops = l.trace.events.filter((e) => e.type === 'stop').map((e) => [e.id, (e as Record<string, unknown>).scope]);
  assert.deepEqual(stops, [['h7:turn_end', 'turn']]);
  // the function call's origin is its part of the history entry
  assert.equal(line(l, 'read_file-1746350100000-0'), 34);
});

test('Gemini CLI session: bad input is positioned and the rest loads', () => {
  const text = fixture(...JSONL).split('\n');
  text[1] = '{"id": "a1d0c7e2", "timestamp": '; // a cut-off line
  text.splice(3, 0, '{"type": "gemini", "content": "no id"}', '{"id": "x1", "timestamp": "2026-05-04T09:12:06.000Z", "type": "tool_group", "content": ""}');
  const l = load(JSONL, text.join('\n'));
  assert.equal(l.format, 'gemini-cli');
  const at = (re: RegExp) => l.problems.filter((p) => re.test(p.message)).map((p) => `${p.severity} L${p.range.start.line + 1}`);
  assert.deepEqual(at(/JSON|cut off|not valid/i).slice(0, 1), ['error L2']);
  assert.deepEqual(at(/not a message/), ['warning L4']);
  assert.deepEqual(at(/does not write/), ['warning L5']);
  assert.ok(l.trace.events.some((e) => e.content === 'Fix it.'));
});

test('Gemini CLI: a call still running when the file was written has no result; detection and the sniff sign', () => {
  const head = '{"sessionId":"s1","projectHash":"p1","startTime":"2026-05-04T09:12:03.101Z","lastUpdated":"2026-05-04T09:12:03.101Z"}';
  const msg = '{"id":"m1","timestamp":"2026-05-04T09:12:04.000Z","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{},"status":"executing","timestamp":"2026-05-04T09:12:04.000Z"}]}';
  const l = loadTrace(`${head}\n${msg}\n`, 'session-x.jsonl');
  assert.equal(l.format, 'gemini-cli');
  assert.equal(byId(l, 'c1').call_status, 'no_result');
  assert.equal(l.trace.events.filter((e) => e.type === 'tool_result' || e.type === 'stop').length, 0);
  for (const f of [JSONL, LEGACY, CHECKPOINT]) {
    assert.equal(detectFormat(fixture(...f), f.join('/'))?.id, 'gemini-cli', f.join('/'));
    assert.ok(traceSigns(fixture(...f), f.join('/')).includes('gemini-cli'), f.join('/'));
  }
});

test('Gemini CLI checkpoint whose tool response has `content` (MCP tools) is taken by the Gemini reader alone, not Who&When', async () => {
  const { listFormats } = await import('../../../../src/trace/formats');
  const text = fixture(...CHECKPOINT).replace('"output": "export function getTmp', '"content": "export function getTmp');
  const taken = listFormats().filter((f) => f.detect(text, 'checkpoint-refactor.json')).map((f) => f.id);
  assert.deepEqual(taken, ['gemini-cli']);
  assert.equal(byId(load(CHECKPOINT, text), 'read_file-1746350100000-0:result').content, 'export function getTmp() {\n  return os.tmpdir();\n}\n');
});
