/**
 * GitHub Copilot CLI session logs (`~/.copilot/session-state/<id>/events.jsonl`), read by
 * src/trace/importers/copilot-cli.ts; the fixture is written from the published session-events
 * schema (test/fixtures/copilot/SOURCE.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import type { LoadedTrace } from '../../../../src/trace/model';
import { traceStats } from '../../../../src/trace/stats';
import { tokenTotals } from '../../../../src/trace/tokens';
import { fixture } from '../../helpers';

const SESSION = ['copilot', 'session-state', '0b9c3f1e-7d2a-4c58-9e61-2f4a8b7c5d30', 'events.jsonl'];
const PATH = `/home/dev/.copilot/${SESSION.slice(1).join('/')}`;
const load = (text = fixture(...SESSION)): LoadedTrace => loadTrace(text, PATH);
const byId = (l: LoadedTrace, id: string) => l.trace.events.find((e) => e.id === id)!;

test('Copilot CLI events.jsonl: messages, tool calls, the sub-agent as a lane spawned by its task call', () => {
  const l = load();
  assert.equal(l.format, 'copilot-cli');
  assert.equal(l.trace.trace_id, '0b9c3f1e-7d2a-4c58-9e61-2f4a8b7c5d30');
  const s = traceStats(l);
  assert.deepEqual(s.by_type, { message: 8, spawn: 1, tool_call: 4, tool_result: 4, return: 1, stop: 2 });
  const spawn = byId(l, 'toolu_01TASK');
  assert.deepEqual([spawn.type, spawn.agent, spawn.to, spawn.tool], ['spawn', 'copilot', 'explore', 'task']);
  // the sub-agent's events are on its lane; its prompt comes from the lane that spawned it
  const prompt = l.trace.events.find((e) => e.agent === 'explore' && e.type === 'message')!;
  assert.equal(prompt.from, 'copilot');
  assert.ok(l.trace.edges.some((e) => e.type === 'spawn' && e.src === 'toolu_01TASK' && e.dst === prompt.id));
  const ret = byId(l, 'toolu_01TASK:return');
  assert.deepEqual([ret.agent, ret.to, ret.content], ['explore', 'copilot', 'test/checkout.test.ts fails: the cart keeps a removed item (expected 2 items, got 3).']);
  assert.equal(byId(l, 'toolu_01TASK:result').agent, 'copilot');
});

test('Copilot CLI events.jsonl: failed calls and hooks, the aborted call has no result', () => {
  const l = load();
  const failed = l.trace.events.filter((e) => e.type === 'tool_result' && e.error).map((e) => `${e.agent} ${e.tool}: ${e.error}`);
  assert.deepEqual(failed, ['explore bash: Command exited with code 1', 'copilot hook:postToolUse: lint hook exited with code 2']);
  assert.equal(byId(l, 'toolu_04BASH').call_status, 'no_result');
});

test('Copilot CLI events.jsonl: each idle is a turn end handed back to the user (an abort: the user stopped it)', () => {
  const l = load();
  const stops = l.trace.events.filter((e) => e.type === 'stop');
  assert.deepEqual(stops.map((e) => [e.t, e.agent, e.reason, (e as { scope?: string }).scope, e.decided_by]), [
    [16.2, 'copilot', 'task_complete', 'turn', 'copilot'],
    [44.2, 'copilot', 'user_abort', 'turn', 'user'],
  ]);
  // the first turn's events carry its turn id
  assert.equal((byId(l, 'toolu_03EDIT') as { turn_id?: string }).turn_id, '0');
});

test('Copilot CLI events.jsonl without session.idle (not written to disk): each prompt\'s last turn_end ends the turn', () => {
  const text = fixture(...SESSION)
    .split('\n')
    .filter((line) => !line.includes('"type":"session.idle"'))
    .join('\n');
  const l = load(text);
  const stops = l.trace.events.filter((e) => e.type === 'stop');
  assert.deepEqual(stops.map((e) => [e.t, e.agent, e.reason, (e as { scope?: string }).scope, e.decided_by]), [
    [16.1, 'copilot', 'task_complete', 'turn', 'copilot'],
    [44.1, 'copilot', 'user_abort', 'turn', 'user'],
  ]);
  assert.deepEqual(l.problems.filter((p) => p.severity !== 'info'), []);
});

test('Copilot CLI events.jsonl: tokens by kind from assistant.usage on its message, session totals from the shutdown', () => {
  const l = load();
  const t = tokenTotals(l.trace.events);
  // input 21,000 counts its cached part: 17,000 read and 3,900 written leave 100 read fresh
  assert.deepEqual(t, { calls: 1, by_kind: { input: 100, output: 85, cache_read: 17000, cache_write: 3900, reasoning: 0 }, total: 21085 });
  assert.equal(l.trace.events.filter((e) => e.type === 'message' && e.tokens !== undefined).length, 5);
  const c = l.trace.costs as Record<string, number>;
  assert.deepEqual([c.input_tokens, c.output_tokens, c.cache_read_tokens, c.cache_write_tokens], [64000 - 52000 - 9000 + 15930 - 12000 - 2000, 335, 64000, 11000]);
  assert.equal(c.tool_calls, 4);
});

test('Copilot CLI events.jsonl: unknown record types in one info; bad and cut-off lines positioned, the rest loads', () => {
  const text = fixture(...SESSION);
  assert.deepEqual(load(text).problems.map((p) => `${p.severity} ${p.range.start.line + 1}: ${p.message}`), ['info 2: 2 records of 2 types not shown: session.info 1, session.model_change 1']);
  const lines = text.split('\n');
  lines[6] = '{"type":"assistant.usage","data":{'; // cut off mid-record
  lines.splice(10, 0, 'not json at all');
  const cut = lines.join('\n').slice(0, -40); // and the last line cut off
  const l = load(cut);
  assert.equal(l.format, 'copilot-cli');
  const errors = l.problems.filter((p) => p.severity === 'error').map((p) => p.range.start.line + 1);
  assert.deepEqual(errors, [7, 11, lines.length - 1]);
  assert.ok(l.trace.events.some((e) => e.id === 'toolu_01TASK:return'));
});

test("the run summary's tokens are the session's totals by kind (its shutdown's model metrics), not the one call whose usage was written (it read 100 input · 85 output as the run's)", async () => {
  const { analyzeTrace } = await import('../../../../src/analysis');
  const { runSummary } = await import('../../../../src/analysis/run-summary');
  const loaded = load();
  const tokens = runSummary(loaded, analyzeTrace(loaded)).tokens;
  // 79,930 input of which 64,000 cache read and 11,000 cache write; 265 + 70 output
  assert.deepEqual(tokens, { input: 4930, output: 335, cache_read: 64000, cache_write: 11000, reasoning: 0 });
});

test("a turn the user stopped before its answer quotes no words: the last words were the turn before's ('the user stopped it · “Fixed: removeItem…”' read as if the fix was stopped)", async () => {
  const { analyzeTrace } = await import('../../../../src/analysis');
  const { runSummary } = await import('../../../../src/analysis/run-summary');
  const loaded = load();
  const ended = runSummary(loaded, analyzeTrace(loaded)).ended!;
  assert.deepEqual([ended.scope, ended.reason, ended.text], ['turn', 'user_abort', '']);
});
