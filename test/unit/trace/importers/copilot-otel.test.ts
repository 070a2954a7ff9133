/**
 * GitHub Copilot's OpenTelemetry files, read by the OTLP reader (src/trace/importers/otel.ts):
 * Copilot CLI's file exporter lines (`{"type":"span", ...}`), Copilot Chat's file exporter lines
 * (SDK-serialized spans), the Agent Debug Log's OTLP JSON export, and a real OTLP excerpt of a
 * Copilot CLI 1.0.95 session (test/fixtures/copilot/SOURCE.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import type { LoadedTrace } from '../../../../src/trace/model';
import { traceStats } from '../../../../src/trace/stats';
import { tokenTotals } from '../../../../src/trace/tokens';
import { fixture } from '../../helpers';
import { analyzeTrace } from '../../../../src/analysis';
import { runSummary } from '../../../../src/analysis/run-summary';

const load = (name: string): LoadedTrace => loadTrace(fixture('copilot', name), `/home/u/${name}`);
const byId = (l: LoadedTrace, id: string) => l.trace.events.find((e) => e.id === id)!;
const messages = (l: LoadedTrace) => l.problems.map((p) => `${p.severity} ${p.range.start.line + 1}: ${p.message}`);

test('Copilot CLI file exporter lines: lanes, the sub-agent under its task call, failed tools and hooks, turn stops', () => {
  const l = load('copilot-otel.jsonl');
  assert.equal(l.format, 'otel-genai');
  const s = traceStats(l);
  // the unnamed session span takes the service's name; the sub-agent invoke_agent under execute_tool task is its own lane
  assert.deepEqual(s.agents, ['user', 'github-copilot', 'explore']);
  const delegate = byId(l, 'c6a0b1d2e3f40516');
  assert.deepEqual([delegate.type, delegate.agent, delegate.to, delegate.parent], ['delegate', 'github-copilot', 'explore', '1f2e3d4c5b6a7980']);
  assert.equal(byId(l, '1f2e3d4c5b6a7980').tool, 'task');
  assert.deepEqual(byId(l, 'c6a0b1d2e3f40516.return').to, 'github-copilot');
  // failures: an ERROR status, a shell command's non-zero exit code (the tool itself reports success), a failed hook
  const failed = l.trace.events.filter((e) => e.type === 'tool_result' && e.error).map((e) => `${e.agent} ${e.tool}: ${e.error}`);
  assert.deepEqual(failed, ['explore bash: exit code 1', 'github-copilot view: Path does not exist: src/missing.ts', 'github-copilot hook:sessionEnd: hook exited with code 1']);
  assert.equal(byId(l, '5c2b9e0a7d1f3e46').tool, 'hook:preToolUse');
  // each request's invoke_agent ends a turn: handed back to the user, not the run's verdict
  const stops = l.trace.events.filter((e) => e.type === 'stop');
  assert.deepEqual(stops.map((e) => [e.agent, e.reason, (e as { scope?: string }).scope]), [['github-copilot', 'unknown', 'turn'], ['github-copilot', 'unknown', 'turn']]);
  // the metric record is not a span: one info at its line; the permission span in the one skipped-span warning
  assert.deepEqual(messages(l), [
    'info 14: 1 record is not spans (metric 1); not shown',
    'info 15: 2 traces in this file (3d38e764af7148db9df452343179feb4, 9f1e2d3c4b5a69788796a5b4c3d2e1f0); one graph with a lane group per trace; each trace is analysed on its own',
    'warning 4: 1 span of 1 kind not shown (not GenAI / OpenInference operations; children pass through them): permission 1',
  ]);
  const otel = (l.trace.metadata as { otel: { copilot: unknown; not_spans: unknown } }).otel;
  assert.deepEqual(otel.copilot, { conversation_ids: ['5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f'] });
  assert.deepEqual(otel.not_spans, { metric: 1 });
});

test('Copilot CLI file exporter lines: tokens by kind from gen_ai.usage.*, cache writes under their semconv name', () => {
  const l = load('copilot-otel.jsonl');
  const first = byId(l, '267dd90fd393deb8');
  // input 21,884 counts its cached part: 18,000 read + 3,800 written leave 84 read fresh
  assert.deepEqual(first.usage, { input: 84, output: 80, cache_read: 18000, cache_write: 3800, reasoning: 0 });
  assert.equal(first.tokens, 80);
  const t = tokenTotals(l.trace.events);
  // six model calls; the invoke_agent spans' own sums are not counted again
  assert.deepEqual(t, { calls: 6, by_kind: { input: 534, output: 540, cache_read: 103300, cache_write: 6750, reasoning: 0 }, total: 111124 });
});

test('a real Copilot CLI 1.0.95 OTLP excerpt: cache writes counted, its session span named as missing', () => {
  const l = load('copilot-cli-1.0.95.otlp.jsonl');
  assert.equal(l.format, 'otel-genai');
  const t = tokenTotals(l.trace.events);
  assert.deepEqual(t.by_kind, { input: 9, output: 141, cache_read: 170735, cache_write: 8915, reasoning: 0 });
  assert.deepEqual(byId(l, '5f25f09631f5b0d2').usage, { input: 3, output: 20, cache_read: 51275, cache_write: 8062, reasoning: 0 });
  assert.deepEqual(traceStats(l).by_type, { orchestrator_decision: 1, message: 3, tool_call: 3, tool_result: 3 });
  // its spans record no prompts or completions (content capture is off by default): said once
  assert.deepEqual(messages(l), ['warning 1: 6 spans lost their parent (bde26b9d8415d227 not in this file); shown under a "missing parent" placeholder', 'info 1: inputs and outputs are not in this file: none of its 6 GenAI spans carries prompts, completions, tool arguments or results (capturing them is opt-in in the OpenTelemetry GenAI conventions; they may be in a logs file of the same export); messages and tool calls are shown without content']);
});

test('Agent Debug Log export (OTLP JSON): runSubagent spawns its own lane, failed tool and hook, the export header kept', () => {
  const l = load('agent-debug-log.otlp.json');
  assert.equal(l.format, 'otel-genai');
  assert.deepEqual(traceStats(l).agents, ['copilot-chat', 'copilot', 'Explore']);
  const d = byId(l, 'd1e2f30415263748');
  assert.deepEqual([d.type, d.agent, d.to, d.parent], ['delegate', 'copilot', 'Explore', 'c1d2e3f405162738']);
  const failed = l.trace.events.filter((e) => e.type === 'tool_result' && e.error).map((e) => `${e.agent} ${e.tool}`);
  assert.deepEqual(failed, ['Explore readFile', 'copilot hook:Stop']);
  const stops = l.trace.events.filter((e) => e.type === 'stop');
  assert.deepEqual(stops.map((e) => [e.agent, (e as { scope?: string }).scope]), [['copilot', 'turn']]);
  // Copilot Chat's own reasoning key is read; cached input is not counted as fresh input
  assert.deepEqual(tokenTotals(l.trace.events).by_kind, { input: 2300, output: 900, cache_read: 12800, reasoning: 0 });
  const copilot = (l.trace.metadata as { otel: { copilot: { export: { sessionTitle: string } } } }).otel.copilot;
  assert.equal(copilot.export.sessionTitle, 'Upload retry logic');
  assert.deepEqual(l.problems, []);
});

test('Copilot Chat file exporter lines (SDK spans with HrTime times) beside its log and metric records', () => {
  const l = load('copilot-chat-otel.jsonl');
  assert.equal(l.format, 'otel-genai');
  assert.deepEqual(l.trace.events.map((e) => `${e.t} ${e.type}`), ['0 delegate', '0.2 message', '2.1 tool_call', '4 tool_result', '4.1 message', '6.1 return', '6.1 stop']);
  assert.equal(byId(l, 'c8be7c8270314442.result').error, 'Command exited with code 1');
  assert.deepEqual(messages(l), ['info 3: 2 records are not spans (log 1, metric 1); not shown', 'info 1: inputs and outputs are not in this file: none of its 4 GenAI spans carries prompts, completions, tool arguments or results (capturing them is opt-in in the OpenTelemetry GenAI conventions; they may be in a logs file of the same export); messages and tool calls are shown without content']);
});

test('a cut-off last line of a Copilot CLI file: positioned error, the rest loads', () => {
  const text = fixture('copilot', 'copilot-otel.jsonl');
  const cut = text.slice(0, text.length - 200);
  const l = loadTrace(cut, 'copilot-otel.jsonl');
  assert.equal(l.format, 'otel-genai');
  const errors = l.problems.filter((p) => p.severity === 'error');
  assert.ok(errors.length >= 1);
  assert.ok(errors.every((p) => p.range.start.line === 15), JSON.stringify(errors));
  assert.ok(l.trace.events.some((e) => e.id === 'a0b1c2d3e4f50617'));
});

test("the Agent Debug Log's task: the user's request it keeps (copilot_chat.user_request), else unknown, never a model call's output", () => {
  const unknown = load('agent-debug-log.otlp.json');
  assert.match(String((unknown.trace.metadata as Record<string, unknown>).task_unknown), /no span records the user's prompt/);
  assert.equal(runSummary(unknown, analyzeTrace(unknown)).task, '', 'before: the runSubagent call of the first model output');
  const doc = JSON.parse(fixture('copilot', 'agent-debug-log.otlp.json'));
  const root = doc.resourceSpans[0].scopeSpans[0].spans.find((s: { name: string }) => s.name === 'invoke_agent copilot');
  root.attributes.push({ key: 'copilot_chat.user_request', value: { stringValue: 'Why does the upload retry forever?' } });
  const asked = loadTrace(JSON.stringify(doc, null, 2), '/home/u/agent-debug-log.otlp.json');
  assert.equal((asked.trace.metadata as Record<string, unknown>).task, 'Why does the upload retry forever?');
  assert.equal(runSummary(asked, analyzeTrace(asked)).task, 'Why does the upload retry forever?');
});
