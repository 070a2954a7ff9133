/**
 * otrace's language model tools (src/engine/chat-tools.ts), answered by the engine as the worker
 * answers VS Code: package.json declares each with the input schema the module defines; the trace
 * in view, an open session and a file on disk are each read; bad inputs and unreadable files are
 * answers, not exceptions; pages of events go on where they stopped; every list is capped.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { CHAT_TOOL_NAMES, CHAT_TOOLS, toolInputJsonSchema } from '../../../src/engine/chat-tools';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
const CLAUDE = fixturePath('claude-code', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const HOSTILE = fixturePath('hostile', 'control-names.otrace.jsonl');

/** The engine with the demo loaded as the trace in view. */
async function withDemo() {
  const engine = new InProcessEngine();
  const summary = (await engine.load({ key: 'file:///demo', version: -1, path: DEMO, local: true }))!;
  return { engine, view: { key: summary.key, stamp: summary.stamp } };
}

/** The facts of an answer (fails on an error answer). */
function facts(answer: unknown): any {
  assert.ok(answer && typeof answer === 'object' && 'result' in answer, `an answer with facts: ${JSON.stringify(answer).slice(0, 300)}`);
  return (answer as { result: unknown }).result;
}

test('package.json declares each tool with the input schema, name and description the module defines', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const declared = pkg.contributes.languageModelTools as { name: string; inputSchema: unknown; modelDescription: string }[];
  assert.deepEqual(declared.map((t) => t.name), [...CHAT_TOOL_NAMES]);
  for (const t of declared) {
    assert.deepEqual(t.inputSchema, toolInputJsonSchema(t.name as never), `${t.name}: package.json's inputSchema is the zod schema's (regenerate it)`);
    assert.equal(t.modelDescription, CHAT_TOOLS[t.name as keyof typeof CHAT_TOOLS].description);
  }
  const participant = pkg.contributes.chatParticipants[0];
  assert.equal(participant.name, 'otrace');
  assert.deepEqual(participant.commands.map((c: { name: string }) => c.name), ['explain', 'why-stopped', 'compare']);
});

test('the trace in view: its summary, its stop event and its findings with evidence, cited by id, index and line', async () => {
  const { engine, view } = await withDemo();
  const s = facts(await engine.runTool('otrace_summary', {}, view));
  assert.deepEqual(s.trace, { path: DEMO, format: 'otrace-jsonl', events: 35, agents: 6, reader_problems: 0 });
  assert.equal(s.summary.ended.reason, 'quality_met');
  assert.deepEqual(s.stop_event, { id: 'e35', index: 34, type: 'stop', agent: 'orchestrator', line: 36 });
  const f = facts(await engine.runTool('otrace_findings', { kind: 'stop' }, view));
  assert.equal(f.total, 1);
  assert.deepEqual([f.findings[0].number, f.findings[0].mode, f.findings[0].sound, f.findings[0].event.id], [2, 'ok', true, 'e35']);
  const loops = facts(await engine.runTool('otrace_findings', { kind: 'loop', max: 1 }, view));
  assert.equal(loops.total, 2);
  assert.equal(loops.findings.length, 1, 'capped at max');
  assert.equal(loops.findings[0].evidence_count, 7);
});

test('no trace in view, a file that is not there, a folder, a file of no known format, a bad input and an unknown tool are answers', async () => {
  const engine = new InProcessEngine();
  assert.match((await engine.runTool('otrace_summary', {}))['error' as never] ?? '', /no trace is in view/);
  const err = async (name: string, input: unknown) => {
    const answer = await engine.runTool(name, input);
    assert.ok('error' in answer, `${name} ${JSON.stringify(input)} is an error`);
    return answer.error;
  };
  assert.match(await err('otrace_summary', { file: path.join(os.tmpdir(), 'no-such-trace.jsonl') }), /no such file/);
  assert.match(await err('otrace_summary', { file: os.tmpdir() }), /is a folder/);
  assert.match(await err('otrace_summary', { file: path.join(ROOT, 'package.json') }), /no trace of a format otrace knows/);
  assert.match(await err('otrace_events', { file: DEMO, limit: 0 }), /limit/);
  assert.match(await err('otrace_events', { file: DEMO, bogus: 1 }), /bogus/);
  assert.match(await err('otrace_compare', { a: DEMO }), /b/);
  assert.match(await err('otrace_shell', {}), /no tool named/);
});

