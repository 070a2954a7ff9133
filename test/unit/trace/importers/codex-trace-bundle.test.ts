/**
 * Codex rollout-trace bundles (manifest.json + trace.jsonl + payloads/, openai/codex codex-rs/rollout-trace):
 * opened from either file, one trace with a lane per thread (test/fixtures/codex-trace-bundle, see its SOURCE.md).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { detectFormat, loadTrace, type FileAccess } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { originOfId, type LoadedTrace } from '../../../../src/trace/model';
import { nodeFileAccess } from '../../../../src/trace/node-files';
import { TraceSchema } from '../../../../src/trace/schema';
import { traceStats } from '../../../../src/trace/stats';
import { tokenTotals } from '../../../../src/trace/tokens';
import { analyzeTrace } from '../../../../src/analysis';
import { fixturePath } from '../../helpers';

const BUNDLE = fixturePath('codex-trace-bundle', 'trace-2026-01-07-multi-agent');
const LOG = path.join(BUNDLE, 'trace.jsonl');
const MANIFEST = path.join(BUNDLE, 'manifest.json');
const open = (file: string, files: FileAccess = nodeFileAccess, text = fs.readFileSync(file, 'utf8')): LoadedTrace => loadTrace(text, file, files);
const byId = (l: LoadedTrace, id: string) => {
  const e = l.trace.events.find((x) => x.id === id);
  assert.ok(e, `no event ${id}`);
  return e;
};

test('a rollout-trace bundle opens as one trace from trace.jsonl or manifest.json: a lane per thread, the spawn, the result back', () => {
  assert.equal(detectFormat(fs.readFileSync(LOG, 'utf8'), LOG)?.id, 'codex-trace-bundle');
  assert.equal(detectFormat(fs.readFileSync(MANIFEST, 'utf8'), MANIFEST)?.id, 'codex-trace-bundle');
  const l = open(LOG);
  assert.deepEqual(l.problems, []);
  assert.equal(l.format, 'codex-trace-bundle');
  assert.ok(TraceSchema.safeParse(l.trace).success);
  assert.deepEqual(traceStats(l).agents, ['codex', 'worker:Noether']);
  // The prompt (the environment context is a meta row), the model's message and calls, token usage by kind on its last output.
  const root = l.trace.events.filter((e) => e.agent === 'codex').map((e) => [e.type, e.kind ?? '', e.from ?? '', (e.content ?? '').slice(0, 24)]);
  assert.deepEqual(root.slice(0, 5), [
    ['message', 'meta', 'harness', '<environment_context>\n  '],
    ['message', '', 'user', 'Run the cart tests, and h'.slice(0, 24)],
    ['message', '', 'codex', 'Running the tests and sta'.slice(0, 24)],
    ['tool_call', '', '', '{"cmd":"npm test -- cart'],
    ['spawn', '', '', 'Review src/payment for r'],
  ]);
  assert.deepEqual(byId(l, 'call_e2').usage, { input: 5000, output: 300, cache_read: 4000, reasoning: 100 });
  assert.deepEqual(tokenTotals(l.trace.events).by_kind, { input: 8800, output: 650, cache_read: 13000, reasoning: 100 });
  // The command failed by its output's header; the spawn goes to the worker's lane, its first event being the task from the root.
  assert.deepEqual([byId(l, 'call_e1:result').exit_code, byId(l, 'call_e1:result').is_error], [1, true]);
  assert.equal(byId(l, 'call_e2').to, 'worker:Noether');
  const first = l.trace.events.find((e) => e.agent === 'worker:Noether')!;
  assert.deepEqual([first.from, first.content], ['codex', 'Review src/payment for retry risks.']);
  assert.ok(l.trace.edges.some((e) => e.src === 'call_e2' && e.dst === first.id && e.type === 'spawn'));
  // The worker's answer is delivered to the root as a message, which the root's final answer follows from.
  const delivered = l.trace.events.find((e) => e.agent === 'codex' && e.from === 'worker:Noether')!;
  assert.equal(delivered.content, '- payment retries are not idempotent');
  assert.ok(l.trace.edges.some((e) => e.dst === delivered.id && e.type === 'return'));
  const final = l.trace.events.filter((e) => e.agent === 'codex' && e.type === 'message' && e.from === 'codex').pop()!;
  assert.ok(final.causes?.includes(delivered.id));
  // Turn ends are stops; every event is on its raw event's line of trace.jsonl.
  assert.deepEqual(l.trace.events.filter((e) => e.type === 'stop').map((e) => [e.agent, e.reason, e.scope ?? '']), [
    ['worker:Noether', 'task_complete', ''],
    ['codex', 'task_complete', 'turn'],
  ]);
  assert.equal(originOfId(l, byId(l, 'call_e1:result').id)!.record, 11, 'raw event 12 (0-based line 11)');
  assert.deepEqual(analyzeTrace(l).loops, []);
  // From the manifest: the same trace, its events placed in trace.jsonl.
  const m = open(MANIFEST);
  assert.deepEqual(m.problems, []);
  assert.deepEqual(m.trace.events.map((e) => e.id), l.trace.events.map((e) => e.id));
  assert.equal(originOfId(m, 'call_e1:result')!.file, LOG);
  assert.equal(m.trace.trace_id, '019f9a00-0000-7000-8000-0000000000e1');
});

test('a bundle with missing payloads, unknown raw events and a payload path leaving the bundle still loads, with warnings', () => {
  const lines = fs.readFileSync(LOG, 'utf8').trimEnd().split('\n');
  const odd = JSON.parse(lines[3]) as { payload: { request_payload: { path: string } } };
  odd.payload.request_payload.path = '../../../../etc/passwd';
  const extra = JSON.stringify({ schema_version: 1, seq: 99, wall_time_unix_ms: 1767780012300, rollout_id: 'r', thread_id: null, codex_turn_id: null, payload: { type: 'protocol_event_observed', event_type: 'x', event_payload: { raw_payload_id: 'p', kind: { type: 'protocol_event' }, path: 'payloads/404.json' } } });
  const text = [...lines.slice(0, 3), JSON.stringify(odd), ...lines.slice(4), extra, '{"cut": '].join('\n');
  const l = open(LOG, nodeFileAccess, text);
  assert.deepEqual(
    l.problems.map((p) => [p.severity, p.message.replace(/ at .*/, '')]),
    [
      ['error', l.problems[0].message.replace(/ at .*/, '')],
      ['warning', '1 record of 1 kind not shown: protocol_event_observed 1'],
      ['warning', '1 payload of the bundle could not be read (missing or not JSON): what they hold is not shown'],
    ],
  );
  assert.equal(l.problems[0].range.start.line, lines.length + 1, 'the cut-off last line');
  // The request read through the bad path is not, so its prompt is read from the next full snapshot; the rest is shown.
  assert.equal(l.trace.events.filter((e) => e.from === 'user' && e.content?.startsWith('Run the cart')).length, 1);
  assert.deepEqual(traceStats(l).agents, ['codex', 'worker:Noether']);
  // A manifest whose event log is missing: one error, an empty trace.
  const lone = loadTrace(fs.readFileSync(MANIFEST, 'utf8'), '/nowhere/manifest.json', { readText: () => undefined, list: () => undefined });
  assert.deepEqual(lone.problems.map((p) => [p.severity, p.message]), [['error', "the bundle's raw event log trace.jsonl could not be read"]]);
  assert.equal(lone.trace.events.length, 0);
});
