/**
 * The run summary at the top of the graph (issue 26): the overview the engine sends carries what
 * was asked, how the run ended (with the stop's event index), who did what and what went wrong,
 * on a Claude Code session with sub-agents, a one-agent Codex rollout and a Who&When log.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { graphOverview } from '../../../src/engine/graph-window';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTraceFile } from '../../../src/trace/load-file';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { loadTrace } from '../../../src/trace/formats';
import { summarize } from '../../../src/engine/summary';
import { summaryText } from '../../../src/host/editor/status-bar-text';
import '../../../src/trace/importers';
import { fixturePath } from '../helpers';

function overviewOf(rel: string) {
  const file = fixturePath(rel);
  const snapshot = makeSnapshot(file, -1, file, loadTraceFile(file, nodeFileAccess));
  return { snapshot, overview: graphOverview(snapshot, rel) };
}

test('Claude Code session: asked "Work on bead…", a turn ended with the final answer, main and its Explore sub-agents, no problems', () => {
  const { snapshot, overview } = overviewOf('claude-code-session/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
  const run = overview.run!;
  assert.match(run.task, /^Work on bead spotter-a0y\. Run bd show/);
  assert.equal(run.ended?.scope, 'turn');
  assert.equal(run.ended?.reason, 'task_complete');
  assert.match(run.ended!.text, /Epic spotter-a0y complete/);
  const stop = snapshot.loaded.trace.events[run.ended!.index];
  assert.equal(stop.type, 'stop', 'the end names the stop event by its index');
  assert.equal(run.outcome, null, 'the session records no outcome');
  assert.equal(run.duration.unit, 'seconds');
  assert.ok(run.duration.value > 2500 && run.duration.value < 2510, String(run.duration.value));
  assert.equal(run.agents[0].name, 'main');
  assert.deepEqual(run.agents.filter((a) => a.label?.startsWith('Explore ')).length, 2);
  assert.deepEqual(run.agents.filter((a) => a.label === 'context compaction').map((a) => a.name), ['compact:acompact-70d8e7'], 'the compaction is named as the graph names its lane');
  assert.ok(run.tokens.output! > 40_000 && run.tokens.cache_read! > 16_000_000);
  assert.deepEqual(run.findings, []);
});

test('Codex rollout: one agent, a turn ended, no problems', () => {
  const { overview } = overviewOf('codex/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
  const run = overview.run!;
  assert.ok(run.task.length > 0, 'the first user prompt is the task');
  assert.equal(run.agents.length, 1);
  assert.equal(run.ended?.scope, 'turn');
  assert.deepEqual(run.findings, []);
});

test('Who&When log: the recorded question, the run stopped on an error (its outcome its wrong final answer, not the error: the error is said once, in how it ended), the blamed step among the problems', () => {
  const { overview } = overviewOf('who-and-when/Hand-Crafted/48.json');
  const run = overview.run!;
  assert.match(run.task, /^Based on recent years \(2020-2023\), how likely am I to hit a/);
  assert.deepEqual({ scope: run.ended?.scope, reason: run.ended?.reason }, { scope: 'run', reason: 'error' });
  // a Hand-Crafted log records no is_correct: its outcome is its final answer against the dataset's (the error stop is not one)
  assert.deepEqual(run.outcome, { status: 'failure', source: 'its final answer “20” is not the dataset\'s correct answer “14.2” (GAIA\'s scorer)' });
  assert.deepEqual(run.agents.map((a) => a.name), ['human', 'Orchestrator', 'WebSurfer']);
  assert.ok(run.findings.length > 0 && run.findings[0].severity !== 'info', JSON.stringify(run.findings));
  assert.equal(run.duration.unit, 'steps', 'a Who&When log records steps, not a clock');
});

test('the run summary travels in the overview bytes the webview reads', async () => {
  const { packOverview, unpackOverview } = await import('../../../src/shared/overview-columns');
  const { overview } = overviewOf('who-and-when/Hand-Crafted/48.json');
  const packed = packOverview(overview);
  assert.deepEqual(unpackOverview(packed.json, packed.columns).run, overview.run);
});

/** A trace whose ids repeat (real traces repeat them: a resumed session, a tool's call and result under one id). */
const repeatedIds = [
  { trace_id: 'ids', task_id: 'ids', system: 'test' },
  { id: 'task', t: 0, type: 'message', agent: 'user', to: 'main', content: 'Send the report.' },
  { id: 'x', t: 1, type: 'tool_call', agent: 'main', tool: 'send_email', content: 'to: a' },
  { id: 'x', t: 2, type: 'tool_result', agent: 'main', tool: 'send_email', content: 'sent' },
  { id: 'x', t: 3, type: 'tool_call', agent: 'main', tool: 'send_email', content: 'to: b' },
  { id: 'x', t: 4, type: 'tool_result', agent: 'main', tool: 'send_email', content: '535 authentication failed', is_error: true },
  { id: 'done', t: 5, type: 'stop', agent: 'main', reason: 'task_complete', content: 'Sent one of two.' },
  // written after the stop, earlier in time (a late log line): the run still ends at the stop
  { id: 'done', t: 4.5, type: 'message', agent: 'main', to: 'helper', content: 'Retry b later.' },
];

test('the run brief names the end and the first failed call by index, though their ids repeat', () => {
  const loaded = loadTrace(repeatedIds.map((l) => JSON.stringify(l)).join('\n'), 'ids.otrace.jsonl');
  const snapshot = makeSnapshot('k', 1, 'ids.otrace.jsonl', loaded);
  const run = graphOverview(snapshot, 'ids').run;
  assert.ok(run?.failedCalls && run.ended, JSON.stringify(run));
  assert.equal(run.failedCalls.index, 4, 'the failed result, not the first event named x');
  assert.equal(loaded.trace.events[run.failedCalls.index].content, '535 authentication failed');
  assert.equal(run.ended.index, 5, 'the stop, not the last event named done');
  assert.equal(loaded.trace.events[run.ended.index].type, 'stop');
});

test('the status bar counts a compaction apart from the run\'s agents, as the graph\'s header does; a trace without one says agents only', () => {
  const { snapshot } = overviewOf('claude-code-session/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
  const summary = summarize(snapshot, 1, 0, false);
  assert.deepEqual([summary.counts.agents, summary.counts.compactions], [4, 1]);
  assert.match(summaryText(summary).toString(), /^otrace: 634 events · 3 agents · 1 context compaction · \d+ stops · /);
  const demo = overviewOf('../../samples/demo.otrace.jsonl');
  const plain = summarize(demo.snapshot, 1, 0, false);
  assert.equal(plain.counts.compactions, undefined);
  assert.match(summaryText(plain).toString(), /^otrace: 35 events · 6 agents · /);
});