test('events come a page at a time, of one agent, with content cut to the length asked', async () => {
  const { engine, view } = await withDemo();
  const first = facts(await engine.runTool('otrace_events', { by_agent: 'researcher', limit: 5, content_chars: 8 }, view));
  assert.equal(first.events.length, 5);
  assert.ok(first.events.every((e: any) => e.agent === 'researcher'));
  assert.ok(first.events.every((e: any) => e.content === null || e.content.length <= 8));
  const second = facts(await engine.runTool('otrace_events', { by_agent: 'researcher', from: first.next_from, limit: 50 }, view));
  assert.equal(first.events.length + second.events.length, 12, 'the researcher has 12 events, none twice');
  assert.ok(second.events[0].index > first.events[4].index);
  assert.equal(second.next_from, null);
  const range = facts(await engine.runTool('otrace_events', { from: 30, to: 31 }, view));
  assert.deepEqual(range.events.map((e: any) => e.index), [30, 31]);
  assert.equal(range.next_from, null);
});

test('blame by a stated outcome, and why there is none without one', async () => {
  const { engine, view } = await withDemo();
  const none = facts(await engine.runTool('otrace_blame', {}, view));
  assert.equal(none.blame, null);
  assert.match(none.why_none, /did not fail by its own signal/);
  assert.ok(none.credit.signed, 'the demo records a success: credit is signed');
  const failed = facts(await engine.runTool('otrace_blame', { outcome: 'failure', max: 2 }, view));
  assert.equal(failed.outcome.source, 'given by the caller');
  assert.deepEqual([failed.blame.agent, failed.blame.event.id, failed.blame.basis], ['critic', 'e32', 'evidence']);
  assert.equal(failed.credit.most_blamed.length, 2);
});

test('a named file is read from disk; a comparison cites events of both runs', async () => {
  const engine = new InProcessEngine();
  const s = facts(await engine.runTool('otrace_summary', { file: CLAUDE }));
  assert.deepEqual([s.trace.format, s.trace.events, s.summary.ended.scope], ['claude-code', 196, 'turn']);
  assert.equal(s.summary.cost, null, 'the engine does not price (the CLI does)');
  const c = facts(await engine.runTool('otrace_compare', { a: DEMO, b: CLAUDE, max: 3 }));
  assert.deepEqual([c.a.events, c.b.events, c.steps.only_in_a, c.steps.only_in_b], [35, 196, 35, 196]);
  assert.equal(c.differences.first.length, 3);
  assert.equal(c.differences.total, 231);
  assert.ok(c.first_divergence.b && typeof c.first_divergence.b.index === 'number');
  // the same run against itself: no divergence
  const same = facts(await engine.runTool('otrace_compare', { a: DEMO, b: DEMO }));
  assert.equal(same.first_divergence, null);
  assert.equal(same.steps.same, 35);
});

test('an open session of a named file is answered from it (its unsaved text), not from disk', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-tools-'));
  const file = path.join(dir, 'run.otrace.jsonl');
  const lines = fs.readFileSync(DEMO, 'utf8').trim().split('\n');
  fs.writeFileSync(file, lines.join('\n'));
  const engine = new InProcessEngine();
  await engine.load({ key: 'file:///run', version: 2, path: file, text: lines.slice(0, 10).join('\n'), local: true });
  const s = facts(await engine.runTool('otrace_summary', { file }));
  assert.equal(s.trace.events, 9, 'the header and the first 9 events of the text, not the 35 on disk');
});

test('trace strings stay raw in the facts (plain text for whoever shows them)', async () => {
  const engine = new InProcessEngine();
  const e = facts(await engine.runTool('otrace_events', { file: HOSTILE, limit: 2 }));
  assert.equal(e.events[0].id, 'e1\u001b[31m');
  assert.ok(e.events[0].agent.includes('\u001b]8;;http://x'));
});

test('blame of a run of 3,000 agents lists the agents with the largest shares and counts them all (a million agents stay a short answer)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-chat-agents-'));
  const file = path.join(dir, 'agents.otrace.jsonl');
  const lines = [JSON.stringify({ trace_id: 'many', outcome: { status: 'success' } })];
  for (let i = 0; i < 3_000; i++) lines.push(JSON.stringify({ id: `e${i}`, t: i, type: 'message', agent: `a${i}`, to: `a${i + 1}`, content: `step ${i}`, ...(i ? { causes: [`e${i - 1}`] } : {}) }));
  lines.push(JSON.stringify({ id: 'end', t: 3_000, type: 'stop', agent: 'a3000', reason: 'task_complete', causes: ['e2999'] }));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  try {
    const engine = new InProcessEngine();
    const answer = facts(await engine.runTool('otrace_blame', { file }, undefined));
    assert.ok(answer.credit.agents.length <= 50, `${answer.credit.agents.length} agents listed`);
    assert.ok(answer.credit.agent_count > 50, `${answer.credit.agent_count} agents counted`);
    assert.ok(JSON.stringify(answer).length < 32 * 1024);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
